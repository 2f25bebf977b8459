"""Live follow: the entries of events written to a conversation since the page was drawn.

`Tail(folder, after)` remembers the last position sent; `poll()` lists `events/` with the
store's reader (which lists only complete `event-*.json` files: the runtime writes each event
to a temp file and renames it into place) and parses the new ones. A writer that does not
rename (a file still growing) is handled too: when the newest file does not parse and was
modified less than `_SETTLE_S` ago, it is left for the next poll instead of being shown broken.
`poll()` also reports the execution status of `base_state.json` when it changes.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from trajkit.errors import InputError, TrajkitError
from trajkit.store import open_conversation
from trajkit.views.entries import iter_entries, seconds_between, usage_by_response
from trajkit.views.html import entry_data
from trajkit.views.load import Broken, read_event

__all__ = ["Tail"]

_SETTLE_S = 2.0
"""A file that does not parse is retried while younger than this."""


class Tail:
    """New entries of one conversation folder (see the module docstring)."""

    def __init__(
        self, folder: Path, after: int, status: str | None = None, masker: Any = None
    ) -> None:
        self.folder = folder
        self.masker = masker
        self.next = after + 1
        self.status = status
        self._called: dict[str, str] = {}
        self._responses: set[str] = set()

    def poll(self) -> tuple[list[dict[str, Any]], str | None]:
        """`(entries, status)`: the entries of new events, and the status if it changed."""
        conv = open_conversation(self.folder)
        files = conv.event_files()
        items: list[tuple[int, Any]] = []
        for pos in range(self.next, len(files)):
            event_file = files[pos]
            try:
                items.append((pos, read_event(event_file, self.masker)))
            except InputError as exc:
                if pos == len(files) - 1 and _young(event_file.path):
                    break  # still being written: next poll
                items.append((pos, Broken(str(event_file.path), str(exc))))
        try:
            state = conv.base_state()
        except TrajkitError:
            state = None
        entries = list(iter_entries(items, usage_by_response(state) if items else {}))
        for entry in entries:
            if entry.usage is not None:
                if entry.usage.response_id in self._responses:
                    entry.usage = None
                else:
                    self._responses.add(entry.usage.response_id)
            if entry.call_id and entry.role == "action":
                self._called.setdefault(entry.call_id, entry.time)
            elif entry.call_id and entry.run_s is None and entry.call_id in self._called:
                entry.run_s = seconds_between(self._called[entry.call_id], entry.time)
        if items:
            self.next = items[-1][0] + 1
        status = state.execution_status if state is not None else None
        changed = status is not None and status != self.status
        self.status = status if status is not None else self.status
        return [entry_data(e) for e in entries], (status if changed else None)


def _young(path: Any) -> bool:
    try:
        return time.time() - os.stat(path).st_mtime < _SETTLE_S
    except (OSError, TypeError):
        return False
