"""Live follow: the entries of events written to a conversation since the page was drawn.

One `Watcher` per followed folder, shared by every stream on it (`Watchers.follow`): it lists
`events/` with the store's reader (which lists only complete `event-*.json` files: the runtime
writes each event to a temp file and renames it into place) and reads `base_state.json` at most
once per `POLL_S`, whatever the number of streams, so ten tabs on a big conversation cost one
listing per interval, not ten. Each stream keeps its own `Tail` (the last position it sent) and
reads only the event files it has not sent. A writer that does not rename (a file still
growing) is handled too: when the newest file does not parse and was modified less than
`_SETTLE_S` ago, it is left for the next poll instead of being shown broken. A change of the
execution status in `base_state.json` is sent too. When the folder disappears (deleted, moved
away), every stream on it sends a `gone` status and ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool

from trajkit.errors import InputError, TrajkitError
from trajkit.events import BaseState
from trajkit.store import open_conversation
from trajkit.store.reader import EventFile
from trajkit.views.entries import iter_entries, seconds_between, usage_by_response
from trajkit.views.html import entry_data
from trajkit.views.load import Broken, read_event

__all__ = ["POLL_S", "Snapshot", "Tail", "Watcher", "Watchers", "follow"]

POLL_S = 0.25
"""How often a followed folder is listed (once for all its streams)."""
_PING_S = 15.0
"""A comment line after this long without news, so proxies keep the stream open."""
_SETTLE_S = 2.0
"""A file that does not parse is retried while younger than this."""


@dataclass(frozen=True)
class Snapshot:
    """One listing of a followed folder: its event files, its state, or that it is gone."""

    files: Sequence[EventFile] = ()
    state: BaseState | None = None
    gone: bool = False


class Watcher:
    """Lists one conversation folder for all its streams, at most once per `POLL_S`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.listings = 0
        """How many times the folder was listed (one per interval while followed)."""
        self.streams = 0
        self._snapshot = Snapshot()
        self._at = float("-inf")
        self._lock = asyncio.Lock()

    async def snapshot(self) -> Snapshot:
        """The folder as listed less than `POLL_S` ago (listed now if older)."""
        async with self._lock:  # streams arriving together wait for one listing
            if time.monotonic() - self._at >= POLL_S:
                self._snapshot = await run_in_threadpool(self._list)
                self._at = time.monotonic()
            return self._snapshot

    def _list(self) -> Snapshot:
        self.listings += 1
        try:
            conv = open_conversation(self.folder)
            files = conv.event_files()
        except TrajkitError:
            return Snapshot(gone=not self.folder.is_dir())
        try:
            state = conv.base_state()
        except TrajkitError:
            state = None
        return Snapshot(files, state)


class Watchers:
    """The watcher of each followed folder; it lives while a stream follows the folder."""

    def __init__(self) -> None:
        self.by_folder: dict[str, Watcher] = {}

    @contextlib.contextmanager
    def follow(self, folder: Path) -> Iterator[Watcher]:
        """The folder's watcher (created for the first stream, dropped after the last)."""
        key = os.path.realpath(folder)
        watcher = self.by_folder.setdefault(key, Watcher(folder))
        watcher.streams += 1
        try:
            yield watcher
        finally:
            watcher.streams -= 1
            if watcher.streams == 0 and self.by_folder.get(key) is watcher:
                del self.by_folder[key]


class Tail:
    """New entries of one conversation for one stream (see the module docstring)."""

    def __init__(
        self, folder: Path, after: int, status: str | None = None, masker: Any = None
    ) -> None:
        self.folder = folder
        self.masker = masker
        self.next = after + 1
        self.status = status
        self._called: dict[str, str] = {}
        self._responses: set[str] = set()

    def has_news(self, snap: Snapshot) -> bool:
        """Whether `snap` holds events not sent yet or a changed status."""
        status = snap.state.execution_status if snap.state is not None else None
        return self.next < len(snap.files) or (status is not None and status != self.status)

    def poll(self, snap: Snapshot) -> tuple[list[dict[str, Any]], str | None]:
        """`(entries, status)`: the entries of new events, and the status if it changed."""
        files, state = snap.files, snap.state
        items: list[tuple[int, Any]] = []
        for pos in range(self.next, len(files)):
            event_file = files[pos]
            try:
                items.append((pos, read_event(event_file, self.masker)))
            except InputError as exc:
                if pos == len(files) - 1 and _young(event_file.path):
                    break  # still being written: next poll
                items.append((pos, Broken(str(event_file.path), str(exc))))
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


async def follow(
    watchers: Watchers, tail: Tail, disconnected: Callable[[], Awaitable[bool]]
) -> AsyncIterator[str]:
    """The server-sent events of one stream: entries, status changes, pings, `gone` at the end."""
    yield "retry: 1000\n\n"
    quiet = 0.0
    with watchers.follow(tail.folder) as watcher:
        while not await disconnected():
            snap = await watcher.snapshot()
            if snap.gone:  # deleted (or moved away): nothing more will come
                yield 'event: status\ndata: "gone"\n\n'
                return
            entries: list[dict[str, Any]] = []
            status = None
            if tail.has_news(snap):
                entries, status = await run_in_threadpool(tail.poll, snap)
            if entries:
                data = json.dumps(entries, ensure_ascii=False, separators=(",", ":"))
                yield f"id: {tail.next - 1}\nevent: entries\ndata: {data}\n\n"
            if status:
                yield f"event: status\ndata: {json.dumps(status)}\n\n"
            quiet = 0.0 if entries or status else quiet + POLL_S
            if quiet >= _PING_S:
                yield ": ping\n\n"
                quiet = 0.0
            await asyncio.sleep(POLL_S)


def _young(path: Any) -> bool:
    try:
        return time.time() - os.stat(path).st_mtime < _SETTLE_S
    except (OSError, TypeError):
        return False
