"""`migrate` for V1 data that is not a current V1 folder: other shapes and older SDK versions.

An evaluation record (`output.jsonl#instance_id`), an events array or JSONL file, a baseState
document, a bare folder of event files, a conversation in an archive, or a folder written by an
older SDK (renamed kinds and fields, `trajkit.events.upgrade`) becomes an ordinary V1 folder
`OUT/<hex>/`: its events upgraded to the current model and written as openhands-sdk 1.58.2
writes them, its base state upgraded (or, when the shape has none, a minimal one naming the
tools its `SystemPromptEvent` recorded). `migration_report.json` lists what the reader had to do
(upgrade rules, missing base state, the record's instruction as first message). A V1 folder in
the current format needs nothing and is reported as skipped, as before.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from trajkit.errors import OutputExists, TrajkitError
from trajkit.migrate.containers import SkippedInput
from trajkit.migrate.report import MigrationReport

__all__ = ["is_v1_input", "iter_migration_inputs", "migrate_v1_input", "v1_inputs_of"]


def v1_inputs_of(path: str | os.PathLike[str]) -> Iterator[Any] | None:
    """The V1 conversations `path` names (shapes, V1 folders), or None to treat it as V0.

    Lazy: an evaluation output of any size streams record by record.
    """
    from trajkit.shapes import shape_refs
    from trajkit.store.layout import AGENT_SERVER_DIR, is_conversation_folder

    refs = shape_refs(path)
    if refs is not None:
        return refs
    p = Path(path)
    if p.is_dir() and is_conversation_folder(p):
        return iter([p])
    if p.is_dir() and is_conversation_folder(p / AGENT_SERVER_DIR):
        return iter([p / AGENT_SERVER_DIR])
    return None


def iter_migration_inputs(paths: Iterable[str | os.PathLike[str]], out: Path) -> Iterator[Any]:
    """Everything `migrate` should look at under `paths`: V1 shapes and folders, V0 input.

    A folder is walked for both: V1 conversations (written again only when they need an
    upgrade) and shapes, then V0 trajectories beside them; nothing below `out` is taken.
    """
    from trajkit.errors import InputError
    from trajkit.migrate.containers import SkippedInput, iter_v0_inputs
    from trajkit.shapes import find_locations, shape_of

    @functools.cache
    def is_v1_shape(path: str) -> bool:  # asked per item: a V0 JSONL file yields one per line
        return shape_of(Path(path)) is not None

    for raw in paths:
        try:
            direct = v1_inputs_of(raw)
            if direct is not None:
                yield from direct
                continue
        except InputError as exc:
            yield SkippedInput(str(exc.path), exc.pointer, exc.message)
            continue
        handled: list[Path] = []
        if Path(raw).is_dir():
            for loc in find_locations(Path(raw)):
                where = Path(getattr(loc, "file", loc))
                if _below(where, out):
                    continue
                handled.append(where.resolve())
                yield loc
        for item in iter_v0_inputs([raw], exclude=out):
            if isinstance(item, SkippedInput):
                if handled and (
                    "already a V1" in item.message
                    or "no V0 trajectory" in item.message
                    or is_v1_shape(item.path)  # e.g. trajectory.json of events.json
                ):
                    continue  # the V1 side answered for these
                yield item
            elif not any(
                _below(Path(item.path), h) or Path(item.path).resolve() == h for h in handled
            ) and not (handled and is_v1_shape(item.path)):
                yield item  # (a V1 shape, e.g. the trajectory.json of an events.json, is not V0)


def _below(path: Path, folder: Path) -> bool:
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except OSError:
        return False


def is_v1_input(item: object) -> bool:
    """True for what `v1_inputs_of` yields."""
    from trajkit.shapes import ShapeRef

    return isinstance(item, ShapeRef | Path)


def migrate_v1_input(location: Any, out: str, *, overwrite: bool) -> Any:
    """Write one V1 conversation as a current V1 folder; a `Migrated` or a `SkippedInput`."""
    from trajkit.migrate.mapping import MigratedConversation
    from trajkit.migrate.run import Migrated, write_conversation
    from trajkit.store import open_conversation

    label = str(location)
    try:
        conv = open_conversation(location)
        state = conv.base_state()
        events = list(conv.iter_events(skip_empty=True))
    except TrajkitError as exc:
        return SkippedInput(label, "", str(exc))
    notes = [*getattr(conv, "notes", ()), *conv.upgrade_notes()]
    if not notes and isinstance(location, Path):
        return SkippedInput(
            label, "", "already a V1 conversation folder in the current format; nothing to migrate"
        )
    if state is None:
        state = _minimal_state(conv.id, events)
    shape = getattr(location, "shape", "v1-folder")
    report = MigrationReport(source=label, container=shape, shape="v1", name=_name(location))
    report.conversation_id = conv.id
    report.mapped = len(events)
    for event in events:
        report.v1_kinds[event.kind] = report.v1_kinds.get(event.kind, 0) + 1
    for note in notes:
        report.warn(note)
    migrated = MigratedConversation(
        id=conv.id,
        name=report.name,
        source=label,
        base_state=state,
        events=events,
        report=report,
        sidecar={},
    )
    try:
        folder = write_conversation(migrated, out, overwrite=overwrite)
    except OutputExists as exc:
        return SkippedInput(
            label, "", f"already migrated to {exc.path}; pass --overwrite to replace it"
        )
    except (TrajkitError, OSError) as exc:
        return SkippedInput(label, "", f"could not write the conversation: {exc}")
    return Migrated(
        source=label,
        name=report.name,
        conversation_id=conv.id,
        folder=str(folder),
        events=len(events),
        report=report.to_dict(),
    )


def _name(location: Any) -> str:
    key = getattr(location, "key", "")
    return str(key) if key else Path(str(location)).name


def _minimal_state(conversation_id: str, events: list[Any]) -> Any:
    """A base state for a shape that has none: the model unknown, the tools it recorded."""
    from trajkit.convert.tools import tool_name
    from trajkit.events import SystemPromptEvent
    from trajkit.events.state import parse_base_state

    prompt = next((e for e in events if isinstance(e, SystemPromptEvent)), None)
    tools = [tool_name(t) for t in prompt.tools] if prompt is not None else []
    data: dict[str, Any] = {
        "id": conversation_id,
        "agent": {
            "llm": {"model": "unknown", "usage_id": "agent"},
            "tools": [{"name": n, "params": {}} for n in tools if n not in ("finish", "think")],
            "kind": "Agent",
        },
        "workspace": {"working_dir": "/workspace", "kind": "LocalWorkspace"},
        "execution_status": "idle",
        "tags": {"title": "migrated by trajkit: base state unknown"},
    }
    if events:
        data["leaf_event_id"] = events[-1].id
    return parse_base_state(data)
