"""Conversation folders inside a `.zip` or `.tar.gz` ("download trajectory"), read in place.

Nothing is unpacked to disk: members are listed from the archive's index (zip) or one pass
over it (tar), and a conversation's members are read into memory when it is opened. A tar
(compressed or not) is read forward once per process for all its conversations (`_TarStream`):
conversations come in archive order and each is read on from where the last one stopped,
instead of decompressing the archive again per conversation. A folder in
the archive is a conversation when it holds `base_state.json` or `events/event-*.json` (the
agent server's `event_service/` level included); it is addressed `archive.zip#<folder>` (`.`
for the archive's root). A `.json` member outside such folders that is an ATIF trajectory (a
Harbor job downloaded whole) is one too, `archive.zip#<member>`, read by `trajkit.shapes.atif`
as on disk: its continuation members beside it joined to it by the same rule (`_InArchive` is
where it looks for them), each embedded subagent trajectory `archive.zip#<member>#<id>`.

Safety, as for folders on disk:
- a member whose name is absolute, holds `..`, or is a link (tar symlinks and hard links,
  zip entries with a symlink mode) is never read: listing says so and skips it;
- sizes are checked before reading: one member above `MAX_FILE_BYTES` (100 MiB) is refused,
  as is a conversation whose members add up to more than `MAX_ARCHIVE_BYTES`
  (`TRAJKIT_MAX_ARCHIVE_BYTES`, default 2 GiB uncompressed), or an archive of more than
  `MAX_MEMBERS` entries; a member that inflates beyond its declared size is cut at the limit
  and refused (zip bombs); a conversation above `BOMB_FLOOR_BYTES` that would expand more than
  `MAX_RATIO` times the archive's size is refused before a byte of it is read (an archive of
  583 KB held 0.8 GB in memory: every member of a conversation is read into memory).
"""

from __future__ import annotations

import os
import posixpath
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from trajkit.errors import InputError, UnsafePath
from trajkit.shapes._files import SNIFF, open_input
from trajkit.shapes.atif import (
    NotRead,
    continues,
    embedded_keys,
    is_atif_head,
    load_trajectory,
    read_trajectory,
)
from trajkit.shapes.memory import MemoryConversation, ShapeRef
from trajkit.store.layout import AGENT_SERVER_DIR, BASE_STATE, EVENTS_DIR, parse_event_file_name
from trajkit.store.reader import MAX_FILE_BYTES

__all__ = [
    "MAX_ARCHIVE_BYTES",
    "MAX_MEMBERS",
    "archive_refs",
    "embedded_refs",
    "open_archive_conversation",
]

MAX_ARCHIVE_BYTES = int(os.environ.get("TRAJKIT_MAX_ARCHIVE_BYTES", 2 * 2**30))
MAX_RATIO = 200
"""Uncompressed bytes of one conversation per byte of archive, above `BOMB_FLOOR_BYTES`
(gzip makes event JSON 5-20 times smaller)."""
BOMB_FLOOR_BYTES = 64 * 2**20
"""Largest uncompressed size of one conversation read from an archive."""
MAX_MEMBERS = 1_000_000
"""Most entries an archive may list."""
_ROOT = "."


@dataclass(frozen=True)
class _Member:
    name: str
    size: int
    unsafe: str = ""
    """Why the member is never read ("" when it is fine)."""
    trajectory: bool = False
    """A tar's `.json` member outside conversation folders whose first bytes name an ATIF
    version (told in the listing pass, so that no second pass is needed to tell it)."""


def _is_zip(path: Path) -> bool:
    return path.name.endswith(".zip")


def _members(path: Path) -> list[_Member]:
    """The archive's entries in archive order, listed once per process while it is unchanged."""
    key = _version(path)
    cached = _INDEX.get(key)
    if cached is None:
        cached = _list_members(path)
        _INDEX.clear()  # one archive at a time: a command reads its archives one after another
        _INDEX[key] = cached
    return cached


def _by_name(path: Path) -> dict[str, _Member]:
    """The archive's entries by name (listed once, as `_members`)."""
    key = _version(path)
    if key not in _NAMED:
        _NAMED.clear()
        _NAMED[key] = {m.name: m for m in _members(path)}
    return _NAMED[key]


def _version(path: Path) -> tuple[str, int, int, int]:
    try:
        st = path.stat()
    except OSError as exc:
        raise InputError(path, "", f"not a readable archive ({exc.strerror or exc})") from None
    return (os.path.abspath(path), st.st_size, st.st_mtime_ns, st.st_ino)


def _list_members(path: Path) -> list[_Member]:
    try:
        if _is_zip(path):
            with open_input(path) as fh, zipfile.ZipFile(fh) as zf:
                infos = zf.infolist()
                _check_count(path, len(infos))
                return [_zip_member(i) for i in infos if not i.is_dir()]
        members: list[_Member] = []
        stream = _stream(path)
        with open_input(path) as fh, tarfile.open(fileobj=fh, mode="r|*") as tf:  # forward only
            for info in tf:
                member = _tar_member(info)
                members.append(member)
                _check_count(path, len(members))
                if not member.name or member.unsafe:
                    continue
                folder = _folder_of(member.name)
                if folder is not None or member.name.endswith(".json"):
                    stream.keep_ahead(tf, info)  # a small archive: read in the listing pass
                if folder is None and member.name.endswith(".json"):  # an ATIF trajectory?
                    members[-1] = replace(member, trajectory=is_atif_head(stream.head(tf, info)))
        return [m for m in members if m.name]
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        raise InputError(path, "", f"not a readable archive ({exc})") from None


def _check_count(path: Path, n: int) -> None:
    if n > MAX_MEMBERS:
        raise InputError(path, "", f"archive lists more than {MAX_MEMBERS} entries; not read")


def _unsafe_name(name: str) -> str:
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "absolute path"
    if ".." in name.replace("\\", "/").split("/"):
        return "path with '..'"
    return ""


def _zip_member(info: zipfile.ZipInfo) -> _Member:
    mode = info.external_attr >> 16
    unsafe = _unsafe_name(info.filename)
    if not unsafe and (mode & 0o170000) == 0o120000:
        unsafe = "symbolic link"
    return _Member(info.filename, info.file_size, unsafe)


def _tar_member(info: tarfile.TarInfo) -> _Member:
    if info.isdir():
        return _Member("", 0)
    unsafe = _unsafe_name(info.name)
    if not unsafe and (info.issym() or info.islnk()):
        unsafe = "link"
    elif not unsafe and not info.isfile():
        unsafe = "not a regular file"
    return _Member(info.name, info.size, unsafe)


def _folder_of(name: str) -> str | None:
    """The conversation folder a member belongs to (`a/b` for `a/b/events/event-…json`)."""
    parts = name.strip("/").split("/")
    if parts[-1] == BASE_STATE:
        return "/".join(parts[:-1]) or _ROOT
    if len(parts) >= 2 and parts[-2] == EVENTS_DIR and parse_event_file_name(parts[-1]):
        return "/".join(parts[:-2]) or _ROOT
    return None


def _loose_json(name: str) -> bool:
    """A `.json` member that is no part of a conversation folder (maybe an ATIF trajectory)."""
    return name.endswith(".json") and _folder_of(name) is None


def _wanted(name: str) -> bool:
    return _folder_of(name) is not None or _loose_json(name)


def archive_refs(path: Path) -> Iterator[ShapeRef]:
    """One `ShapeRef` per conversation folder or ATIF trajectory in the archive (its embedded
    ones after it), in archive order (of each folder's first member): the order a tar stream
    is read in, so one pass serves every conversation.
    """
    first: dict[str, int] = {}  # folder -> where its first member is (archive order)
    loose: list[tuple[int, _Member]] = []  # `.json` members outside conversation folders
    unsafe: list[_Member] = []
    for at, member in enumerate(_members(path)):
        if member.unsafe:
            unsafe.append(member)
        elif (folder := _folder_of(member.name)) is not None:
            first.setdefault(folder, at)
        elif member.name.endswith(".json"):
            loose.append((at, member))
    loose = [(at, m) for at, m in loose if posixpath.dirname(m.name) not in first]
    trajectories = _trajectories(path, [m for _, m in loose])
    found = dict.fromkeys(first, False)  # folder or trajectory member -> is a trajectory
    if trajectories:  # in archive order among the folders
        places = [*first.items(), *((m.name, at) for at, m in loose if m.name in trajectories)]
        found = {key: key in trajectories for key, _ in sorted(places, key=lambda p: p[1])}
    if unsafe and not found:
        bad = unsafe[0]
        raise UnsafePath(path, "", f"member {bad.name!r} is a {bad.unsafe}; not read")
    if not found:
        raise InputError(path, "", "the archive holds no conversation folder (base_state.json "
                         "or events/) nor ATIF trajectory")  # fmt: skip
    for key, trajectory in found.items():
        if trajectory and continues(_InArchive(path, key)):
            continue  # read joined to the trajectory it continues
        yield ShapeRef("archive", str(path), key)
        if trajectory:
            yield from _embedded(ShapeRef("archive", str(path), key), quiet=True)


def _trajectories(path: Path, candidates: list[_Member]) -> set[str]:
    """The `.json` members (outside conversation folders) that are ATIF trajectories, told by
    their first bytes; the archive is opened once for all of them.
    """
    small = [m.name for m in candidates if m.size <= MAX_FILE_BYTES]
    if not _is_zip(path):
        return {m.name for m in candidates if m.trajectory}  # told in the listing pass
    if not small:
        return set()
    heads = {}
    try:
        with open_input(path) as fh, zipfile.ZipFile(fh) as zf:
            for name in small:
                with zf.open(name) as member:
                    heads[name] = member.read(SNIFF)
    except (InputError, zipfile.BadZipFile, OSError):
        return set()  # opening the archive's conversations says what is wrong
    return {name for name, head in heads.items() if is_atif_head(head)}


def embedded_refs(ref: ShapeRef) -> list[ShapeRef]:
    """Every ATIF trajectory embedded below the one `ref` names (see `shapes.atif`); none
    for a conversation folder.
    """
    return list(_embedded(ref, quiet=False)) if _trajectory_member(ref) else []


def _trajectory_member(ref: ShapeRef) -> str | None:
    """The member `ref` names when it is a `.json` member (an ATIF trajectory), else None."""
    name = ref.key.partition("#")[0]
    if not _loose_json(name):
        return None
    member = _by_name(Path(ref.file)).get(name)
    return name if member is not None and not member.unsafe else None


def _embedded(ref: ShapeRef, *, quiet: bool) -> Iterator[ShapeRef]:
    name, _, key = ref.key.partition("#")
    where = _InArchive(Path(ref.file), name)
    try:
        root = load_trajectory(where.label(where.name), where.read(where.name))
        keys = list(embedded_keys(root, where, key))
    except (InputError, NotRead, FileNotFoundError):
        if quiet:
            return  # opening the trajectory says what is wrong
        raise
    folder = posixpath.dirname(name)
    for member, sub in keys:
        yield ShapeRef("archive", ref.file, f"{posixpath.join(folder, member)}#{sub}")


@dataclass(frozen=True)
class _InArchive:
    """An ATIF trajectory member: its continuations are the members beside it (`Beside`)."""

    archive: Path
    member: str

    @property
    def name(self) -> str:
        return posixpath.basename(self.member)

    def label(self, name: str) -> str:
        return f"{self.archive}#{posixpath.join(posixpath.dirname(self.member), name)}"

    def read(self, name: str) -> bytes:
        wanted = posixpath.join(posixpath.dirname(self.member), name)
        member = _by_name(self.archive).get(wanted)
        if member is None:
            raise FileNotFoundError(name)
        if member.unsafe:
            raise NotRead(f"a {member.unsafe} in the archive")
        if member.size > MAX_FILE_BYTES:
            raise InputError(self.label(name), "", f"member is {member.size / 2**20:.0f} MiB, "
                             f"above the {MAX_FILE_BYTES / 2**20:.0f} MiB limit")  # fmt: skip
        return _read_members(self.archive, {wanted: member})[wanted]


def _open_trajectory(ref: ShapeRef, *, embedded: bool) -> MemoryConversation | None:
    """The ATIF trajectory `ref` names (`<member>` or `<member>#<id>`), or None when its key
    names no trajectory member (a conversation folder).
    """
    name = _trajectory_member(ref)
    if name is None:
        return None
    path, key = Path(ref.file), ref.key.partition("#")[2]
    where = _InArchive(path, name)
    root = load_trajectory(where.label(name), where.read(where.name))
    return read_trajectory(root, where, ref.label, key, embedded=embedded,
                           where=f"{os.path.abspath(path)}#{name}")  # fmt: skip


def open_archive_conversation(ref: ShapeRef, *, embedded: bool = True) -> MemoryConversation:
    """Read one conversation folder or ATIF trajectory of an archive into memory (see the
    module docstring; `embedded`: as `shapes.atif.open_atif` has it).
    """
    trajectory = _open_trajectory(ref, embedded=embedded)
    if trajectory is not None:
        return trajectory
    path = Path(ref.file)
    prefix = "" if ref.key == _ROOT else ref.key.rstrip("/") + "/"
    wanted: dict[str, _Member] = {}
    notes: list[str] = []
    total = 0
    ratio_limit = max(BOMB_FLOOR_BYTES, MAX_RATIO * path.stat().st_size)
    for member in _members(path):
        if not member.name.startswith(prefix) or _folder_of(member.name) != (ref.key or _ROOT):
            continue
        if member.unsafe:
            notes.append(f"{ref.label}/{member.name[len(prefix) :]}: {member.unsafe}, not read")
            continue
        if member.size > MAX_FILE_BYTES:
            raise InputError(
                f"{ref.label}/{member.name[len(prefix) :]}",
                "",
                f"member is {member.size / 2**20:.0f} MiB, above the "
                f"{MAX_FILE_BYTES / 2**20:.0f} MiB limit for one event or state file",
            )
        total += member.size
        if total > MAX_ARCHIVE_BYTES:
            raise InputError(
                ref.label,
                "",
                f"conversation is above {MAX_ARCHIVE_BYTES / 2**30:.1f} GiB uncompressed; "
                "not read (set TRAJKIT_MAX_ARCHIVE_BYTES to raise it)",
            )
        if total > ratio_limit:
            raise InputError(
                ref.label,
                "",
                f"conversation expands to more than {ratio_limit / 2**20:.0f} MiB, over "
                f"{MAX_RATIO} times the archive's size: an archive bomb? not read",
            )
        wanted[member.name] = member
    data = _read_members(path, wanted)
    state_raw = data.pop(prefix + BASE_STATE, None)
    events = sorted((parse_event_file_name(posixpath.basename(n)) or (0, ""), n) for n in data)
    return _conversation(ref, state_raw, [(n, data[n]) for _, n in events], notes)


def _read_members(path: Path, wanted: dict[str, _Member]) -> dict[str, bytes]:
    if _is_zip(path):  # an index at the end: each member is read where it is
        out: dict[str, bytes] = {}
        with open_input(path) as fh, zipfile.ZipFile(fh) as zf:
            for name in wanted:
                with zf.open(name) as member:
                    out[name] = _read_limited(member, name)
        return out
    return _stream(path).take(wanted)


_INDEX: dict[tuple[str, int, int, int], list[_Member]] = {}
_NAMED: dict[tuple[str, int, int, int], dict[str, _Member]] = {}
_STREAMS: dict[tuple[str, int, int, int], _TarStream] = {}


def _stream(path: Path) -> _TarStream:
    """The open forward-only reader of `path` (a new one if the archive changed)."""
    key = _version(path)
    stream = _STREAMS.get(key)
    if stream is None:
        for old in _STREAMS.values():
            old.close()
        _STREAMS.clear()
        stream = _STREAMS[key] = _TarStream(path)
    return stream


class _TarStream:
    """A tar archive (gzip, bz2, xz or plain) read forward once, conversation after conversation.

    A compressed tar cannot seek: reading one conversation's members used to decompress the
    whole archive again for each conversation. Conversations are opened in listing order, which
    is archive order when the archive was written folder by folder (as `tar czf` and the
    download do), so one pass serves them all: `take()` reads on from where the last one
    stopped. Members of other conversations met on the way are kept (up to
    `_AHEAD_BYTES`) for when they are asked for; a conversation asked for after the stream
    passed it (out of order) starts a new pass, so the answer is always complete.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._tf: tarfile.TarFile | None = None
        self._fh: IO[bytes] | None = None
        self._ahead: dict[str, bytes] = {}
        self._ahead_bytes = 0
        self._passed: set[str] = set()
        """Members the stream went past (read out or skipped): asking again starts over."""
        self._last: tuple[frozenset[str], dict[str, bytes]] | None = None
        """The last conversation read (convert and export check it, then read it)."""

    def take(self, wanted: dict[str, _Member]) -> dict[str, bytes]:
        """The bytes of each wanted member (regular files only), reading on as needed."""
        key = frozenset(wanted)
        if self._last is not None and self._last[0] == key:
            return dict(self._last[1])  # the same conversation again (validated, then read)
        out = self._take(wanted)
        self._last = (key, out)
        return dict(out)

    def _take(self, wanted: dict[str, _Member]) -> dict[str, bytes]:
        out = {n: self._ahead.pop(n) for n in list(wanted) if n in self._ahead}
        self._ahead_bytes -= sum(len(b) for b in out.values())
        missing = {n for n in wanted if n not in out}
        if missing & self._passed:
            self.close()  # asked out of order: read again from the start
        try:
            while missing:
                info = self._next()
                if info is None:
                    break
                if not info.isfile() or not _wanted(info.name):
                    continue
                self._passed.add(info.name)
                if info.name in missing:
                    out[info.name] = self._read(info)
                    missing.discard(info.name)
                elif self._ahead_bytes + info.size <= _AHEAD_BYTES and info.size <= MAX_FILE_BYTES:
                    data = self._read(info)
                    self._ahead[info.name] = data
                    self._ahead_bytes += len(data)
        except (tarfile.TarError, EOFError, OSError) as exc:
            self.close()
            raise InputError(self.path, "", f"not a readable archive ({exc})") from None
        return out

    def keep_ahead(self, tf: tarfile.TarFile, info: tarfile.TarInfo) -> None:
        """During the listing pass: keep a member's bytes while they fit in `_AHEAD_BYTES`,
        so the conversations of a small archive need no second pass.
        """
        self._passed.add(info.name)
        if self._tf is None and info.size <= MAX_FILE_BYTES:
            if self._ahead_bytes + info.size > _AHEAD_BYTES:
                return
            fh = tf.extractfile(info)
            try:
                data = b"" if fh is None else _read_limited(fh, info.name)
            except InputError:
                return  # inflates beyond its size: refused when its conversation is opened
            self._ahead[info.name] = data
            self._ahead_bytes += len(data)

    def head(self, tf: tarfile.TarFile, info: tarfile.TarInfo) -> bytes:
        """During the listing pass, after `keep_ahead`: the member's first bytes."""
        kept = self._ahead.get(info.name)
        if kept is not None:
            return kept[:SNIFF]
        fh = tf.extractfile(info) if info.size <= MAX_FILE_BYTES else None
        return b"" if fh is None else fh.read(SNIFF)

    def _next(self) -> tarfile.TarInfo | None:
        if self._tf is None:
            # stream mode: forward only, no seeks; kept open across calls, closed by close()
            self._fh = open_input(self.path)
            self._tf = tarfile.open(fileobj=self._fh, mode="r|*")  # noqa: SIM115
            self._passed.clear()
        return self._tf.next()

    def _read(self, info: tarfile.TarInfo) -> bytes:
        assert self._tf is not None
        fh = self._tf.extractfile(info)
        return b"" if fh is None else _read_limited(fh, info.name)

    def close(self) -> None:
        if self._tf is not None:
            self._tf.close()
            self._tf = None
        if self._fh is not None:
            self._fh.close()
            self._fh = None
        self._ahead.clear()
        self._ahead_bytes = 0


_AHEAD_BYTES = 64 * 2**20
"""Most bytes of members read ahead (other conversations' members met on the way) kept."""


def _read_limited(fh: IO[bytes], name: str) -> bytes:
    data = fh.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise InputError(name, "", "member inflates above the size limit; not read")
    return data


def _conversation(
    ref: ShapeRef, state_raw: bytes | None, events: list[tuple[str, bytes]], notes: list[str]
) -> MemoryConversation:
    import hashlib

    import orjson

    from trajkit.shapes.memory import derived_id

    state = None
    if state_raw is not None and state_raw.strip():
        try:
            state = orjson.loads(state_raw)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"{ref.label}/{BASE_STATE}", "", f"not valid JSON: {exc}") from None
    folder = posixpath.basename(ref.key.rstrip("/"))
    if folder == AGENT_SERVER_DIR:
        folder = posixpath.basename(posixpath.dirname(ref.key.rstrip("/")))
    conv_id = state.get("id") if isinstance(state, dict) else None
    if not isinstance(conv_id, str):
        from trajkit.store.layout import conversation_id_from_folder

        conv_id = conversation_id_from_folder(folder) or derived_id(ref.label)
    h = hashlib.blake2b(state_raw or b"", digest_size=16)
    for _, raw in events:
        h.update(raw)
    prefix_len = len("" if ref.key == _ROOT else ref.key.rstrip("/") + "/")
    return MemoryConversation(
        ref.label,
        conversation_id=conv_id,
        state=state if isinstance(state, dict) else None,
        events=[raw for _, raw in events],
        notes=notes,
        pointers=["/" + name[prefix_len:] for name, _ in events],
        fingerprint=h.hexdigest(),
    )
