"""Find V0 trajectories in the user's paths, whatever container holds them.

A small registry (`CONTAINERS`) says which handler takes a path: each entry looks at the path
(folder or file name) and at the first bytes, and yields *inputs*: cheap, picklable handles that
are loaded later (`V0Input.load()`), possibly in a worker process. Containers (spec v0-format §1):

- `session-folder`: `sessions/<sid>/events/<n>.json`, one event per file, read in numeric
  order (`10.json` after `9.json`); `metadata.json` kept; `event_cache/` ignored;
  `agent_state.pkl` is never opened (a warning says it was skipped).
- `eval-jsonl`: an evaluation `output.jsonl`; one conversation per line (`history` flat, as
  pairs, or lossy resolver records), named after its `instance_id`. Read line by line, so a
  file of any size streams; a broken line is skipped and reported, the others still migrate.
- `trajectory-json`: a JSON file holding a list of events (CLI/GUI `trajectory.json`), the REST
  answer `{"trajectory": [...]}`, or one eval record `{"history": [...]}`.

A folder that is no session folder is walked (sorted) for session folders and `*.json` /
`*.jsonl` files, so `users/<uid>/conversations/<sid>/` layouts are found too. Problems are
values (`SkippedInput`), never exceptions, so one bad input never stops the others.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from trajkit.errors import InputError
from trajkit.migrate.v0 import looks_like_history
from trajkit.store.guard import open_regular, outside_error
from trajkit.store.layout import is_conversation_folder, link_outside

__all__ = [
    "CONTAINERS",
    "MAX_V0_BYTES",
    "SkippedInput",
    "V0Input",
    "V0Source",
    "container_for",
    "iter_v0_inputs",
]

_SNIFF_BYTES = 4096
MAX_V0_BYTES = int(os.environ.get("TRAJKIT_MAX_V0_BYTES", 256 * 2**20))
"""Largest V0 JSON document loaded: a trajectory file, one .jsonl line, one session event file.
Above it the input is skipped unread (parsing costs several times the size in memory)."""
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LINE_CHUNK = 16 * 2**20
"""A .jsonl line longer than this is measured before it is read, never held while measuring."""
_EVENT_FILE_RE = re.compile(r"^(\d+)\.json$")
_SID_RE = re.compile(r"^[0-9a-fA-F]{32}$")


@dataclass
class V0Source:
    """One V0 trajectory, loaded: raw event items plus where they came from."""

    path: str
    """File or folder the trajectory was read from (with `:<line>` for jsonl lines)."""
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


@dataclass(frozen=True)
class SkippedInput:
    """An input (file, folder, jsonl line) that could not be migrated, and why."""

    path: str
    """File (with `:<line>` for a jsonl line) or folder."""
    pointer: str
    """JSON pointer inside it ("" for the whole input)."""
    message: str
    """What was expected and what was found."""

    def __str__(self) -> str:
        where = f"{self.path}:{self.pointer}" if self.pointer else self.path
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class V0Input:
    """A handle on one trajectory, loaded on demand; picklable so a worker can load it."""

    path: str
    """The file or folder."""
    container: str
    """Registry name of the container."""
    line: int | None = None
    """1-based line number (jsonl)."""
    data: bytes | None = None
    """The line's bytes (jsonl)."""

    @property
    def label(self) -> str:
        """`path` or `path:line`."""
        return self.path if self.line is None else f"{self.path}:{self.line}"

    def load(self) -> V0Source:
        """Read and unwrap the trajectory; raises `InputError` naming file, pointer and problem."""
        return CONTAINERS[self.container].load(self)


@dataclass(frozen=True)
class _Container:
    handles: Callable[[Path, bytes], bool]
    """Whether this container takes the path (given its first bytes; b"" for folders)."""
    inputs: Callable[[Path], Iterator[V0Input | SkippedInput]]
    """The trajectories in the path."""
    load: Callable[[V0Input], V0Source]
    """Load one of them."""


# -- session folder ------------------------------------------------------------------------


def _is_session_folder(path: Path, head: bytes = b"") -> bool:
    events = path / "events"
    if not path.is_dir() or not events.is_dir():
        return False
    return any(_EVENT_FILE_RE.match(p.name) for p in events.iterdir())


def _session_inputs(path: Path) -> Iterator[V0Input | SkippedInput]:
    yield V0Input(str(path), "session-folder")


def _load_session(inp: V0Input) -> V0Source:
    folder = Path(inp.path)
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


def _is_jsonl(path: Path, head: bytes) -> bool:
    if not path.is_file():
        return False
    if path.suffix == ".jsonl":
        return True
    first, sep, rest = head.partition(b"\n")
    if not sep or not rest.strip() or not first.strip().startswith(b"{"):
        return False  # one line only: a compact JSON file, read whole
    try:
        return isinstance(json.loads(first), dict)  # a whole object on line one: JSON lines
    except ValueError:
        return False


def _jsonl_inputs(path: Path) -> Iterator[V0Input | SkippedInput]:
    with path.open("rb") as fh:
        for number, line, size in _iter_lines(fh, MAX_V0_BYTES):
            if line is None:
                yield SkippedInput(f"{path}:{number}", "", _too_big("line", size, "one record"))
            elif line.strip():
                yield V0Input(str(path), "eval-jsonl", line=number, data=line)


def _iter_lines(fh: BinaryIO, limit: int) -> Iterator[tuple[int, bytes | None, int]]:
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
    Values nested deeper than Python's recursion allows are a `ValueError` too."""
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


def _load_jsonl_line(inp: V0Input) -> V0Source:
    label = inp.label
    try:
        record = _loads(inp.data or b"")
    except ValueError as exc:
        raise InputError(
            label, "", f"line is not valid JSON ({exc}); expected one eval record"
        ) from None
    if not isinstance(record, dict) or "history" not in record:
        raise InputError(label, "", "expected an eval record: a JSON object with a 'history' list")
    return _eval_record(record, label, "eval-jsonl", Path(inp.path).stem + f"-line{inp.line}")


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


def _is_json_file(path: Path, head: bytes) -> bool:
    return path.is_file()


def _json_inputs(path: Path) -> Iterator[V0Input | SkippedInput]:
    yield V0Input(str(path), "trajectory-json")


def _load_json(inp: V0Input) -> V0Source:
    path = Path(inp.path)
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
        if isinstance(items, dict) and isinstance(items.get("kind"), str):
            raise InputError(path, "", _one_v1_event(path, items["kind"]))
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


def _one_v1_event(path: Path, kind: str) -> str:
    """What to say about a V1 event file given alone (it is not a V0 trajectory either)."""
    folder = path.parent.parent if path.parent.name == "events" else None
    give = f"give its conversation folder, {folder}" if folder else "give its conversation folder"
    return f"one V1 event ({kind}), not a whole conversation: {give}"


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


CONTAINERS: dict[str, _Container] = {
    "session-folder": _Container(_is_session_folder, _session_inputs, _load_session),
    "eval-jsonl": _Container(_is_jsonl, _jsonl_inputs, _load_jsonl_line),
    "trajectory-json": _Container(_is_json_file, _json_inputs, _load_json),
}
"""Registry, in the order detection tries it."""


def container_for(path: Path) -> str | None:
    """Name of the container that handles `path`, or None (a plain folder is walked instead)."""
    head = b""
    if path.is_file():
        with path.open("rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    for name, container in CONTAINERS.items():
        if container.handles(path, head):
            return name
    return None


def iter_v0_inputs(
    paths: Iterable[str | os.PathLike[str]], *, exclude: str | os.PathLike[str] | None = None
) -> Iterator[V0Input | SkippedInput]:
    """Every V0 trajectory handle under `paths`, in a stable order, and what had to be skipped.

    Args:
        paths: files and folders as the user named them.
        exclude: a folder never to walk into (the migration's own output folder).
    """
    walk = _Walk(exclude=_identity(Path(exclude)) if exclude is not None else None)
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            yield SkippedInput(str(path), "", "no such file or folder")
            continue
        yield from walk.inputs_of(path, top=True)


@dataclass
class _Walk:
    exclude: tuple[int, int] | None
    seen: set[tuple[int, int]] = field(default_factory=set)

    def inputs_of(self, path: Path, *, top: bool) -> Iterator[V0Input | SkippedInput]:
        name = container_for(path)
        if name is not None:
            yield from CONTAINERS[name].inputs(path)
            return
        if not path.is_dir():
            yield SkippedInput(str(path), "", "not a file or folder trajkit can read")
            return
        if is_conversation_folder(path):
            yield SkippedInput(
                str(path), "", "already a V1 conversation folder; nothing to migrate"
            )
            return
        ident = _identity(path)
        if ident is not None:
            if ident in self.seen or ident == self.exclude:
                return  # a symlink loop, a folder named twice, or the output folder
            self.seen.add(ident)
        found = False
        for child in sorted(path.iterdir()):
            if child.name.startswith("."):
                continue
            if child.is_dir() or child.suffix in (".json", ".jsonl"):
                for item in self.inputs_of(child, top=False):
                    found = True
                    yield item
        if top and not found:
            yield SkippedInput(
                str(path), "", "no V0 trajectory found (no events/<n>.json, *.json or *.jsonl)"
            )


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
