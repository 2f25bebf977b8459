"""Read a conversation folder: `open_conversation(path) -> StoredConversation`.

This is the only reader of `<uuid hex>/` folders. It never writes, and it streams:
`iter_event_files()` lists names only (one `scandir`, sorted by the parsed integer index),
`iter_events()` reads and parses one file at a time, and `header()` answers "what is this
conversation" from `base_state.json` plus the first and last event files, without parsing
every event.

Invariants and choices:
- Names starting with `.` in `events/` (`.eventlog.lock`, `.eventlog-len-N.marker`, `*.tmp`)
  are sidecars and never events. Other names that do not match the SDK's pattern are listed
  apart (`listing().strangers`) so `validate` can report them; readers skip them as the SDK does.
- Two files with one index are both listed (sorted by name within the index) and an index gap
  is not filled in: the reader shows what is on disk and `validate` judges it.
- Event and state files larger than `MAX_FILE_BYTES` (100 MiB, override with the environment
  variable `TRAJKIT_MAX_FILE_BYTES`) raise `InputError` before anything is loaded. The SDK
  caps tool output at 30 000 characters, so real event files are kilobytes; a file of hundreds
  of megabytes is damage, and loading it would cost several times its size in memory.
- Anything unreadable (OS error, invalid JSON or UTF-8, a value the model rejects) becomes an
  `InputError` naming the file and the JSON pointer of the first problem.
- An event file or `base_state.json` that is a symlink (or sits in an `events/` link) leading
  outside the conversation folder is never read: it raises `UnsafePath`. Links inside the
  folder, and a conversation folder that is itself a link, are fine. Which names are links
  comes free with the `scandir` listing, so ordinary files cost no extra system call.
- `pydantic` and the event model are imported on first parse, so `header()` and listing stay
  cheap for commands such as `ls`.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from trajkit.errors import InputError, pointer_for_loc
from trajkit.gc_pause import paused_gc
from trajkit.store.guard import check_json_nodes, not_regular_error, open_regular, outside_error
from trajkit.store.layout import (
    AGENT_SERVER_DIR,
    BASE_STATE,
    EVENTS_DIR,
    conversation_id_from_folder,
    link_outside,
)
from trajkit.store.remote import RemotePath, as_remote, is_remote_conversation
from trajkit.store.scan import Entries, Listing, ScannedFile, list_event_files, scan_events
from trajkit.store.usage import usage_totals

if TYPE_CHECKING:
    from pydantic import ValidationError

    from trajkit.events import Event
    from trajkit.events.state import BaseState

__all__ = [
    "MAX_FILE_BYTES",
    "ConversationHeader",
    "EventFile",
    "ListedFiles",
    "StoredConversation",
    "input_error_from_validation",
    "open_conversation",
    "parse_event_bytes",
    "read_file_bytes",
    "scanned_event",
]

_T = TypeVar("_T")
MAX_FILE_BYTES = int(os.environ.get("TRAJKIT_MAX_FILE_BYTES", 100 * 1024 * 1024))
"""Largest event or state file trajkit loads (bytes)."""


@dataclass(frozen=True, slots=True)
class EventFile:
    """One `event-<index>-<id>.json` file, as named on disk (contents not read)."""

    index: int
    event_id: str
    path: Path
    outside: Path | None = None
    """Where a symlink leads when that is outside the conversation folder (never read)."""

    def read_bytes(self, *, max_bytes: int | None = None) -> bytes:
        """The file's bytes, refusing files above the size limit or linked from outside."""
        if self.outside is not None:
            raise outside_error(self.path, self.outside)
        return read_file_bytes(self.path, max_bytes=max_bytes)


@dataclass(frozen=True, slots=True)
class ListedFiles:
    """The event files of one listing, each `EventFile` (and its `Path`) made when asked for:
    `ls` reads the first few of 100,000 files and counts the rest.
    """

    entries: Entries
    """The listing's `(index, name, id from the name, is a symlink)`."""
    events_dir: Path
    root: Path
    """The conversation folder no file may link out of."""
    linked_dir: bool
    not_files: list[str] = field(default_factory=list)
    """The listing's names that are no regular files (`Listing.not_files`)."""

    def __len__(self) -> int:
        return len(self.entries)

    def __getitem__(self, i: int) -> EventFile:
        index, name, event_id, linked = self.entries[i]
        path = self.events_dir / name
        outside = link_outside(path, self.root) if self.linked_dir or linked else None
        return EventFile(index, event_id, path, outside)

    def __iter__(self) -> Iterator[EventFile]:
        return map(self.__getitem__, range(len(self.entries)))


@dataclass(frozen=True)
class ConversationHeader:
    """What `ls` shows: cheap facts from `base_state.json` and the first and last event files."""

    path: Path
    id: str
    n_events: int
    first_timestamp: str | None
    last_timestamp: str | None
    execution_status: str | None
    model: str | None
    leaf_event_id: str | None
    accumulated_cost: float | None
    has_base_state: bool
    files: ListedFiles | list[EventFile] = field(default_factory=list, repr=False, compare=False)
    """The event files, made as read (`ls` reads the first user message from them)."""
    problems: list[str] = field(default_factory=list)
    """Why listed event files cannot be read, found without reading (a FIFO, a device)."""


class StoredConversation:
    """A conversation folder on disk; see the module docstring for what each method reads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.events_dir = path / EVENTS_DIR
        self.base_state_path = path / BASE_STATE
        self.upgrades: Counter[str] = Counter()
        """Upgrade rules (`trajkit.events.upgrade`) applied while reading, with event counts."""

    def __repr__(self) -> str:
        return f"StoredConversation({str(self.path)!r})"

    @property
    def id(self) -> str:
        """Dashed conversation UUID: from the `<uuid hex>` folder name, else `base_state.json`.

        Falls back to the folder name when neither gives one.
        """
        from_folder = conversation_id_from_folder(self.path.name)
        if from_folder is None and self.path.name == AGENT_SERVER_DIR:  # <hex>/event_service/
            from_folder = conversation_id_from_folder(self.path.parent.name)
        if from_folder is not None:
            return from_folder
        state = self._base_state_json()
        if isinstance(state, dict) and isinstance(state.get("id"), str):
            return str(state["id"])
        return self.path.name

    # base_state.json ------------------------------------------------------------------------

    def base_state_raw(self) -> bytes | None:
        """Bytes of `base_state.json`, or None when the file does not exist."""
        if not self.base_state_path.exists():
            return None
        if not isinstance(self.base_state_path, RemotePath) and self.base_state_path.is_symlink():
            outside = link_outside(self.base_state_path, self.path)
            if outside is not None:
                raise outside_error(self.base_state_path, outside)
        return read_file_bytes(self.base_state_path)

    def base_state(self) -> BaseState | None:
        """Parsed `base_state.json`; None when missing or empty (the SDK's "new conversation").

        An older SDK's field names are upgraded first (`trajkit.events.upgrade`); the rules
        applied are counted in `upgrades`.
        """
        return self.read_base_state()[1]

    def read_base_state(self) -> tuple[dict[str, Any] | None, BaseState | None]:
        """The one reader of `base_state.json`: its object (upgraded) and the parsed state.

        `(None, None)` when missing or empty; anything unreadable raises `InputError` naming
        the file and the JSON pointer, worded as for an event file.
        """
        raw = self.base_state_raw()
        if raw is None or not raw.strip():
            return None, None
        return _parse(self.base_state_path, raw, self._parse_state)

    def _parse_state(self, raw: bytes) -> tuple[dict[str, Any], BaseState]:
        from trajkit.events.state import parse_base_state
        from trajkit.events.upgrade import upgrade_base_state

        obj = orjson.loads(raw)
        if isinstance(obj, dict):
            self.upgrades.update(upgrade_base_state(obj))
        return obj, parse_base_state(obj)

    def upgrade_notes(self) -> list[str]:
        """One line per upgrade rule applied so far (what changed, which SDK change, how often)."""
        from trajkit.events.upgrade import describe

        return [describe(name, count) for name, count in sorted(self.upgrades.items())]

    # events -----------------------------------------------------------------------------------

    def iter_event_files(self) -> Iterator[EventFile]:
        """Event files sorted by integer index (then name); sidecars and strangers left out."""
        return iter(self._listed_files())

    def event_files(self) -> list[EventFile]:
        """`iter_event_files()` as a list."""
        return list(self._listed_files())

    def _listed_files(self) -> ListedFiles | list[EventFile]:
        if type(self).event_files is not StoredConversation.event_files:
            return self.event_files()  # a shape's own files
        linked_dir = not isinstance(self.events_dir, RemotePath) and self.events_dir.is_symlink()
        listing = self.listing()
        return ListedFiles(
            listing.entries, self.events_dir, self.path, linked_dir, listing.not_files
        )

    def listing(self) -> Listing:
        """The one listing of `events/` (`trajkit.store.scan`); empty when there is none."""
        try:
            return list_event_files(self.events_dir)
        except FileNotFoundError:
            return Listing()
        except OSError as exc:
            raise InputError(self.events_dir, "", _reason(exc)) from None

    def iter_events(self, *, skip_empty: bool = False) -> Iterator[Event]:
        """Parse and yield events in index order, one file at a time.

        The cyclic garbage collector is paused until the iteration ends (``paused_gc``): the
        parsed events make no cycles, and its passes over them grew the per-event cost with the
        conversation's length.

        Args:
            skip_empty: skip zero-byte files as the SDK's iteration does, instead of raising.
        """
        return self._iter_events(skip_empty, None)  # type: ignore[return-value]

    def iter_events_or_none(self, problems: list[str]) -> Iterator[Event | None]:
        """`iter_events()` that goes on past a file it cannot read: None for that file, and
        why (the `InputError` `iter_events()` would raise) appended to `problems`.
        """
        return self._iter_events(False, problems)

    def _iter_events(self, skip_empty: bool, problems: list[str] | None) -> Iterator[Event | None]:
        plain = type(self).event_files is StoredConversation.event_files
        with paused_gc():
            if plain and not isinstance(self.events_dir, RemotePath):
                yield from self._scanned_events(skip_empty, problems)
            else:
                yield from self._events_of(skip_empty, problems)

    def _scanned_events(
        self, skip_empty: bool, problems: list[str] | None
    ) -> Iterator[Event | None]:
        """`iter_events()` of a local folder, by the store's one scan.

        The hot loop of every reader of a local folder (`trajkit.store.scan`): one `scandir`,
        one read per file, the bytes parsed once, no `Path` made for a file read well; one
        generator, the scan's, under it. A file the scan could not read is read again, so the
        refusal is the reader's own.
        """
        upgrades = self.upgrades
        found = self.listing()
        for s in scan_events(self.events_dir, found, root=self.path, max_bytes=MAX_FILE_BYTES):
            event = s.event
            if event is not None:  # parsed strictly, so not empty
                if s.upgrades:
                    upgrades.update(s.upgrades)  # upgraded once, in the scan
                yield event
                continue
            try:
                if s.outside is not None:
                    raise outside_error(s.path, s.outside)
                raw = s.raw if s.failure is None else read_file_bytes(s.path)
                event = self._event_of(s.path, raw, skip_empty)
            except InputError as exc:
                if problems is None:
                    raise
                problems.append(str(exc))
            if event is not None or not skip_empty:
                yield event

    def _events_of(self, skip_empty: bool, problems: list[str] | None) -> Iterator[Event | None]:
        """`iter_events()` of each file of `event_files()` (object storage, other shapes)."""
        for f in self.event_files():
            try:
                event = self._event_of(f.path, f.read_bytes(), skip_empty)
            except InputError as exc:
                if problems is None:
                    raise
                problems.append(str(exc))
                event = None
            if event is not None or not skip_empty:
                yield event

    def _event_of(self, path: Path, raw: bytes, skip_empty: bool) -> Event | None:
        """The event in `raw` (None: an empty file `skip_empty` skips)."""
        if not raw or raw.isspace():
            if skip_empty:
                return None
            raise _empty_event_file(path)
        return parse_event_bytes(path, raw, self.upgrades)

    def header(self) -> ConversationHeader:
        """Cheap summary: reads `base_state.json` and at most two event files.

        Event files the listing shows are no regular files (a FIFO) are not counted, and
        `problems` names each as reading it would.
        """
        files = self._listed_files()
        not_files = files.not_files if isinstance(files, ListedFiles) else []
        refused = (not_regular_error(self.events_dir / name) for name in not_files)
        state = self._base_state_json()
        state = state if isinstance(state, dict) else {}
        llm = _dig(state, "agent", "llm")
        return ConversationHeader(
            path=self.path,
            id=self.id,
            n_events=len(files) - len(not_files),
            first_timestamp=_timestamp(files[0]) if files else None,
            last_timestamp=_timestamp(files[-1]) if files else None,
            execution_status=_str_or_none(state.get("execution_status", state.get("agent_status"))),
            model=_str_or_none(llm.get("model")) if isinstance(llm, dict) else None,
            leaf_event_id=_str_or_none(state.get("leaf_event_id")),
            accumulated_cost=usage_totals(state).cost,
            has_base_state=self.base_state_path.is_file(),
            files=files,
            problems=[str(e) for e in refused if e is not None],
        )

    # helpers ----------------------------------------------------------------------------------

    def _base_state_json(self) -> Any:
        try:
            raw = self.base_state_raw()
            return orjson.loads(raw) if raw else None
        except (InputError, orjson.JSONDecodeError):
            return None


def open_conversation(path: str | os.PathLike[str]) -> StoredConversation:
    """Open a conversation folder for reading (it must hold `events/` or `base_state.json`).

    `path` may also be a storage URL (`s3://bucket/prefix/<uuid hex>`, see `store.remote`), or
    a handle on a conversation in another shape (`trajkit.shapes.ShapeRef`), which opens itself.
    """
    opener = getattr(path, "open_conversation", None)
    if callable(opener):  # trajkit.shapes: eval records, event arrays, archives, ...
        conv: StoredConversation = opener()
        return conv
    remote = as_remote(path)
    folder: Any = remote if remote is not None else Path(path)
    found: bool | None = None  # None: no such folder
    if remote is not None:
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            found = is_remote_conversation(remote, remote.list_entries())
    elif folder.is_dir():
        found = (folder / EVENTS_DIR).is_dir() or (folder / BASE_STATE).exists()
    elif folder.exists():
        raise InputError(folder, "", "not a folder; expected a conversation folder <uuid hex>/")
    if found is None:
        raise InputError(folder, "", "no such folder; expected a conversation folder <uuid hex>/")
    if not found:
        message = f"not a conversation folder: it holds neither {EVENTS_DIR}/ nor {BASE_STATE}"
        raise InputError(folder, "", message)
    return StoredConversation(folder)


def read_file_bytes(path: str | os.PathLike[str], *, max_bytes: int | None = None) -> bytes:
    """Read a whole file, refusing one above `max_bytes` (default `MAX_FILE_BYTES`).

    Plain `os.open`/`os.read` rather than `open()`: no buffered file object, and one `fstat`
    instead of three, which is a third of the cost of reading a small event file.
    """
    limit = MAX_FILE_BYTES if max_bytes is None else max_bytes
    if isinstance(path, RemotePath):
        return path.read_bytes(max_bytes=limit)
    try:
        fd, st = open_regular(path)  # O_NONBLOCK + S_ISREG: a FIFO or device never blocks
        try:
            size = st.st_size
            if size > limit:
                raise InputError(
                    path,
                    "",
                    f"file is {size / 2**20:.0f} MiB, above the {limit / 2**20:.0f} MiB limit for "
                    "one event or state file; set TRAJKIT_MAX_FILE_BYTES to raise it",
                )
            data = os.read(fd, size + 1)
            # Read to the end, as `f.read()` does (a file may be longer than fstat said), unless
            # the first read stopped exactly at fstat's size, one byte short of what it asked:
            # that is the end of the file, and a second read would only return b"".
            if data and len(data) != size:
                parts = [data]
                while chunk := os.read(fd, max(size + 1 - len(data), 65536)):
                    parts.append(chunk)
                if len(parts) > 1:
                    data = b"".join(parts)
            return data
        finally:
            os.close(fd)
    except OSError as exc:
        raise InputError(path, "", _reason(exc)) from None


def scanned_event(scanned: ScannedFile, upgrades: Counter[str] | None = None) -> Event:
    """The event of a file the store's scan read, as the reader reads it: the scan's strict
    parse, else its bytes upgraded and parsed (`InputError` naming the file and pointer).
    """
    if scanned.event is not None:
        if scanned.upgrades and upgrades is not None:
            upgrades.update(scanned.upgrades)
        return scanned.event
    return parse_event_bytes(scanned.path, scanned.raw, upgrades)


def parse_event_bytes(path: Path, raw: bytes, upgrades: Counter[str] | None = None) -> Event:
    """Parse one event file's bytes, turning any failure into `InputError` for `path`.

    An older SDK's shape is upgraded first; the rules applied are counted in `upgrades`.
    """
    from trajkit.events.upgrade import parse_event_upgraded

    if not raw or raw.isspace():
        raise _empty_event_file(path)
    event, applied = _parse(path, raw, parse_event_upgraded)
    if applied and upgrades is not None:
        upgrades.update(applied)
    return event  # type: ignore[no-any-return]


def _empty_event_file(path: str | os.PathLike[str]) -> InputError:
    return InputError(path, "", "empty file; expected one JSON object (an event)")


def _parse(path: Path, raw: bytes, parse: Callable[[bytes], _T]) -> _T:
    check_json_nodes(path, raw)
    try:
        return parse(raw)
    except ValueError as exc:
        raise _input_error(path, raw, exc) from None


def _input_error(path: str | os.PathLike[str], raw: bytes, exc: ValueError) -> InputError:
    from pydantic import ValidationError

    if isinstance(exc, ValidationError):
        return input_error_from_validation(path, exc, raw)
    if isinstance(exc, orjson.JSONDecodeError):
        return InputError(path, "", f"not valid JSON: {exc}")
    return InputError(path, "", str(exc))


def input_error_from_validation(
    path: str | os.PathLike[str], exc: ValidationError, raw: bytes | None = None
) -> InputError:
    """`InputError` for the first problem in a pydantic error, with a JSON pointer into `raw`.

    pydantic puts tagged-union tags (`"ActionEvent"`) in `loc`; walking `raw` along `loc` drops
    whatever is not a real key or index, so the pointer is one a user can follow in the file.
    """
    errors = exc.errors(include_url=False)
    if not errors:
        return InputError(path, "", str(exc))
    first = errors[0]
    data: Any = None
    if raw is not None:
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            data = None
    pointer = pointer_for_loc(data, first.get("loc", ()))
    message = str(first.get("msg", "invalid value"))
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return InputError(path, pointer, message)


def _timestamp(event_file: EventFile) -> str | None:
    try:
        data = orjson.loads(event_file.read_bytes())
    except (InputError, orjson.JSONDecodeError):
        return None
    return _str_or_none(data.get("timestamp")) if isinstance(data, dict) else None


def _dig(data: dict[str, Any], *keys: str) -> Any:
    node: Any = data
    for key in keys:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _reason(exc: OSError) -> str:
    if exc.strerror:
        return exc.strerror.lower()
    return str(exc)
