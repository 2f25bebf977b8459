"""OpenHands V0 trajectories as shapes of the input registry (`trajkit.shapes.detect.SHAPES`).

Each container (spec v0-format §1) says whether it takes a path, lists the conversations in it
as `ShapeRef`s without reading them, and loads one into a `V0Source` (`load_v0`), which
`trajkit.shapes.v0.mapping` maps to V1 events in memory:

- `v0-session`: `sessions/<sid>/events/<n>.json`, one event per file, read in numeric
  order (`10.json` after `9.json`); `metadata.json` kept; `event_cache/` ignored;
  `agent_state.pkl` is never opened (a warning says it was skipped).
- `v0-jsonl`: an evaluation `output.jsonl`; one conversation per line (`history` flat, as
  pairs, or lossy resolver records), addressed `file.jsonl#<instance_id>` (the line number
  when the record has none, or repeats an earlier one). Listed line by line (`iter_records`,
  shared with the V1 evaluation shape), so a file of any size streams; a broken line fails
  alone when it is opened, the others still read.
- `v0-json`: a JSON file holding a list of events (CLI/GUI `trajectory.json`), the REST
  answer `{"trajectory": [...]}`, or one eval record `{"history": [...]}`.

A problem is an `InputError` naming file, pointer and problem, raised when that conversation
is loaded: one bad input never stops the others.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from trajkit.errors import InputError
from trajkit.shapes._files import open_input, read_head
from trajkit.shapes.memory import ShapeRef
from trajkit.shapes.v0.history import looks_like_history
from trajkit.store.guard import open_regular, outside_error
from trajkit.store.layout import is_conversation_folder, link_outside

__all__ = [
    "MAX_V0_BYTES",
    "V0_KINDS",
    "V0Source",
    "iter_lines",
    "iter_records",
    "load_v0",
    "read_record",
    "takes_json",
    "takes_jsonl",
    "takes_session",
]

MAX_V0_BYTES = int(os.environ.get("TRAJKIT_MAX_V0_BYTES", 256 * 2**20))
"""Largest V0 JSON document loaded: a trajectory file, one .jsonl line, one session event file.
Above it the input is skipped unread (parsing costs several times the size in memory)."""
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LINE_CHUNK = 16 * 2**20
"""A .jsonl line longer than this is measured before it is read, never held while measuring."""
_EVENT_FILE_RE = re.compile(r"^(\d+)\.json$")
_SID_RE = re.compile(r"^[0-9a-fA-F]{32}$")
_INSTANCE_RE = re.compile(rb'"instance_id"\s*:\s*(?:"((?:[^"\\]|\\.){1,200})"|(-?\d{1,30})\b)')
_V0_SNIFF = re.compile(rb'"(?:action|observation)"\s*:\s*"|"(?:history|trajectory)"\s*:\s*\[')
"""What a V0 JSON file has near its start: an event's `"action": "run"` (a V1 event's `action`
is an object), an eval record's `history` list, the REST answer's `trajectory` list."""

V0_KINDS = {
    "v0-session": "an OpenHands V0 session folder",
    "v0-jsonl": "an OpenHands V0 evaluation output (history of V0 events)",
    "v0-json": "an OpenHands V0 trajectory",
}
"""What each V0 shape is, for messages that name V0 input a command does not read."""


@dataclass
class V0Source:
    """One V0 trajectory, loaded: raw event items plus where they came from."""

    path: str
    """Its address: the file or folder, `file.jsonl#<key>` for a record."""
    container: str
    """`session-folder`, `eval-jsonl`, `json-list`, `api-response` or `eval-record`."""
    name: str
    """Human name: file stem, session id, or the eval line's `instance_id`."""
    items: list[Any]
    """The V0 history as stored (event dicts, or `[action, observation]` pairs)."""
    content_key: str
    """Digest of the events; conversation and event ids derive from it."""
    fixed_id: str | None = None
    """A V0 conversation id (32 hex) to reuse, when the container names one."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Session `metadata.json`, or the eval record without `history`."""
    warnings: list[str] = field(default_factory=list)
    """Problems met while reading the container."""


def load_v0(ref: ShapeRef) -> V0Source:
    """Read and unwrap one V0 trajectory; raises `InputError` naming file, pointer and problem."""
    if ref.shape == "v0-session":
        return _load_session(Path(ref.file))
    if ref.shape == "v0-jsonl":
        return _load_jsonl_line(ref, read_record(ref))
    return _load_json(Path(ref.file))


# -- session folder ------------------------------------------------------------------------


def takes_session(path: Path) -> bool:
    """A folder whose `events/` holds numbered event files (`0.json`, `1.json`, ...), and that
    the store does not take for a V1 conversation (`base_state.json`, V1 event names).
    """
    events = path / "events"
    if not path.is_dir() or not events.is_dir() or is_conversation_folder(path):
        return False
    return any(_EVENT_FILE_RE.match(p.name) for p in events.iterdir())


def _load_session(folder: Path) -> V0Source:
    if (real := link_outside(folder / "events", folder)) is not None:
        raise outside_error(folder / "events", real)
    numbered = []
    for p in (folder / "events").iterdir():
        m = _EVENT_FILE_RE.match(p.name)
        if m:
            numbered.append((int(m.group(1)), p))
    numbered.sort()
    warnings: list[str] = []
    items: list[Any] = []
    for _, p in numbered:
        if (real := link_outside(p, folder)) is not None:  # never read a file from elsewhere
            warnings.append(f"{p}: skipped: {outside_error(p, real).message}")
            continue
        try:
            items.append(_loads(_read_limited(p)))
        except InputError as exc:
            warnings.append(f"{p}: skipped an event file: {exc.message}")
        except (ValueError, OSError) as exc:
            warnings.append(f"{p}: skipped an event file that is not valid JSON ({exc})")
    if (folder / "agent_state.pkl").exists():
        warnings.append(
            "agent_state.pkl skipped: it is a Python pickle and is never unpickled "
            "(iteration counters and delegate state it holds are not migrated)"
        )
    metadata: dict[str, Any] = {}
    meta_path = folder / "metadata.json"
    if meta_path.is_file() and link_outside(meta_path, folder) is None:
        try:
            loaded = _loads(meta_path.read_bytes())
            metadata = loaded if isinstance(loaded, dict) else {}
        except (ValueError, OSError) as exc:
            warnings.append(f"{meta_path}: ignored, not valid JSON ({exc})")
    if not looks_like_history(items):
        raise InputError(
            folder, "", "events/ holds no V0 events (objects with 'action' or 'observation')"
        )
    sid = (
        metadata.get("conversation_id")
        if isinstance(metadata.get("conversation_id"), str)
        else folder.name
    )
    return V0Source(
        path=str(folder),
        container="session-folder",
        name=folder.name,
        items=items,
        content_key=_digest(items),
        fixed_id=sid if _SID_RE.match(sid or "") else None,
        metadata=metadata,
        warnings=warnings,
    )


# -- eval output.jsonl ---------------------------------------------------------------------


def takes_jsonl(path: Path) -> bool:
    """JSON lines (a `.jsonl` file, or a whole JSON object on line one and more after it)
    whose first record names a `history`: an evaluation output.
    """
    if not path.is_file():
        return False
    if path.suffix != ".jsonl":
        first, sep, rest = read_head(path).partition(b"\n")
        if not sep or not rest.strip() or not first.strip().startswith(b"{"):
            return False  # one line only: a compact JSON file, read whole
        try:
            if not isinstance(json.loads(first), dict):  # a whole object on line one
                return False
        except ValueError:
            return False
    try:
        with open_input(path) as fh:
            for _, line, _size in iter_lines(fh, MAX_V0_BYTES):
                if line is None or line.strip():
                    return line is None or b'"history"' in line
    except InputError:
        return False
    return False


def iter_records(path: Path, shape: str) -> Iterator[ShapeRef]:
    """One handle per non-empty line of a JSON-lines file: its key, line and byte range.

    The key is the record's `instance_id`, else its line number (also for a record whose
    `instance_id` an earlier one has), so every record has an address `file#key` of its own.
    Nothing is kept: the conversation's opener reads its bytes again (`read_record`).
    """
    offset = 0
    seen: set[str] = set()
    with open_input(path) as fh:
        for number, line, size in iter_lines(fh, MAX_V0_BYTES):
            start, offset = offset, offset + size
            if line is not None and not line.strip():
                continue
            key = _instance(line) if line is not None else None
            if key is None or key in seen:
                key = str(number)
            seen.add(key)
            yield ShapeRef(shape, str(path), key, number, span=(start, size))


def _instance(line: bytes) -> str | None:
    match = _INSTANCE_RE.search(line, 0, 4096) or _INSTANCE_RE.search(line)
    if match is None:
        return None
    if match.group(2) is not None:
        return match.group(2).decode()
    try:
        return str(json.loads(b'"' + match.group(1) + b'"'))
    except ValueError:
        return match.group(1).decode("utf-8", "replace")


def read_record(ref: ShapeRef) -> bytes:
    """The bytes of the record `ref` names (as listed); an error if the file changed since."""
    assert ref.span is not None and ref.line is not None
    offset, length = ref.span
    if length > MAX_V0_BYTES:
        raise InputError(ref.label, "", _too_big("record", length, "one record"))
    with open_input(Path(ref.file)) as fh:
        fh.seek(offset)
        data = fh.read(length)
    if len(data) != length or not data.strip():
        raise InputError(ref.label, "", "the file changed while it was read; run the command again")
    return data


def iter_lines(fh: BinaryIO, limit: int) -> Iterator[tuple[int, bytes | None, int]]:
    """`(number, line, size)` for each line; `line` is None for a line above `limit` bytes.

    A line longer than `_LINE_CHUNK` is first measured by reading past it in chunks (nothing
    kept), then read whole only if it is within the limit: a 5 GB line costs no memory.
    """
    number = 0
    while True:
        start = fh.tell()
        line = fh.readline(_LINE_CHUNK)
        if not line:
            return
        number += 1
        if line.endswith(b"\n") or len(line) < _LINE_CHUNK:
            yield number, line, len(line)
            continue
        size = len(line) + _skip_line(fh)
        if size > limit:
            yield number, None, size
            continue
        end = fh.tell()
        fh.seek(start)
        whole = fh.read(size)
        fh.seek(end)
        yield number, whole, size


def _skip_line(fh: BinaryIO) -> int:
    """Read past the rest of the current line (through its newline); return the bytes skipped."""
    skipped = 0
    while True:
        chunk = fh.read(2**20)
        if not chunk:
            return skipped
        cut = chunk.find(b"\n")
        if cut >= 0:
            fh.seek(cut + 1 - len(chunk), os.SEEK_CUR)
            return skipped + cut + 1
        skipped += len(chunk)


def _loads(data: bytes) -> Any:
    """`json.loads`, with lone surrogates (valid JSON escapes such as "\\udcff", but no
    character UTF-8 can hold) replaced by U+FFFD; the walk runs only when such an escape is there.
    Values nested deeper than Python's recursion allows are a `ValueError` too.
    """
    try:
        value = json.loads(data)
        return _no_surrogates(value) if _SURROGATE_ESCAPE.search(data) else value
    except RecursionError:  # a ValueError, as every caller reports a bad JSON text
        raise ValueError("values nested too deeply to read") from None


def _no_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        return value
    if isinstance(value, list):
        return [_no_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_no_surrogates(k): _no_surrogates(v) for k, v in value.items()}
    return value


def _read_limited(path: Path) -> bytes:
    """A V0 file's bytes, refusing one above `MAX_V0_BYTES` before reading it."""
    try:
        fd, st = open_regular(path)  # a FIFO or device is refused, never waited on
    except OSError as exc:
        raise InputError(path, "", exc.strerror or str(exc)) from None
    with os.fdopen(fd, "rb") as fh:
        if st.st_size > MAX_V0_BYTES:
            raise InputError(path, "", _too_big("file", st.st_size, "one V0 trajectory"))
        return fh.read()


def _too_big(what: str, size: int, unit: str) -> str:
    return (
        f"{what} is {size / 2**20:.0f} MiB, above the {MAX_V0_BYTES / 2**20:.0f} MiB limit for "
        f"{unit}; not read (set TRAJKIT_MAX_V0_BYTES to raise it)"
    )


def _load_jsonl_line(ref: ShapeRef, data: bytes) -> V0Source:
    label = ref.label
    try:
        record = _loads(data)
    except ValueError as exc:
        raise InputError(
            label, "", f"line is not valid JSON ({exc}); expected one eval record"
        ) from None
    if not isinstance(record, dict) or "history" not in record:
        raise InputError(label, "", "expected an eval record: a JSON object with a 'history' list")
    return _eval_record(record, label, "eval-jsonl", Path(ref.file).stem + f"-line{ref.line}")


def _eval_record(record: dict[str, Any], label: str, container: str, fallback: str) -> V0Source:
    history = record.get("history")
    if not looks_like_history(history):
        raise InputError(
            label, "/history", "expected a list of V0 events or [action, observation] pairs"
        )
    assert isinstance(history, list)
    instance = record.get("instance_id")
    name = str(instance) if isinstance(instance, str | int) and str(instance) else fallback
    meta = {k: v for k, v in record.items() if k != "history"}
    return V0Source(
        path=label,
        container=container,
        name=name,
        items=history,
        content_key=_digest([name, history]),
        metadata=meta,
    )


# -- one JSON file ---------------------------------------------------------------------------


def takes_json(path: Path) -> bool:
    """A JSON document that names V0 keys near its start (`action`, `history`, ...)."""
    if not path.is_file():
        return False
    head = read_head(path)
    return head.lstrip()[:1] in (b"[", b"{") and _V0_SNIFF.search(head) is not None


def _load_json(path: Path) -> V0Source:
    data = _read_limited(path)
    if not data.strip():
        raise InputError(path, "", "file is empty; expected a JSON list of V0 events")
    try:
        value = _loads(data)
    except UnicodeDecodeError:
        raise InputError(path, "", "not a text file; expected a JSON list of V0 events") from None
    except ValueError as exc:
        hint = " (the file looks truncated)" if _looks_truncated(data, exc) else ""
        if "Extra data" in str(exc):
            hint = " (it looks like JSON lines; name it *.jsonl to read one record per line)"
        raise InputError(
            path, "", f"not valid JSON{hint}: {exc}; expected a JSON list of V0 events"
        ) from None
    if isinstance(value, dict) and "trajectory" in value:
        items, container, pointer = value["trajectory"], "api-response", "/trajectory"
    elif isinstance(value, dict) and "history" in value:
        return _eval_record(value, str(path), "eval-record", path.stem)
    else:
        items, container, pointer = value, "json-list", ""
    if not looks_like_history(items):
        raise InputError(
            path,
            pointer,
            f"not a V0 trajectory: expected a list of event objects with 'action' or "
            f"'observation', found {_describe(items)}",
        )
    return V0Source(
        path=str(path),
        container=container,
        name=path.stem,
        items=items,
        content_key=_digest(items),
    )


def _looks_truncated(data: bytes, exc: ValueError) -> bool:
    pos = getattr(exc, "pos", None)
    return isinstance(pos, int) and pos >= len(data.rstrip()) - 1


def _describe(value: Any) -> str:
    if isinstance(value, list):
        return "an empty list" if not value else f"a list of {type(value[0]).__name__}"
    if isinstance(value, dict):
        keys = ", ".join(sorted(value)[:5])
        return f"an object with keys {keys}" if keys else "an empty object"
    return f"a JSON {type(value).__name__}"


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
