"""Conversations that are not a `<uuid hex>/` folder, read through the store's reader interface.

`ShapeRef` is a cheap, picklable handle on one conversation inside some other shape (a record
of an evaluation `output.jsonl`, a JSON array of events, a folder inside an archive, ...). It
prints as its address (`out.jsonl#django__django-11099`), which is what messages, `ls` and
export rows show, and `open_shape(ref)` turns it into a `MemoryConversation`: a
`StoredConversation` whose base state and event bytes come from memory, so every reader
(`convert`, `export`, `ls`, `stats`, `inspect`, `view`, `validate`) handles it like a folder.
Events are kept as the bytes of their JSON objects; upgrades of older SDK shapes happen when
they are parsed, as for folders. One conversation is in memory at a time.

`BareFolderConversation` is a folder of event files with no `events/` level and no
`base_state.json` (OpenHands-CLI test trajectories): the folder itself is the events folder.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from trajkit.store.reader import ConversationHeader, EventFile, StoredConversation

if TYPE_CHECKING:
    pass

__all__ = [
    "BareFolderConversation",
    "MemoryConversation",
    "MemoryEventFile",
    "ShapeRef",
    "derived_id",
    "digest",
]

_NAMESPACE = uuid.UUID("6f1c3c1e-5b7a-4c61-9b1e-7a1b0c2d3e4f")
"""uuid5 namespace of conversation ids trajkit derives for shapes that carry none."""


def digest(data: bytes) -> str:
    """Fingerprint of a conversation's source bytes."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def derived_id(*parts: str) -> str:
    """A stable conversation id for a shape that has none (uuid5 of what identifies it)."""
    return str(uuid.uuid5(_NAMESPACE, "\x00".join(parts)))


OPENERS: dict[str, Callable[[ShapeRef], StoredConversation]] = {}
"""Each shape's opener, by registry name: filled by `trajkit.shapes.detect` (which the package
imports first, so also in a worker that unpickles a `ShapeRef`). Kept here, not imported from
the registry, so that the shapes' modules import this one and not the other way round."""


@dataclass(frozen=True)
class ShapeRef:
    """One conversation held by a file or folder that is not a V1 conversation folder."""

    shape: str
    """Registry name in `trajkit.shapes.detect.SHAPES`."""
    file: str
    """The file or folder on disk."""
    key: str = ""
    """Which conversation inside it: an `instance_id`, a line number, an archive folder."""
    line: int | None = None
    """1-based line of a JSONL record."""
    span: tuple[int, int] | None = None
    """`(offset, length)` of a JSONL record in `file`: the worker that opens the conversation
    reads those bytes itself, so a listing of a 2 GB `output.jsonl` carries no record bytes
    from the parent process to its workers."""

    @property
    def label(self) -> str:
        """`file#key`, or `file`: the conversation's address, which every command accepts."""
        return f"{self.file}#{self.key}" if self.key else self.file

    @property
    def name(self) -> str:
        """Short name for progress lines."""
        return self.key or os.path.basename(self.file)

    def __str__(self) -> str:
        return self.label

    def open_conversation(self) -> StoredConversation:
        """The conversation (`trajkit.store.open_conversation` calls this for a `ShapeRef`)."""
        return OPENERS[self.shape](self)

    def __fspath__(self) -> str:
        return self.label

    def __lt__(self, other: ShapeRef) -> bool:
        return (self.file, self.line or 0, self.key) < (other.file, other.line or 0, other.key)


@dataclass(frozen=True, slots=True)
class MemoryEventFile(EventFile):
    """An event held in memory; `path` is its address (`out.jsonl#id/history/3`)."""

    data: bytes = b""
    """The event's JSON bytes."""

    def read_bytes(self, *, max_bytes: int | None = None) -> bytes:
        """The event's bytes (already within the limits of the file they came from)."""
        return self.data


class MemoryConversation(StoredConversation):
    """A conversation whose `base_state.json` and events are bytes in memory.

    Args:
        label: the conversation's address (`ShapeRef.label`).
        conversation_id: dashed UUID.
        state: the base state object (or None when the shape has none).
        events: the event objects (or their JSON bytes), in order.
        notes: what the reader should be told once (base state unknown, instruction used, ...).
        event_pointer: how an event is addressed below `label` (`/history/{i}`).
        pointers: each event's address below `label`, when not given by `event_pointer`.
        files: each event's file, when not `label` (an ATIF continuation's steps).
        fingerprint: a digest of the source bytes (incremental export).
        origin: where the events came from (`v1`, or `v0 <container>` when migrated).
        record: the evaluation record the conversation came from (without its history).
    """

    def __init__(
        self,
        label: str,
        *,
        conversation_id: str,
        state: dict[str, Any] | None,
        events: Sequence[dict[str, Any] | bytes],
        notes: Sequence[str] = (),
        event_pointer: str = "/{i}",
        pointers: Sequence[str] | None = None,
        files: Sequence[str] | None = None,
        fingerprint: str = "",
        origin: str = "v1",
        record: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(Path(label))
        self.label = label
        self._id = conversation_id
        self._state_raw = None if state is None else orjson.dumps(state)
        self._events = [e if isinstance(e, bytes) else orjson.dumps(e) for e in events]
        self._event_ids: list[str] | None = None
        self.notes = list(notes)
        self._pointers = (
            list(pointers)
            if pointers is not None
            else [event_pointer.format(i=i) for i in range(len(self._events))]
        )
        self._files = list(files) if files is not None else None
        self.fingerprint = fingerprint
        self.origin = origin
        self.record = record

    def __repr__(self) -> str:
        return f"MemoryConversation({self.label!r})"

    @property
    def id(self) -> str:
        """The conversation id the shape gives (or one derived from its address)."""
        return self._id

    @property
    def has_events_dir(self) -> bool:
        """Whether the conversation has an events folder (always, in memory)."""
        return True

    def base_state_raw(self) -> bytes | None:
        """The base state's JSON bytes, or None when the shape holds none."""
        return self._state_raw

    def event_files(self) -> list[EventFile]:
        """The events, addressed below the conversation's label."""
        if self._event_ids is None:
            self._event_ids = [_peek_id(data) for data in self._events]
        files: list[EventFile] = []
        for i, data in enumerate(self._events):
            event_id = self._event_ids[i]
            file = self._files[i] if self._files is not None else self.label
            path = Path(file + self._pointers[i])
            files.append(MemoryEventFile(i, event_id, path, None, data))
        return files

    def header(self) -> ConversationHeader:
        """As for a folder, from the in-memory base state and the first and last events."""
        header = super().header()
        return ConversationHeader(
            **{**header.__dict__, "has_base_state": self._state_raw is not None}
        )


def _peek_id(data: bytes) -> str:
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return ""
    value = obj.get("id") if isinstance(obj, dict) else None
    return value if isinstance(value, str) else ""


class BareFolderConversation(StoredConversation):
    """A folder of `event-*.json` files with neither `events/` nor `base_state.json`."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.events_dir = path
        self.notes = [
            "base state unknown: the folder holds event files only (no base_state.json); "
            "the tools are those its SystemPromptEvent recorded"
        ]

    @property
    def id(self) -> str:
        """Derived from the first event's id (the CLI writes no conversation id)."""
        files = self.event_files()
        return derived_id(files[0].event_id if files else os.path.abspath(self.path))

    @property
    def has_events_dir(self) -> bool:
        """The folder itself holds the events."""
        return True
