"""Names on disk: event file names, sidecars, `<uuid hex>/` folders, and finding conversations.

The SDK keeps one conversation per folder `<persistence_dir>/<uuid.hex>/` (32 lowercase hex
digits, no dashes) while JSON inside uses the dashed UUID. The folder holds `base_state.json` and
`events/event-<index:05d>-<event id>.json`. The index is zero-padded to *at least* five digits,
so `event-100000-…` follows `event-99999-…`: always sort by the parsed integer, never by name.

`events/` also holds sidecars that are not events: `.eventlog.lock` (the cross-process lock),
`.eventlog-len-<N>.marker` (SDK >= 1.58: empty file naming the event count) and, after a crash,
`.<name>.<random>.tmp` leftovers of atomic writes. Every name starting with `.` is a sidecar.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path

from trajkit.errors import InputError, UnsafePath
from trajkit.store._names import (
    BASE_STATE,
    EVENTS_DIR,
    HEX_FOLDER_RE,
    SUBAGENTS_DIR,
    V0_METADATA,
    v0_event_names,
)

__all__ = [
    "AGENT_SERVER_DIR",
    "BASE_STATE",
    "EVENTS_DIR",
    "SUBAGENTS_DIR",
    "EVENT_NAME_RE",
    "LENGTH_MARKER_RE",
    "LOCK_FILE_NAME",
    "check_event_id",
    "conversation_id_from_folder",
    "conversation_parts",
    "event_file_name",
    "find_conversations",
    "folder_name",
    "is_conversation_folder",
    "is_sidecar",
    "length_marker_name",
    "link_outside",
    "pack_event_id",
    "pack_event_name",
    "parse_event_file_name",
    "subagent_folder",
    "subagents_dir",
    "unpack_event_id",
    "unpack_event_name",
]

AGENT_SERVER_DIR = "event_service"
"""The agent server keeps a conversation in `<uuid hex>/event_service/` (base_state, events/)."""
LOCK_FILE_NAME = ".eventlog.lock"

EVENT_NAME_RE = re.compile(r"^event-(?P<idx>\d{5,})-(?P<event_id>[0-9a-fA-F-]{8,})\.json$")
"""The SDK's own pattern (>= 1.30 accepts five or more digits)."""

LENGTH_MARKER_RE = re.compile(r"^\.eventlog-len-(?P<length>\d+)\.marker$")
_EVENT_ID_RE = re.compile(r"^[0-9a-fA-F-]{8,}$")
_UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_PACKED_NAME_RE = re.compile(rf"event-(\d{{5,}})-({_UUID})\.json\Z")
_PACKED_ID_RE = re.compile(rf"{_UUID}\Z")
_NAME = "event-{:05d}-{}.json"


def event_file_name(index: int, event_id: str) -> str:
    """Return `event-{index:05d}-{event_id}.json`, refusing ids that are unsafe or unreadable."""
    if index < 0:
        raise ValueError(f"event index must be >= 0, got {index}")
    check_event_id(event_id)
    return _NAME.format(index, event_id)


def pack_event_name(name: str) -> tuple[int, bytes] | None:
    """`(index, the id's 16 bytes)` of a name `event_file_name` gives back exactly (a lowercase
    dashed uuid, the index as `{:05d}` writes it: what the SDK writes), else None.

    A listing keeps such a name as these two numbers (`unpack_event_name` spells it again):
    24 bytes an event instead of ~300 for the name and id as text.
    """
    m = _PACKED_NAME_RE.match(name)
    if m is None:
        return None
    digits = m.group(1)
    if digits[0] == "0" and len(digits) > 5:  # event-000001-…: not how the index is written
        return None
    return int(digits), bytes.fromhex(m.group(2).replace("-", ""))


def unpack_event_name(index: int, packed: bytes | bytearray) -> tuple[str, str]:
    """The file name and the event id that `pack_event_name` packed."""
    event_id = unpack_event_id(packed)
    return _NAME.format(index, event_id), event_id


def pack_event_id(event_id: str) -> bytes | None:
    """The 16 bytes of an id `unpack_event_id` spells back exactly (a lowercase dashed uuid, as
    the SDK writes ids), else None.
    """
    if len(event_id) != 36 or _PACKED_ID_RE.match(event_id) is None:
        return None
    return bytes.fromhex(event_id.replace("-", ""))


def unpack_event_id(packed: bytes | bytearray) -> str:
    """The id `pack_event_id` packed."""
    h = packed.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def check_event_id(event_id: str, *, path: str | os.PathLike[str] = "<event>") -> None:
    """Refuse an id that would escape `events/` or that the SDK could not read back.

    The SDK writes any id but only reads names matching `EVENT_NAME_RE`, so an id such as
    `evt_1` would silently vanish (and leave an index gap) on the next scan.
    """
    if not isinstance(event_id, str) or not event_id:
        raise UnsafePath(path, "/id", f"event id must be a non-empty string, got {event_id!r}")
    if "/" in event_id or "\\" in event_id or "\x00" in event_id or ".." in event_id:
        raise UnsafePath(path, "/id", f"event id {event_id!r} would put a file outside events/")
    if not _EVENT_ID_RE.match(event_id):
        raise InputError(
            path,
            "/id",
            f"event id {event_id!r} must be hex digits and dashes (8 or more, e.g. a uuid4) "
            "so that the file name can be read back",
        )


def parse_event_file_name(name: str) -> tuple[int, str] | None:
    """Return `(index, event_id)` for an event file name, or None for anything else."""
    m = EVENT_NAME_RE.match(name)
    if m is None:
        return None
    return int(m.group("idx")), m.group("event_id")


def link_outside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> Path | None:
    """Where `path` really is when symlinks lead it outside `root` (both resolved); else None.

    A conversation copied from elsewhere may hold a link such as
    `events/event-00003-….json -> ~/.ssh/id_rsa`; readers refuse such files so that reading,
    converting or exporting a conversation never pulls in a file from outside its folder.
    """
    real = os.path.realpath(path)
    real_root = os.path.realpath(root)
    if real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep):
        return None
    return Path(real)


def length_marker_name(length: int) -> str:
    """Name of the SDK's event-count sidecar for a log of `length` events."""
    return f".eventlog-len-{length}.marker"


def is_sidecar(name: str) -> bool:
    """True for names in `events/` that are bookkeeping, not events (lock, marker, temp files)."""
    return name.startswith(".")


def conversation_parts(folder: Path) -> tuple[Path, Path]:
    """Where a conversation folder keeps its contents: `events/` and `base_state.json`."""
    return folder / EVENTS_DIR, folder / BASE_STATE


def folder_name(conversation_id: uuid.UUID | str) -> str:
    """The SDK's folder name for a conversation: `uuid.hex` (32 hex digits, no dashes)."""
    return uuid.UUID(str(conversation_id)).hex


def subagents_dir(folder: Path) -> Path:
    """Where a conversation keeps the conversations of the sub-agents it started, each in its
    `<id hex>/` (`subagent_folder`): `<folder>/subagents/`, the SDK's layout for a task's
    sub-conversation, which the runtime's task, delegate and workflow tools and `migrate` (an
    ATIF file's embedded trajectories) write, and which listings and `convert --to atif` read.
    """
    return folder / SUBAGENTS_DIR


def subagent_folder(folder: Path, conversation_id: uuid.UUID | str) -> Path:
    """The folder of sub-conversation `conversation_id` of the conversation in `folder`."""
    return subagents_dir(folder) / folder_name(conversation_id)


def conversation_id_from_folder(name: str) -> str | None:
    """Dashed UUID for a `<uuid hex>` folder name, or None if the name is not one."""
    if not HEX_FOLDER_RE.match(name):
        return None
    return str(uuid.UUID(hex=name))


def is_conversation_folder(path: Path) -> bool:
    """True when `path` holds `base_state.json` or a V1 `events/` folder.

    An `events/` folder holding only V0 names (`0.json`, `1.json` beside a `metadata.json`) is an
    OpenHands V0 session, which `migrate` reads; it is not a V1 conversation.
    """
    if (path / BASE_STATE).is_file():
        return True
    events = path / EVENTS_DIR
    if not events.is_dir():
        return False
    return not _looks_like_v0_session(path, events)


def _looks_like_v0_session(path: Path, events: Path) -> bool:
    if not (path / V0_METADATA).is_file():
        return False
    try:
        with os.scandir(events) as it:
            return v0_event_names(entry.name for entry in it)
    except OSError:
        return False


def find_conversations(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """Yield every conversation folder at or below each path, in sorted order.

    A conversation folder is yielded as is and not descended into. Symlinked folders are
    followed once: a folder already visited (same device and inode) is skipped, so symlink
    loops end. A path that does not exist raises `InputError`; files are skipped (single event
    files are handled by `trajkit.corpus`). Storage URLs (`s3://bucket/prefix`) are walked by
    `trajkit.store.remote.find_remote_conversations` and yield `RemotePath`s.
    """
    from trajkit.store.remote import as_remote, find_remote_conversations

    seen: set[tuple[int, int]] = set()
    for raw in paths:
        remote = as_remote(raw)
        if remote is not None:  # s3://…, gs://…: see trajkit.store.remote
            yield from find_remote_conversations(remote)  # type: ignore[misc]
            continue
        root = Path(raw)
        try:
            st = root.stat()
        except OSError as exc:
            raise InputError(root, "", _os_reason(exc)) from None
        if not root.is_dir():
            continue
        yield from _walk(root, st, seen)


def _walk(
    folder: Path, st: os.stat_result, seen: set[tuple[int, int]], *, top: bool = True
) -> Iterator[Path]:
    key = (st.st_dev, st.st_ino)
    if key in seen:
        return
    seen.add(key)
    if is_conversation_folder(folder):
        yield folder
        # sub-agent conversations (the task tool's) live in <conversation>/subagents/<hex>/
        # (SDK layout); listed when a folder of conversations is walked, not when the
        # conversation itself is the path given
        subagents = subagents_dir(folder)
        if not top and subagents.is_dir():
            yield from _walk(subagents, subagents.stat(), seen, top=False)
        return
    try:
        with os.scandir(folder) as it:
            entries = sorted((e for e in it), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        try:
            if not entry.is_dir(follow_symlinks=True):
                continue
            child_st = entry.stat(follow_symlinks=True)
        except OSError:  # broken symlink, symlink loop (ELOOP), permission
            continue
        yield from _walk(Path(entry.path), child_st, seen, top=False)


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such file or folder"  # the words every command uses for a missing PATH
    if exc.strerror:
        return exc.strerror.lower()
    return str(exc)
