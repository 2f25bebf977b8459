"""Which shape a path holds, and the conversations in it: a small registry (`SHAPES`).

Each shape says whether it takes a path (from the name and the first bytes of a file, or a
folder's listing), lists the conversations in it as `ShapeRef`s (lazily: an evaluation
`output.jsonl` of any size is read one line at a time) and opens one of them. Shapes:

- `eval-v1`: an evaluation `output.jsonl` whose records' `history` is a list of V1 events
  (OpenHands/benchmarks); one conversation per record, addressed `file.jsonl#<instance_id>`.
- `events-jsonl`: V1 events one per line (the SDK's JSONL fixtures): one conversation.
- `events-json`: V1 events as one JSON array (`events.json` exports, visualizer data); a
  `trajectory.json` beside it with the same conversation's `baseState` gives the base state.
- `state-doc`: one JSON object holding `baseState` (and maybe `events`).
- `bare-events`: a folder of `event-*.json` files without `events/` or `base_state.json`.
- `archive`: a `.zip` or `.tar.gz` holding conversation folders, read in place
  (`trajkit.shapes.archive`).
- `atif`: an ATIF trajectory (Harbor's interchange format), and each subagent trajectory
  embedded in it (`trajkit.shapes.atif`).
- `mini-swe-agent`, `swe-agent`: those agents' trajectory files (`trajkit.shapes.swe`).
- `inspect`: an Inspect AI log (`.eval` or `.json`), one conversation per sample
  (`trajkit.shapes.inspect_log`).
- `v0-session`, `v0-jsonl`, `v0-json`: OpenHands V0 trajectories, mapped to V1 events in
  memory when opened (`trajkit.shapes.v0`).

V1 conversation folders (also the agent server's `<hex>/event_service/`) are the store's job.
`trajkit.shapes.inputs.resolve_inputs` walks what the user named through this registry, so
every command agrees on what a path holds.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from trajkit.errors import InputError
from trajkit.shapes._files import json_object, open_input, read_head
from trajkit.shapes.archive import archive_refs, open_archive_conversation
from trajkit.shapes.archive import embedded_refs as archive_embedded_refs
from trajkit.shapes.atif import atif_refs, open_atif, takes_atif
from trajkit.shapes.atif import embedded_refs as atif_embedded_refs
from trajkit.shapes.eval_output import eval_record_conversation
from trajkit.shapes.inspect_log import inspect_refs, open_inspect, takes_inspect
from trajkit.shapes.memory import (
    OPENERS,
    BareFolderConversation,
    MemoryConversation,
    ShapeRef,
    derived_id,
    digest,
)
from trajkit.shapes.swe import open_mini, open_sweagent, takes_mini, takes_sweagent
from trajkit.shapes.v0.containers import (
    MAX_V0_BYTES,
    iter_lines,
    iter_records,
    read_record,
    takes_json,
    takes_jsonl,
    takes_session,
)
from trajkit.store.layout import EVENT_NAME_RE, EVENTS_DIR, is_conversation_folder

__all__ = [
    "SHAPES",
    "embedded_refs",
    "open_apart",
    "open_shape",
    "shape_at",
    "shape_of",
    "shape_refs",
]

ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
WALKED_SUFFIXES = (".json", ".jsonl", ".traj", ".eval", *ARCHIVE_SUFFIXES)
"""Files a folder walk asks the registry about (SWE-agent `.traj`, Inspect `.eval` too)."""


@dataclass(frozen=True)
class Shape:
    """One entry of the registry."""

    takes: Callable[[Path], bool]
    """Whether this shape holds `path`."""
    refs: Callable[[Path], Iterator[ShapeRef]]
    """The conversations in it."""
    open: Callable[[ShapeRef], MemoryConversation | BareFolderConversation]
    """Open one of them."""


# -- sniffing ------------------------------------------------------------------------------


def _first_line(path: Path) -> Any:
    """The first non-empty line decoded (None when it is not JSON); at most the record limit."""
    try:
        with open_input(path) as fh:
            for _, line, _size in iter_lines(fh, MAX_V0_BYTES):
                if line is None:
                    return None
                if line.strip():
                    return orjson.loads(line)
    except (OSError, InputError, orjson.JSONDecodeError):
        return None
    return None


def is_v1_event(value: Any) -> bool:
    """A V1 event object: `kind`, `id`, `timestamp`, and no V0 `action`/`observation` string."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("kind"), str)
        and isinstance(value.get("id"), str)
        and "timestamp" in value
        and not isinstance(value.get("action"), str)
        and not isinstance(value.get("observation"), str)
    )


def _is_v1_history(history: Any) -> bool:
    return isinstance(history, list) and bool(history) and all(is_v1_event(e) for e in history[:3])


def _jsonl_head(path: Path) -> Any:
    """The first record of a `.jsonl` file (None for any other file)."""
    return _first_line(path) if path.suffix == ".jsonl" and path.is_file() else None


def _takes_eval(path: Path) -> bool:
    record = _jsonl_head(path)
    return isinstance(record, dict) and _is_v1_history(record.get("history"))


def _takes_events_jsonl(path: Path) -> bool:
    return is_v1_event(_jsonl_head(path))


def _load_json(path: Path) -> Any:
    from trajkit.store.reader import read_file_bytes

    raw = read_file_bytes(path)
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError(path, "", f"not valid JSON: {exc}") from None


def _takes_events_json(path: Path) -> bool:
    if not path.is_file() or path.suffix != ".json":
        return False
    head = read_head(path).lstrip()
    if not head.startswith(b"["):
        return False
    try:
        value = _load_json(path)
    except InputError:
        return False
    return _is_v1_history(value)


def _takes_state_doc(path: Path) -> bool:
    if not path.is_file() or path.suffix != ".json":
        return False
    head = read_head(path)
    if (
        not head.lstrip().startswith(b"{")
        or b'"baseState"' not in head
        and b'"base_state"' not in head
    ):
        return False
    try:
        value = _load_json(path)
    except InputError:
        return False
    return isinstance(value, dict) and isinstance(_doc_state(value), dict)


def _doc_state(doc: dict[str, Any]) -> Any:
    return doc.get("baseState", doc.get("base_state"))


def _takes_bare(path: Path) -> bool:
    if path.name == EVENTS_DIR or not path.is_dir() or is_conversation_folder(path):
        return False  # `<conversation>/events/` is its conversation, read by the store
    try:
        with os.scandir(path) as it:
            return any(EVENT_NAME_RE.match(e.name) and e.is_file() for e in it)
    except OSError:
        return False


def _takes_archive(path: Path) -> bool:
    return path.is_file() and path.name.endswith(ARCHIVE_SUFFIXES)


# -- listing -------------------------------------------------------------------------------


def _one(shape: str) -> Callable[[Path], Iterator[ShapeRef]]:
    def refs(path: Path) -> Iterator[ShapeRef]:
        yield ShapeRef(shape, str(path))

    return refs


# -- opening -------------------------------------------------------------------------------


def _open_eval(ref: ShapeRef) -> MemoryConversation:
    return eval_record_conversation(ref, read_record(ref))


def _open_events_jsonl(ref: ShapeRef) -> MemoryConversation:
    from trajkit.store.reader import MAX_FILE_BYTES

    path = Path(ref.file)
    events: list[bytes] = []
    h = hashlib.blake2b(digest_size=16)
    with open_input(path) as fh:
        for number, line, size in iter_lines(fh, min(MAX_V0_BYTES, MAX_FILE_BYTES)):
            if line is None:
                raise InputError(f"{path}:{number}", "", f"line of {size} bytes above the limit")
            if line.strip():
                h.update(line)
                json_object(
                    f"{path}:{number}",
                    line,
                    bad_json="not valid JSON ({exc}); expected one event per line",
                    not_object="expected one event object per line",
                )
                events.append(line.strip())
    notes = ["base state unknown: the file holds events only (no base_state.json)"]
    return _events_conversation(ref, events, None, h.hexdigest(), notes=notes)


def _open_events_json(ref: ShapeRef) -> MemoryConversation:
    path = Path(ref.file)
    value = _load_json(path)
    if not isinstance(value, list):
        raise InputError(path, "", "expected a JSON array of events")
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise InputError(path, f"/{i}", "expected an event object")
    state, notes = _sibling_state(path, value)
    return _events_conversation(ref, value, state, digest(orjson.dumps(value)), notes=notes)


def _sibling_state(path: Path, events: list[Any]) -> tuple[dict[str, Any] | None, list[str]]:
    """The `baseState` of a `trajectory.json` beside an `events.json` (the visualizer's pair)."""
    from trajkit.store.layout import link_outside

    sibling = path.with_name("trajectory.json")
    if sibling == path or not sibling.is_file():
        return None, ["base state unknown: the file holds events only (no base_state.json)"]
    if sibling.is_symlink() and (real := link_outside(sibling, path.parent)) is not None:
        return None, [  # as for base_state.json: a link outside the folder is never read
            f"base state unknown: {sibling.name} beside it is a symlink to {real}, outside "
            "the folder; not read"
        ]
    try:
        doc = _load_json(sibling)
    except InputError:
        return None, [f"base state unknown: {sibling.name} beside it is not valid JSON"]
    state = _doc_state(doc) if isinstance(doc, dict) else None
    if isinstance(state, dict):
        return state, [f"base state from {sibling.name} beside it"]
    return None, ["base state unknown: the file holds events only (no base_state.json)"]


def _open_state_doc(ref: ShapeRef) -> MemoryConversation:
    path = Path(ref.file)
    doc = _load_json(path)
    if not isinstance(doc, dict) or not isinstance(_doc_state(doc), dict):
        raise InputError(path, "/baseState", "expected an object holding baseState")
    state = _doc_state(doc)
    events = doc.get("events")
    notes: list[str] = []
    if events is None:
        events = []
        beside = path.with_name("events.json")
        count = doc.get("eventCount")
        if isinstance(count, int) and count:
            where = f" ({beside.name} beside it holds them)" if beside.is_file() else ""
            notes.append(f"the document counts {count} events but holds none{where}")
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise InputError(path, "/events", "expected a list of event objects")
    return _events_conversation(ref, events, state, digest(orjson.dumps(doc)), notes=notes)


def _events_conversation(
    ref: ShapeRef,
    events: list[Any],
    state: dict[str, Any] | None,
    fingerprint: str,
    *,
    notes: list[str] | None = None,
    pointer: str = "/{i}",
) -> MemoryConversation:
    conv_id = state.get("id") if isinstance(state, dict) else None
    if not isinstance(conv_id, str):
        first = _first_id(events)
        conv_id = derived_id(first or os.path.abspath(ref.file))
    return MemoryConversation(
        ref.label,
        conversation_id=conv_id,
        state=state,
        events=events,
        notes=notes or [],
        event_pointer=pointer,
        fingerprint=fingerprint,
    )


def _first_id(events: list[Any]) -> str | None:
    for e in events[:1]:
        data = orjson.loads(e) if isinstance(e, bytes) else e
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            return str(data["id"])
    return None


def _open_bare(ref: ShapeRef) -> BareFolderConversation:
    return BareFolderConversation(Path(ref.file))


def _open_v0(ref: ShapeRef) -> MemoryConversation:
    from trajkit.shapes.v0.reader import open_v0  # lazy: the mapping loads the event model

    return open_v0(ref)


SHAPES: dict[str, Shape] = {
    "eval-v1": Shape(_takes_eval, partial(iter_records, shape="eval-v1"), _open_eval),
    "events-jsonl": Shape(_takes_events_jsonl, _one("events-jsonl"), _open_events_jsonl),
    "events-json": Shape(_takes_events_json, _one("events-json"), _open_events_json),
    "state-doc": Shape(_takes_state_doc, _one("state-doc"), _open_state_doc),
    "bare-events": Shape(_takes_bare, _one("bare-events"), _open_bare),
    "archive": Shape(_takes_archive, archive_refs, open_archive_conversation),
    "atif": Shape(takes_atif, atif_refs, open_atif),
    "mini-swe-agent": Shape(takes_mini, _one("mini-swe-agent"), open_mini),
    "swe-agent": Shape(takes_sweagent, _one("swe-agent"), open_sweagent),
    "inspect": Shape(takes_inspect, inspect_refs, open_inspect),
    "v0-session": Shape(takes_session, _one("v0-session"), _open_v0),
    "v0-jsonl": Shape(takes_jsonl, partial(iter_records, shape="v0-jsonl"), _open_v0),
    "v0-json": Shape(takes_json, _one("v0-json"), _open_v0),
}
"""Registry, in the order detection tries it."""
OPENERS.update({name: shape.open for name, shape in SHAPES.items()})  # ShapeRef.open_conversation


def shape_of(path: Path) -> str | None:
    """The registry name of the shape `path` holds, or None."""
    try:
        for name, shape in SHAPES.items():
            if shape.takes(path):
                return name
    except OSError:
        return None
    return None


def shape_refs(path: str | os.PathLike[str]) -> Iterator[ShapeRef] | None:
    """The conversations in `path` when it is one of the shapes (else None)."""
    found = shape_at(path)
    return None if found is None else found[2]


def shape_at(path: str | os.PathLike[str]) -> tuple[str, Path, Iterator[ShapeRef]] | None:
    """The shape `path` holds: its name, its file or folder, its conversations (else None).

    `file.jsonl#key` (a path that does not exist as such) selects one record by its key
    (`instance_id`) or line number. A FIFO, device or socket raises `InputError`.
    """
    p = Path(path)
    key = ""
    if not os.path.lexists(p) and "#" in os.fspath(path):
        head, _, key = os.fspath(path).rpartition("#")
        first, _, rest = os.fspath(path).partition("#")
        if not os.path.lexists(head) and os.path.lexists(first):
            head, key = first, rest  # `job.zip#member.json#id`: an archive's embedded trajectory
        p = Path(head)
    _refuse_special(p)
    name = shape_of(p)
    if name is None:
        return None
    refs = SHAPES[name].refs(p)
    return name, p, _select(p, refs, key) if key else refs


def _refuse_special(path: Path) -> None:
    """A FIFO, device or socket named as input: the store's refusal, before anything opens it."""
    from trajkit.store.guard import check_regular

    try:
        st = os.stat(path)
    except OSError:
        return  # missing or a broken link: each command says so its own way
    if not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
        check_regular(path, st)


def _select(path: Path, refs: Iterator[ShapeRef], key: str) -> Iterator[ShapeRef]:
    for ref in refs:
        if ref.key == key or str(ref.line) == key:
            yield ref
            return
    raise InputError(f"{path}#{key}", "", f"no conversation {key!r} in {path.name}")


def open_shape(ref: ShapeRef) -> MemoryConversation | BareFolderConversation:
    """Open one conversation of a shape (reads its bytes; nothing is written)."""
    return SHAPES[ref.shape].open(ref)


_EMBEDDING = {
    "atif": (atif_embedded_refs, partial(open_atif, embedded=False)),
    "archive": (archive_embedded_refs, partial(open_archive_conversation, embedded=False)),
}
"""The shapes whose conversations may embed others (ATIF's subagent trajectories, on disk or
in an archive): the embedded ones, and the conversation opened without copies of them."""


def embedded_refs(ref: ShapeRef) -> list[ShapeRef]:
    """The conversations embedded below `ref`, depth first (`migrate` writes them below its
    folder, as the runtime keeps sub-conversations; `shapes.atif.embedding_ref` says where).
    """
    found = _EMBEDDING.get(ref.shape)
    return found[0](ref) if found is not None else []


def open_apart(ref: ShapeRef) -> MemoryConversation | BareFolderConversation:
    """`ref`'s conversation without copies of the ones it embeds (`embedded_refs`)."""
    found = _EMBEDDING.get(ref.shape)
    return found[1](ref) if found is not None else open_shape(ref)
