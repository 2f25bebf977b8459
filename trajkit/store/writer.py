"""Append events to a conversation folder and rewrite its base state, crash-safely.

`ConversationWriter(folder).append(event)`:

1. refuses an id that would escape `events/` or that the SDK could not read back;
2. takes `events/.eventlog.lock` (shared with the SDK's `EventLog`, 30 s timeout);
3. trusts its cached view of the log only if `.eventlog-len-<count>.marker` still names the
   count it last saw (as the SDK does); otherwise rescans the file names on disk, since
   another process may have appended;
4. refuses a duplicate id or a `parent_id` that names no event (`"__root__"` is allowed);
5. writes `event-<index:05d>-<id>.json` with `atomic_write` (mode 0600, like SDK 1.58) at
   index = highest index on disk + 1, so even a log with a gap never gets two files for
   one index;
6. moves the length marker, deleting the old one first (as the SDK does: an interrupted move
   leaves no marker, which only forces the next writer to rescan).

`with writer.group_commit():` (the runtime wraps each agent step in it) makes step 5 of
`atomic_write` - the fsync of `events/` - happen once, when the block ends, instead of once
per event: each file is still written, fsynced and renamed into place before `append`
returns, so a killed process loses no event whose append returned; against a power cut the
block's events are durable when it ends (the runtime saves the step's base state after that).
Appends from another thread than the block's own fsync the folder each time, as outside it.

`save_base_state(state)` replaces `base_state.json` atomically. Like the SDK it does not take the
lock: the rename already makes each rewrite whole, and the last writer wins.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from trajkit.errors import StoreConflict, UnsafePath
from trajkit.store.atomic import LOCK_TIMEOUT_SECONDS, atomic_write, conversation_lock, fsync_dir
from trajkit.store.layout import (
    BASE_STATE,
    EVENTS_DIR,
    LENGTH_MARKER_RE,
    check_event_id,
    event_file_name,
    length_marker_name,
    link_outside,
    parse_event_file_name,
)

if TYPE_CHECKING:
    from trajkit.events import Event
    from trajkit.events.state import BaseState

__all__ = ["ConversationWriter"]

FILE_MODE = 0o600
"""Mode of files trajkit writes into a conversation (base state may hold encrypted secrets)."""


class ConversationWriter:
    """Appends events to one conversation folder; safe to use from several processes at once."""

    def __init__(
        self,
        folder: str | os.PathLike[str],
        *,
        lock_timeout: float = LOCK_TIMEOUT_SECONDS,
        file_mode: int = FILE_MODE,
    ) -> None:
        self.folder = Path(folder)
        self.events_dir = self.folder / EVENTS_DIR
        self._events = os.fspath(self.events_dir)  # str paths: no Path object per append
        self._base_state = os.fspath(self.folder / BASE_STATE)
        self.lock_timeout = lock_timeout
        self.file_mode = file_mode
        self._count: int | None = None  # event files on disk when last synced; None = unknown
        self._next_index = 0
        self._ids: set[str] = set()
        self._stale_markers: list[str] = []
        self._group_depth = 0
        self._group_thread: int | None = None
        self._group_unsynced = False  # an event renamed into events/ since the last fsync

    def __repr__(self) -> str:
        return f"ConversationWriter({str(self.folder)!r})"

    def create(self) -> None:
        """Make the folder and its `events/` (a new conversation, before its first base state)."""
        self._events_dir()

    @contextlib.contextmanager
    def group_commit(self) -> Iterator[None]:
        """Appends in the block share one fsync of `events/`, made when it ends (docstring)."""
        me = threading.get_ident()
        if self._group_depth and self._group_thread != me:  # another thread's block: own fsyncs
            yield
            return
        self._group_depth += 1
        self._group_thread = me
        try:
            yield
        finally:
            self._group_depth -= 1
            if self._group_depth == 0:
                self._group_thread = None
                if self._group_unsynced:
                    self._group_unsynced = False
                    fsync_dir(self.events_dir)

    def append(self, event: Event) -> int:
        """Persist `event` as the next file in the log and return its index."""
        from trajkit.events import dump_event

        return self.append_json(event.id, dump_event(event), parent_id=event.parent_id)

    def append_json(self, event_id: str, data: bytes | str, *, parent_id: str | None = None) -> int:
        """Append an already-serialized event (compact JSON whose `id` is `event_id`)."""
        check_event_id(event_id, path=self.events_dir)
        self._events_dir()
        with conversation_lock(self.folder, timeout=self.lock_timeout):
            self._sync()
            assert self._count is not None
            if event_id in self._ids:
                raise StoreConflict(
                    f"{self.events_dir}: an event with id {event_id!r} already exists; "
                    "event ids must be unique within a conversation"
                )
            if parent_id is not None and parent_id not in self._ids and not _is_root(parent_id):
                raise StoreConflict(
                    f"{self.events_dir}: parent_id {parent_id!r} of event {event_id!r} "
                    "names no event in this conversation"
                )
            index = self._next_index
            grouped = self._group_depth > 0 and self._group_thread == threading.get_ident()
            atomic_write(
                os.path.join(self._events, event_file_name(index, event_id)),
                data,
                mode=self.file_mode,
                sync_folder=not grouped,
            )
            if grouped:
                self._group_unsynced = True
            previous = self._count
            self._ids.add(event_id)
            self._count += 1
            self._next_index = index + 1
            self._advance_marker(previous)
            return index

    def save_base_state(self, state: BaseState | bytes | str) -> None:
        """Atomically replace `base_state.json` with `state` (a model, or its JSON)."""
        if isinstance(state, bytes | str):
            data: bytes | str = state
        else:
            from trajkit.events.state import dump_base_state

            data = dump_base_state(state)
        try:
            atomic_write(self._base_state, data, mode=self.file_mode)
        except FileNotFoundError:
            if self.folder.is_dir():
                raise
            self.folder.mkdir(parents=True, exist_ok=True)
            atomic_write(self._base_state, data, mode=self.file_mode)

    # ------------------------------------------------------------------------------------------

    def _events_dir(self) -> None:
        """Create `events/` (and the folder); refuse an `events/` link leading outside."""
        try:
            if stat.S_ISDIR(os.lstat(self._events).st_mode):  # the common case: one lstat
                return
        except FileNotFoundError:
            pass
        self.events_dir.mkdir(parents=True, exist_ok=True)
        if self.events_dir.is_symlink() and (real := link_outside(self.events_dir, self.folder)):
            raise UnsafePath(
                self.events_dir, "", f"events/ is a symlink to {real}, outside {self.folder}"
            )

    def _sync(self) -> None:
        if self._count is not None and os.path.exists(
            os.path.join(self._events, length_marker_name(self._count))
        ):
            return
        ids: set[str] = set()
        count = 0
        highest = -1
        markers: list[str] = []
        with os.scandir(self._events) as it:
            for entry in it:
                parsed = parse_event_file_name(entry.name)
                if parsed is not None:
                    count += 1
                    highest = max(highest, parsed[0])
                    ids.add(parsed[1])
                elif LENGTH_MARKER_RE.match(entry.name):
                    markers.append(entry.name)
        self._ids = ids
        self._count = count
        self._next_index = highest + 1
        self._stale_markers = markers

    def _advance_marker(self, previous: int) -> None:
        assert self._count is not None
        stale = {length_marker_name(previous), *self._stale_markers}
        self._stale_markers = []
        for name in stale:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(self._events, name))
        # O_NOFOLLOW: a marker name planted as a symlink must not create or truncate the file
        # it points to (outside the conversation); the link is removed and the marker made.
        marker = os.path.join(self._events, length_marker_name(self._count))
        flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(marker, flags, self.file_mode)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            os.unlink(marker)
            fd = os.open(marker, flags, self.file_mode)
        os.close(fd)


def _is_root(parent_id: str) -> bool:
    # Imported here, only for a parent that is not a known event: writing raw JSON through
    # `append_json` must not load pydantic and the event models.
    from trajkit.events.base import ROOT_PARENT

    return parent_id == ROOT_PARENT
