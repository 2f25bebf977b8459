"""The one reading pass over a conversation folder: list `events/` once, read each file once.

`list_event_files(events)` is the one listing of `events/` (the reader's `event_files()` and
`iter_events()`, and `validate`, all take it); `scan_events(events, listing)` reads the listed
files in order and yields a `ScannedFile` for each: its name, index and id from the name, its
bytes and `fstat`, the event the current model builds from those bytes, or why it could not be
read. `validate` turns a scan into problems; `convert` and `export` consume the same scan (and
ask `validate.verdict` for the verdict), so a folder is listed once and each file read once.

Reading follows one ladder, stopping at the first rung a file fails, each failure a
`(code, message)` pair `validate` reports as it is:
1. it can be opened (not a broken link or a symlink loop) and is a regular file;
2. its size is within the limit (checked on the open descriptor *before* reading);
3. it is not empty, and does not grow above the limit while read.
A local file that passes takes one `open` + `fstat` + `read`, and no `Path` is made for it.
A symlink leading outside the conversation folder is never read (`ScannedFile.outside`).

The event is parsed strictly (JSON Schema's type rules, unknown keys refused, in one pass in
pydantic-core) from the file's own bytes, or from an older SDK's upgraded and dumped again
(`ScannedFile.upgrades` names the rules); None when the model refuses them (an unknown kind,
invalid content), and `reader.scanned_event()` then reads them as the reader does: upgraded,
`UnknownEvent`, or an `InputError` naming the file and the JSON pointer.
"""

from __future__ import annotations

import errno
import os
import stat as stat_module
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice, repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

import orjson

from trajkit.errors import InputError
from trajkit.store.guard import MAX_JSON_NODES, check_json_nodes
from trajkit.store.layout import (
    EVENT_NAME_RE,
    is_sidecar,
    link_outside,
    pack_event_name,
    pack_event_names,
    spell_event_names,
    unpack_event_name,
)
from trajkit.store.remote import RemotePath

if TYPE_CHECKING:
    from trajkit.events import Event

__all__ = [
    "Entries",
    "Entry",
    "Listing",
    "ScannedFile",
    "list_event_files",
    "read_checked",
    "read_event",
    "scan_event_file",
    "scan_events",
    "strict_event",
]

_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_S_ISREG = stat_module.S_ISREG


Entry = tuple[int, str, str, bool]
"""`(index, name, id from the name, is a symlink)`: one event file of a listing."""
_NO_ID = bytes(16)
_BIG = 1 << 63


@dataclass(slots=True)
class Listing:
    """The event files of one `events/` folder, as listed once, sorted by index, then name.

    Memory stays small for 100k events: a name the SDK writes is kept as its index and its id's
    16 bytes (`layout.pack_event_name`), spelled again when asked for (`entries`); any other
    (an id that is no lowercase uuid, a symlink, `event-000007-…`) is kept as listed, in `odd`.
    """

    indices: array[int] | list[int] = field(default_factory=lambda: array("q"))
    """The index of each event file, in order (a list once an index needs more than 64 bits)."""
    ids: bytearray = field(default_factory=bytearray)
    """16 bytes a file: the id of a packed name (zeros for the files in `odd`)."""
    odd: dict[int, tuple[str, str, bool]] = field(default_factory=dict)
    """Position -> `(name, id from the name, is a symlink)` of each file not packed."""
    strangers: list[str] = field(default_factory=list)
    """Names that are neither event files nor sidecars (the SDK ignores them), as listed."""
    not_files: list[str] = field(default_factory=list)
    """Event file names the listing shows are no regular files (a FIFO, a device, a folder;
    links are not followed here): still in `entries`, so the scan's first rung refuses each
    when read, and `header()` names them without reading (one rule for every command)."""

    @classmethod
    def of(cls, entries: Iterable[Entry]) -> Listing:
        """The listing of these entries (any order)."""
        listing = cls()
        for index, name, event_id, linked in entries:
            listing._add(index, name, event_id, linked)
        listing._sort()
        return listing

    @property
    def entries(self) -> Entries:
        """Each file's `Entry`, in order (made when asked for)."""
        return Entries(self)

    def packed_id(self, pos: int) -> bytes | None:
        """The 16 bytes of the id in the name of the file at `pos` (None: a name not packed)."""
        if pos in self.odd:
            return None
        return bytes(self.ids[16 * pos : 16 * pos + 16])

    def _add(self, index: int, name: str, event_id: str, linked: bool) -> None:
        packed = None if linked else pack_event_name(name)
        if packed is None or unpack_event_name(*packed) != (name, event_id) or packed[0] != index:
            self.odd[len(self.indices)] = (name, event_id, linked)
            self.ids += _NO_ID
        else:
            self.ids += packed[1]
        self._append(index)

    def _append(self, index: int) -> None:
        try:
            self.indices.append(index)
        except OverflowError:  # event-99999999999999999999-…: no longer an array
            self.indices = [*self.indices, index]

    def _sort(self) -> None:
        """In order of index, then name: placed by index when no index is used twice."""
        idx, ids, odd = self.indices, self.ids, self.odd
        n = len(idx)
        if n == 0:
            return
        lo = min(idx)
        span = max(idx) - lo + 1
        if span <= 2 * n + 1024:  # the SDK's 0..n-1: no comparison sort, no key per file
            slot = array("q", [-1]) * span
            for pos, index in enumerate(idx):
                if slot[index - lo] >= 0:
                    break  # an index used twice: sorted by name below
                slot[index - lo] = pos
            else:
                self.indices, self.ids, self.odd = array("q"), bytearray(), {}
                for index, pos in enumerate(slot, lo):
                    if pos >= 0:
                        if pos in odd:
                            self.odd[len(self.indices)] = odd[pos]
                        self.indices.append(index)
                        self.ids += ids[16 * pos : 16 * pos + 16]
                return
        entries = Entries(self)
        order = sorted(range(n), key=lambda pos: entries[pos][:2])
        ordered = (idx[pos] for pos in order)
        self.indices = list(ordered) if isinstance(idx, list) else array("q", ordered)
        self.ids = bytearray().join(ids[16 * pos : 16 * pos + 16] for pos in order)
        self.odd = {new: odd[pos] for new, pos in enumerate(order) if pos in odd}


class Entries(Sequence[Entry]):
    """A listing's files as `Entry` tuples, each spelled when asked for."""

    __slots__ = ("_listing",)

    def __init__(self, listing: Listing) -> None:
        self._listing = listing

    def __len__(self) -> int:
        return len(self._listing.indices)

    @overload
    def __getitem__(self, i: int) -> Entry: ...
    @overload
    def __getitem__(self, i: slice) -> list[Entry]: ...
    def __getitem__(self, i: int | slice) -> Entry | list[Entry]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        listing = self._listing
        index = listing.indices[i]  # IndexError as a list's
        pos = i % len(listing.indices)
        odd = listing.odd.get(pos)
        if odd is not None:
            return (index, *odd)
        return (index, *unpack_event_name(index, listing.ids[16 * pos : 16 * pos + 16]), False)

    def __iter__(self) -> Iterator[Entry]:
        """Spelled a chunk at a time, in C's loops (`spell_event_names`): one name at a time
        took a quarter of what validate adds to reading a valid file.
        """
        listing = self._listing
        ids, odd, indices = listing.ids, listing.odd, listing.indices
        n, step = len(indices), self.CHUNK
        for start in range(0, n, step):
            end = min(n, start + step)
            if odd and any(pos in odd for pos in range(start, end)):
                for pos in range(start, end):
                    yield self[pos]
                continue
            chunk = indices[start:end]
            names, event_ids = spell_event_names(chunk, ids[16 * start : 16 * end])
            yield from zip(chunk, names, event_ids, repeat(False, end - start), strict=True)

    CHUNK = 1024
    """Names spelled at once (a few hundred KB of text at most)."""


def list_event_files(events: Path) -> Listing:
    """List `events/` (one `scandir`, links from its d_type; one listing in object storage).

    Names are taken one at a time as listed (no list of 100k names); see `Listing`.
    Raises `OSError` as listing does: `FileNotFoundError` when there is no `events/`.
    """
    listing = Listing()
    if isinstance(events, RemotePath):
        _take(listing, ((name, False, True) for name in events.list_names()))
    else:
        with os.scandir(events) as it:  # both from d_type: no system call per file
            _take(listing, ((e.name, e.is_symlink(), e.is_file(follow_symlinks=False)) for e in it))
    listing._sort()
    return listing


def _take(listing: Listing, named: Iterable[tuple[str, bool, bool]]) -> None:
    """Take the names listed, a chunk at a time: a chunk of regular files and no links (the
    usual case) packed at once (`pack_event_names`), each name it leaves one at a time.
    """
    named = iter(named)
    while chunk := list(islice(named, _CHUNK)):
        names, linked, regular = zip(*chunk, strict=True)
        if any(linked) or not all(regular):
            _take_each(listing, chunk)
            continue
        indices, packed, rest = pack_event_names(names)
        listing.indices.extend(indices)  # (below 2**63: an array still)
        listing.ids += packed
        if rest:
            _take_each(listing, ((name, False, True) for name in rest))


_CHUNK = 1024


def _take_each(listing: Listing, named: Iterable[tuple[str, bool, bool]]) -> None:
    indices, ids, odd, pack, match = (
        listing.indices,
        listing.ids,
        listing.odd,
        pack_event_name,
        EVENT_NAME_RE.match,
    )
    for name, linked, regular in named:
        packed = None if linked else pack(name)
        if packed is not None and packed[0] < _BIG:  # the SDK's own name: two numbers
            indices.append(packed[0])
            ids += packed[1]
        elif (m := match(name)) is not None:
            odd[len(indices)] = (name, m.group("event_id"), linked)
            listing._append(int(m.group("idx")))
            indices = listing.indices
            ids += _NO_ID
        else:
            if not is_sidecar(name):
                listing.strangers.append(name)
            continue
        if not (linked or regular):
            listing.not_files.append(name)


@dataclass(slots=True)
class ScannedFile:
    """One event file as the scan read it."""

    index: int | None
    """Index from the file name (None for a loose file named otherwise)."""
    event_id: str | None
    """Event id from the file name."""
    name: str
    folder: Path
    """The folder holding the file (`events/`)."""
    raw: bytes = b""
    """The file's bytes (empty when it could not be read)."""
    stat: os.stat_result | None = None
    """The `fstat` of the file read (None in object storage)."""
    failure: tuple[str, str] | None = None
    """`(code, message)` when the file could not be read (see the module docstring)."""
    outside: Path | None = None
    """Where a symlink leads when that is outside the conversation folder (never read)."""
    event: Event | None = None
    """The event the current model builds strictly from `raw` (upgraded first when an older
    SDK wrote it: `read_event`); None when it refuses them."""
    upgrades: Sequence[str] = ()
    """The upgrade rules (`trajkit.events.upgrade`) `event` needed."""
    _path: Path | None = field(default=None, repr=False, compare=False)

    @property
    def path(self) -> Path:
        """The file's path, made on first use (a valid file in a tight loop never needs it)."""
        path = self._path
        if path is None:
            path = self._path = self.folder / self.name
        return path


def scan_events(
    events: Path,
    listing: Listing,
    *,
    root: Path | None = None,
    max_bytes: int,
) -> Iterator[ScannedFile]:
    """Read the files of `listing` (of the folder `events`) in order, one `ScannedFile` each.

    `root` is the conversation folder no file may link out of (default: `events`' parent).
    """
    root = events.parent if root is None else root
    linked_dir = not isinstance(events, RemotePath) and os.path.islink(events)
    # local files are opened by their path text: no `Path` per file
    prefix = None if isinstance(events, RemotePath) else os.fspath(events) + os.sep
    for index, name, event_id, linked in listing.entries:
        if linked_dir or linked:
            real = link_outside(events / name, root)
            if real is not None:
                yield ScannedFile(index, event_id, name, events, outside=real)
                continue
        where = events / name if prefix is None else prefix + name
        raw, st, failure = read_checked(where, max_bytes=max_bytes, what="an event")
        f = ScannedFile(index, event_id, name, events, raw, st, failure)
        if raw:
            f.event, f.upgrades = read_event(raw)
        yield f


def scan_event_file(
    path: Path,
    *,
    index: int | None = None,
    event_id: str | None = None,
    max_bytes: int,
    raw: bytes | None = None,
) -> ScannedFile:
    """`scan_events` of one event file given by its path (a loose file, another shape), or of
    its bytes already read (`raw`).
    """
    f = ScannedFile(index, event_id, path.name, path.parent)
    if raw is None:
        f.raw, f.stat, f.failure = read_checked(path, max_bytes=max_bytes, what="an event")
    else:
        f.raw = raw
    if f.raw:
        f.event, f.upgrades = read_event(f.raw)
    return f


_parse_dump: Any = None
_upgrade: Any = None


def strict_event(raw: bytes) -> Event | None:
    """The event of a compact dump (kind last) the current model accepts strictly, else None
    (`trajkit.events.parse.parse_current_dump`).

    None too for a document holding more JSON values than the reader loads
    (`guard.check_json_nodes`): it is never parsed here, and the reader's parse refuses it.
    """
    if len(raw) > MAX_JSON_NODES and not _nodes_ok(raw):
        return None
    return (_parse_dump or _load_parser())(raw, strict=True)  # type: ignore[no-any-return]


def read_event(raw: bytes) -> tuple[Event | None, Sequence[str]]:
    """`strict_event`, and for an older SDK's dump (``kind`` first, older shapes) the object
    upgraded (`trajkit.events.upgrade`, which puts ``kind`` last) and dumped again: the event
    and the rules it needed, or `(None, ())` when the model refuses it still.
    """
    event = strict_event(raw)
    if event is not None or (len(raw) > MAX_JSON_NODES and not _nodes_ok(raw)):
        return event, ()
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None, ()
    if not isinstance(data, dict):
        return None, ()
    rules = _upgrade(data)
    again = orjson.dumps(data)
    event = None if again == raw else strict_event(again)
    return (None, ()) if event is None else (event, rules)


def _nodes_ok(raw: bytes) -> bool:
    try:
        check_json_nodes("", raw)
    except InputError:
        return False
    return True


def _load_parser() -> Any:
    """The event models, imported on first parse (listing stays cheap for `ls`)."""
    global _parse_dump, _upgrade
    from trajkit.events.parse import parse_current_dump
    from trajkit.events.upgrade import upgrade_event

    _parse_dump, _upgrade = parse_current_dump, upgrade_event
    return parse_current_dump


# --- the ladder ---------------------------------------------------------------------------------


def read_checked(
    path: str | Path, *, max_bytes: int, what: str
) -> tuple[bytes, os.stat_result | None, tuple[str, str] | None]:
    """Rungs 1-3 for one file: `(raw, fstat, None)`, or `(b"", fstat, (code, message))`.

    One `open` + `fstat` + `read`: the size is checked on the open descriptor before any byte
    is read, so an oversized file costs nothing. `what` names the file in messages.
    """
    if isinstance(path, RemotePath):  # object storage: one GET, sizes from the listing
        return _read_remote(path, max_bytes, what)
    try:
        # O_NONBLOCK: opening a FIFO must not hang; it changes nothing for regular files.
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        return b"", None, ("unreadable", _stat_reason(path, exc))
    st = None
    try:
        st = os.fstat(fd)
        raw, failure = _read_open(fd, st, max_bytes, what)
    except OSError as exc:
        raw, failure = b"", ("unreadable", _stat_reason(path, exc))
    finally:
        os.close(fd)
    return raw, st, failure


def _read_open(
    fd: int, st: os.stat_result, max_bytes: int, what: str
) -> tuple[bytes, tuple[str, str] | None]:
    if not _S_ISREG(st.st_mode):
        return b"", ("not-a-file", f"expected {what} file, got a folder or device")
    if st.st_size > max_bytes:
        return b"", ("too-large", _too_large(st.st_size, max_bytes, what))
    if st.st_size == 0:
        return b"", ("empty", f"empty file: expected {what} (a JSON object)")
    # Ask for the size seen plus one byte, to notice a file that grows while we read it.
    raw = os.read(fd, st.st_size + 1)
    while len(raw) > st.st_size and len(raw) <= max_bytes:
        more = os.read(fd, min(1 << 20, max_bytes + 1 - len(raw)))
        if not more:
            break
        raw += more
    if len(raw) > max_bytes:
        return b"", ("too-large", f"file grew above the {_size(max_bytes)} limit while read")
    if not raw:
        return b"", ("empty", f"empty file: expected {what} (a JSON object)")
    return raw, None


def _read_remote(
    path: RemotePath, max_bytes: int, what: str
) -> tuple[bytes, None, tuple[str, str] | None]:
    """`read_checked` in object storage: the same failures, from the listing's size and a GET."""
    try:
        size = path.size()  # from the listing, when the folder was listed
        if size is None:
            size = int(path.info().get("size") or 0)
        if size > max_bytes:
            return b"", None, ("too-large", _too_large(size, max_bytes, what))
        raw = path.read_bytes(max_bytes=max_bytes) if size else b""
    except FileNotFoundError:
        return b"", None, ("unreadable", "no such file")
    except InputError as exc:
        return b"", None, ("unreadable", f"cannot read: {exc.message}")
    if not raw:
        return b"", None, ("empty", f"empty file: expected {what} (a JSON object)")
    return raw, None, None


def _too_large(size: int, max_bytes: int, what: str) -> str:
    return (
        f"file is {_size(size)}, above the {_size(max_bytes)} limit for {what}; "
        "not read (raise the limit with --max-file-size or TRAJKIT_MAX_FILE_BYTES)"
    )


def _stat_reason(path: str | Path, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symlink loop: the path cannot be resolved"
    if exc.errno == errno.ENOENT and os.path.islink(path):
        return f"broken symlink (points to {os.readlink(path)!r})"
    if exc.errno == errno.ENOENT:
        return "no such file"
    if exc.errno == errno.EACCES:
        return "permission denied"
    return f"cannot read: {exc.strerror or exc}"


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MB" if n >= 1024 * 1024 else f"{n} bytes"
