"""Read one conversation for viewing: a V1 folder, or a V0 trajectory migrated in memory.

Views show as much as they can: a file that cannot be read becomes a `Broken` item in its
place (and a problem in `problems`), an unknown event kind stays an `UnknownEvent` (shown as
raw JSON), an unreadable `base_state.json` leaves `state` empty. Only an input that is no
conversation at all raises `InputError`. Nothing is ever written.

`event_range` limits which event files are parsed (by position, 0-based, inclusive), so
`inspect --from 4000 --to 4010` on a long conversation lists names but parses eleven files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from trajkit.errors import InputError, TrajkitError
from trajkit.store import open_conversation
from trajkit.store.layout import is_conversation_folder

if TYPE_CHECKING:
    from trajkit.events import BaseState, Event
    from trajkit.migrate import MigratedConversation
    from trajkit.shapes import ShapeRef
    from trajkit.shapes.agent_server import ServerMeta

__all__ = [
    "Broken",
    "LoadedConversation",
    "eval_outcome",
    "holds_many",
    "load_conversation",
    "migrated_to_loaded",
]


@dataclass(frozen=True)
class Broken:
    """An event file that could not be read, shown where it stands."""

    path: str
    """The file."""
    message: str
    """`path:pointer: message` from the reader."""


@dataclass
class LoadedConversation:
    """A conversation as views see it: its state (if readable) and its events in order."""

    path: Path
    """Folder (V1) or file/folder (V0) that was read."""
    id: str
    """Conversation id."""
    state: BaseState | None
    """Parsed `base_state.json`, or None when missing or unreadable."""
    items: list[tuple[int, Event | Broken]] = field(default_factory=list)
    """`(position, event)` pairs in log order; `Broken` for files that could not be read."""
    total_events: int = 0
    """Number of event files, whether or not they were in `event_range`."""
    problems: list[str] = field(default_factory=list)
    """What was skipped, one `path:pointer: message` line each."""
    origin: str = "v1"
    """`v1`, or `v0 (<container>)` when migrated in memory."""
    outcome: str | None = None
    """An evaluation record's verdict (`resolved`, `not resolved`, `error: …`), when there is one."""
    patch: str | None = None
    """An evaluation record's final `git_patch`, when there is one."""
    notes: list[str] = field(default_factory=list)
    """What the reader did that the user should know (older SDK upgraded, base state unknown);
    not problems: nothing was skipped."""
    meta: ServerMeta | None = None
    """The agent server's `meta.json` (title, times, tags, metrics), when the folder has one."""


def eval_outcome(record: dict[str, object] | None) -> tuple[str | None, str | None]:
    """`(outcome, git_patch)` of an evaluation record (`test_result`, `report`, `error`)."""
    if not isinstance(record, dict):
        return None, None
    result = record.get("test_result")
    result = result if isinstance(result, dict) else {}
    report = (
        result.get("report") if isinstance(result.get("report"), dict) else record.get("report")
    )
    patch = result.get("git_patch")
    patch = patch if isinstance(patch, str) and patch.strip() else None
    for source in (result, report if isinstance(report, dict) else {}, record):
        resolved = source.get("resolved")
        if isinstance(resolved, bool):
            return ("resolved" if resolved else "not resolved"), patch
    error = record.get("error")
    if isinstance(error, str) and error:
        return f"error: {error[:200]}", patch
    success = record.get("success")  # resolver outputs
    if isinstance(success, bool):
        return ("resolved" if success else "not resolved"), patch
    return None, patch


def load_conversation(
    path: str | os.PathLike[str], *, event_range: tuple[int, int | None] = (0, None)
) -> LoadedConversation:
    """Load the conversation at `path` (V1 folder or V0 input); see the module docstring."""
    from trajkit.shapes import ShapeRef

    if isinstance(path, ShapeRef):  # a handle from a listing (`serve`, `view` of a folder)
        return _load_v1(path, event_range)
    from trajkit.store.location import as_location, is_remote

    location = as_location(path) if "://" in os.fspath(path) else None
    if is_remote(location):  # s3://bucket/prefix/<hex>: a V1 folder in object storage
        return _load_v1(location, event_range)  # type: ignore[arg-type]
    p = Path(path)
    if p.is_dir() and is_conversation_folder(p):
        return _load_v1(p, event_range)
    shaped = _only_shape(path)
    if shaped is not None:  # eval output, event arrays, archives, bare folders: trajkit.shapes
        return _load_v1(shaped, event_range)
    v0 = _v0_container(p)
    if v0 is not None:
        return _load_v0(p, v0, event_range)
    if not p.exists():
        raise InputError(p, "", "no such file or folder")
    only = _only_v1_conversation(p)
    if only is not None:
        return _load_v1(only, event_range)
    inside = _count_inside(p)
    if inside:
        raise InputError(
            p,
            "",
            f"not one conversation: it holds {inside}; pass one of them (`trajkit ls` lists them)",
        )
    raise InputError(
        p,
        "",
        "not a conversation: expected a V1 folder holding base_state.json or events/, "
        "or a V0 trajectory (trajectory.json, a session folder, output.jsonl)",
    )


def holds_many(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is a folder of several conversations (not one conversation)."""
    from trajkit.shapes import find_locations, shape_refs

    refs = shape_refs(path)
    if refs is not None:  # eval output, archive, ...: one conversation or several
        return sum(1 for _ in zip(range(2), refs, strict=False)) > 1
    p = Path(path)
    if p.is_dir() and not is_conversation_folder(p):
        found = sum(1 for _ in zip(range(2), find_locations(p), strict=False))
        if found:
            return found > 1
    if p.is_file() and _v0_container(p) is not None:  # an eval output.jsonl of many records
        from trajkit.migrate import SkippedInput, iter_v0_inputs

        inputs = zip(range(2), iter_v0_inputs([p]), strict=False)
        return sum(1 for _, i in inputs if not isinstance(i, SkippedInput)) > 1
    if not p.is_dir() or is_conversation_folder(p) or _v0_container(p) is not None:
        return False
    if _only_v1_conversation(p) is not None:
        return False
    return bool(_count_inside(p, limit=2))


def _only_shape(path: str | os.PathLike[str]) -> ShapeRef | Path | None:
    """The one conversation a shape holds (the first, with a problem noted, when several)."""
    from trajkit.shapes import shape_refs

    refs = shape_refs(path)
    if refs is None:
        if not Path(path).is_dir():
            return None
        from trajkit.shapes import find_locations

        found = list(zip(range(2), find_locations(Path(path)), strict=False))
        return found[0][1] if len(found) == 1 else None
    first = next(refs, None)
    if first is None:
        raise InputError(path, "", "holds no conversation")
    if next(refs, None) is not None:
        raise InputError(
            path,
            "",
            f"holds several conversations; pass one as {first.file}#<id> (e.g. {first.label}; "
            "`trajkit ls` lists them)",
        )
    return first


def _only_v1_conversation(path: Path) -> Path | None:
    """The conversation folder below ``path`` when there is exactly one (as convert accepts)."""
    if not path.is_dir():
        return None
    from trajkit.store import find_conversations

    found = list(zip(range(2), find_conversations([path]), strict=False))
    return found[0][1] if len(found) == 1 else None


def _count_inside(path: Path, limit: int = 1000) -> str:
    """ "N conversations" found below a folder (V1 or V0), or "" when there is none."""
    if not path.is_dir():
        return ""
    from trajkit.store import find_conversations

    n = sum(1 for _ in zip(range(limit), find_conversations([path]), strict=False))
    if n == 0:
        from trajkit.migrate import SkippedInput, iter_v0_inputs

        inputs = zip(range(limit), iter_v0_inputs([path]), strict=False)
        n = sum(1 for _, i in inputs if not isinstance(i, SkippedInput))
    if n == 0:
        return ""
    return f"{n}{'+' if n >= limit else ''} conversation{'s' if n != 1 else ''}"


def _load_v1(folder: Path | ShapeRef, event_range: tuple[int, int | None]) -> LoadedConversation:
    from trajkit.shapes.agent_server import read_server_meta
    from trajkit.shapes.memory import MemoryConversation
    from trajkit.store.reader import parse_event_bytes

    conv = open_conversation(folder)
    loaded = LoadedConversation(path=Path(folder), id=conv.id, state=None)
    loaded.notes.extend(getattr(conv, "notes", ()))
    try:
        loaded.state = conv.base_state()
    except TrajkitError as exc:
        loaded.problems.append(f"{exc} (base_state.json skipped)")
    files = conv.event_files()
    loaded.total_events = len(files)
    start, stop = event_range
    for pos, event_file in enumerate(files):
        if pos < start or (stop is not None and pos > stop):
            continue
        try:
            event = parse_event_bytes(event_file.path, event_file.read_bytes(), conv.upgrades)
        except InputError as exc:
            loaded.problems.append(str(exc))
            loaded.items.append((pos, Broken(str(event_file.path), str(exc))))
            continue
        loaded.items.append((pos, event))
    loaded.notes.extend(conv.upgrade_notes())
    if isinstance(folder, Path) and not isinstance(conv, MemoryConversation):
        try:
            loaded.meta = read_server_meta(folder)
        except TrajkitError as exc:
            loaded.problems.append(f"{exc} (meta.json skipped)")
    return loaded


def _v0_container(path: Path) -> str | None:
    if not path.exists():
        return None
    from trajkit.migrate.containers import container_for

    try:
        return container_for(path)
    except OSError:
        return None


def _load_v0(path: Path, container: str, event_range: tuple[int, int | None]) -> LoadedConversation:
    """Migrate a V0 input in memory (`trajkit.migrate`) and view its first trajectory."""
    from trajkit.migrate import SkippedInput, iter_v0_conversations

    problems: list[str] = []
    first_skipped: SkippedInput | None = None
    found = None
    extra = 0
    for item in iter_v0_conversations([path]):
        if isinstance(item, SkippedInput):
            problems.append(str(item))
            first_skipped = first_skipped or item
        elif found is None:
            found = item
        else:
            extra += 1
    if first_skipped is not None and found is None:  # its message names the file once
        raise InputError(first_skipped.path, first_skipped.pointer, first_skipped.message)
    if found is None:
        raise InputError(path, "", "no V0 trajectory found")
    loaded = migrated_to_loaded(path, found, container, event_range, problems)
    if extra:  # said, but nothing was skipped: the first trajectory is what was asked for
        loaded.notes.append(
            f"holds {extra + 1} trajectories; only the first is shown "
            "(`trajkit migrate` writes each one to its own folder)"
        )
    return loaded


def migrated_to_loaded(
    path: Path,
    found: MigratedConversation,
    container: str,
    event_range: tuple[int, int | None] = (0, None),
    problems: list[str] | None = None,
) -> LoadedConversation:
    """A V0 trajectory migrated in memory, as views see it (with its evaluation outcome)."""
    start, stop = event_range
    outcome, patch = eval_outcome(found.sidecar.get("metadata"))
    return LoadedConversation(
        path=path,
        id=found.id,
        state=found.base_state,
        items=[
            (pos, ev)
            for pos, ev in enumerate(found.events)
            if pos >= start and (stop is None or pos <= stop)
        ],
        total_events=len(found.events),
        problems=problems or [],
        origin=f"v0 {container}",
        outcome=outcome,
        patch=patch,
    )
