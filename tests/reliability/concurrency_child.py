"""Processes for the concurrency test: an appender and a reader of one conversation folder.

- ``append FOLDER N TAG``: appends N MessageEvents whose text is ``TAG-<i>`` through
  `ConversationWriter` (its lock and atomic writes), printing the elapsed seconds.
- ``read FOLDER STOP OUT``: until the file STOP exists, reads the whole conversation with
  ``open_conversation(..).iter_events()`` again and again; every `InputError` is written to OUT
  as ``<path>\\t<message>`` lines. Prints ``<passes> <events read>``.
"""

from __future__ import annotations

import os
import sys
import time

from trajkit.errors import InputError
from trajkit.events import Message, MessageEvent, TextContent
from trajkit.store import ConversationWriter, open_conversation


def append(folder: str, n: int, tag: str) -> None:
    writer = ConversationWriter(folder)
    start = time.monotonic()
    for i in range(n):
        text = TextContent(text=f"{tag}-{i}")
        writer.append(
            MessageEvent(source="agent", llm_message=Message(role="assistant", content=[text]))
        )
    print(f"{time.monotonic() - start:.2f}", flush=True)


def read(folder: str, stop: str, out: str) -> None:
    passes = events = 0
    with open(out, "w") as errors:
        while not os.path.exists(stop):
            if not os.path.isdir(os.path.join(folder, "events")):
                time.sleep(0.01)
                continue
            try:
                for _ in open_conversation(folder).iter_events():
                    events += 1
            except InputError as exc:
                errors.write(f"{exc.path}\t{exc.message}\n")
                errors.flush()
            passes += 1
    print(f"{passes} {events}", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "append":
        append(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        read(sys.argv[2], sys.argv[3], sys.argv[4])
