"""A separate process that writes a conversation as the runtime does (the store's
`ConversationWriter`: each event to a temp file, renamed into place), for the live-follow test.

usage: live_writer.py FOLDER COUNT INTERVAL MARKER [--in-place]
Appends COUNT agent messages "MARKER <n>" every INTERVAL seconds, printing `wrote <n> <time>`
after each, then sets `execution_status` to `finished` in base_state.json and prints `done`.
With `--in-place` each event file is written under its final name in two halves, INTERVAL
apart (as a writer that does not rename would), so a reader can meet it half-written.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from trajkit.events import Message, MessageEvent, TextContent, dump_event
from trajkit.store.layout import event_file_name
from trajkit.store.writer import ConversationWriter


def main() -> None:
    folder, count, interval, marker = (
        Path(sys.argv[1]),
        int(sys.argv[2]),
        float(sys.argv[3]),
        sys.argv[4],
    )
    in_place = "--in-place" in sys.argv
    writer = ConversationWriter(folder)
    for n in range(count):
        time.sleep(interval)
        event = MessageEvent(
            source="agent",
            llm_message=Message(role="assistant", content=[TextContent(text=f"{marker} {n}")]),
        )
        if in_place:
            index = len(list((folder / "events").glob("event-*.json")))
            data = dump_event(event).encode()
            path = folder / "events" / event_file_name(index, event.id)
            with open(path, "wb") as f:
                f.write(data[: len(data) // 2])
                f.flush()
                time.sleep(interval)
                f.write(data[len(data) // 2 :])
        else:
            writer.append(event)
        print(f"wrote {n} {time.time()}", flush=True)
    state = json.loads((folder / "base_state.json").read_text())
    state["execution_status"] = "finished"
    writer.save_base_state(json.dumps(state))
    print("done", flush=True)


if __name__ == "__main__":
    main()
