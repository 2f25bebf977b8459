"""The openhands-sdk side of `bench_table.py`: one operation on one conversation folder.

Run with the SDK's own interpreter (openhands-sdk 1.58.2 installed; trajkit not imported):

    /work/sdkvenv/bin/python benchmarks/sdk_side.py OP FOLDER [--timed] [--out FILE]

Operations, each what the SDK itself offers for the job trajkit does:
- ``load``: iterate ``EventLog`` (what ``Conversation`` reads on resume) over every event;
- ``validate``: every event file through ``Event.model_validate_json(..., strict=True)`` (the
  SDK has no validator; its strict load is the nearest) and ``base_state.json`` as JSON;
- ``chat`` / ``responses``: the events loaded, ``LLMConvertibleEvent.events_to_messages``,
  then ``LLM.format_messages_for_llm`` / ``format_messages_for_responses``;
- ``convert``: ``chat`` plus the indented JSON document written to ``--out FILE`` (the CLI's
  job; default ``os.devnull``). ``bench_table.py`` gives both sides a real file in ``/tmp``:
  ``trajkit convert -o FILE`` writes one, so the SDK writes the same kind of destination;
- ``ls``: the event log's index (its listing), ``base_state.json``, and events read until the
  first user message (what a listing row shows);
- ``stats``: every event loaded and counted by kind, tool calls by tool.

With ``--timed`` the operation runs once to warm up (imports, file cache) and the CPU seconds
of a second run (``time.process_time``) are printed; without it, it runs once (a whole
process: the caller measures it, imports included).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from typing import Any

from openhands.sdk import LLM
from openhands.sdk.conversation.event_store import EventLog
from openhands.sdk.event import Event, LLMConvertibleEvent, MessageEvent
from openhands.sdk.event.llm_convertible import ActionEvent
from openhands.sdk.io import LocalFileStore
from openhands.tools.file_editor import FileEditorTool  # noqa: F401 (registers the tool kinds)
from openhands.tools.terminal import TerminalTool  # noqa: F401

_LLM = LLM(model="openai/gpt-4o", usage_id="bench")


def _events(folder: str) -> list[Event]:
    return list(EventLog(LocalFileStore(folder), "events"))


def load(folder: str) -> int:
    return len(_events(folder))


def validate(folder: str) -> int:
    events = os.path.join(folder, "events")
    n = 0
    for name in sorted(os.listdir(events)):
        if name.startswith("event-"):
            with open(os.path.join(events, name), "rb") as f:
                Event.model_validate_json(f.read(), strict=True)
            n += 1
    with open(os.path.join(folder, "base_state.json"), "rb") as f:
        json.loads(f.read())
    return n


def _messages(folder: str) -> list[Any]:
    convertible = [e for e in _events(folder) if isinstance(e, LLMConvertibleEvent)]
    return LLMConvertibleEvent.events_to_messages(convertible)


def chat(folder: str) -> int:
    return len(_LLM.format_messages_for_llm(_messages(folder)))


def responses(folder: str) -> int:
    return len(_LLM.format_messages_for_responses(_messages(folder))[1])


def convert(folder: str, out: str = os.devnull) -> int:
    messages = _LLM.format_messages_for_llm(_messages(folder))
    with open(out, "w", encoding="utf-8") as f:
        f.write(json.dumps({"messages": messages}, indent=2, ensure_ascii=False) + "\n")
    return len(messages)


def ls(folder: str) -> int:
    log = EventLog(LocalFileStore(folder), "events")
    with open(os.path.join(folder, "base_state.json"), "rb") as f:
        json.loads(f.read())
    for i in range(len(log)):
        event = log[i]
        if isinstance(event, MessageEvent) and event.source == "user":
            break
    return len(log)


def stats(folder: str) -> int:
    kinds: Counter[str] = Counter()
    tools: Counter[str] = Counter()
    for event in _events(folder):
        kinds[type(event).__name__] += 1
        if isinstance(event, ActionEvent):
            tools[event.tool_name] += 1
    return sum(kinds.values())


OPS = {f.__name__: f for f in (load, validate, chat, responses, convert, ls, stats)}


def main() -> None:
    op, folder, *flags = sys.argv[1:]
    func = OPS[op]
    args = [folder]
    if "--out" in flags:  # convert's destination
        args.append(flags[flags.index("--out") + 1])
    if "--timed" in flags:
        func(*args)
        start = time.process_time()
        func(*args)
        print(f"{time.process_time() - start:.4f}")
    else:
        func(*args)


if __name__ == "__main__":
    main()
