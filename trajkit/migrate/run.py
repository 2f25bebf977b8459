"""Migrate: write one V1 folder per conversation the PATHs hold (`migrate_paths`).

What a PATH holds is the input registry's answer (`trajkit.shapes.resolve_inputs`), the tree
whole: V0 trajectories are mapped to V1 (`trajkit.shapes.v0`, with a loss report and a sidecar);
V1 data that is not a current V1 folder (an evaluation record, an events array or JSONL file, a
baseState document, a bare folder of event files, a conversation in an archive, a folder an
older SDK wrote) is written again with its events upgraded, and a base state (a minimal one
naming the tools its `SystemPromptEvent` recorded, when the shape has none); a V1 folder in the
current format needs nothing and is reported as skipped. `iter_v0_conversations` gives the V0
ones in memory, nothing written.

Writing a conversation never leaves a partial folder: everything goes to a hidden temp folder
`OUT/.<hex>.tmp-<pid>-<n>/`, which is renamed to `OUT/<hex>/` only when complete
(`trajkit.store.atomic.staged_folder`). Inside that private folder each file is created once and
fsynced (`write_new_file`), and the folders are fsynced before the rename: the rename is the
atomic step, so per-file temp+rename (`store.atomic_write`, two fsyncs per file) would buy
nothing and halve the speed (measured: 1.9 s vs 0.9 s for 200 events). With `overwrite`, an
existing folder is first renamed aside and removed after the new one is in place; without it,
an existing folder is left untouched and the conversation is reported as skipped
(`OutputExists`, "pass --overwrite to replace it").

Large inputs stream: inputs are handles (a jsonl line is read, not parsed, by the main process)
and are mapped and written on worker processes by an engine (`trajkit.engine`, default
`LocalEngine()`: 2 processes), which keeps a bounded window in flight, so memory stays bounded
by a few conversations. Results come back in input order. Nothing here prints; callers get one
`Migrated` or `SkippedInput` per input.
"""

from __future__ import annotations

import errno
import json
import math
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajkit.errors import InputError, OutputError, OutputExists, TrajkitError
from trajkit.shapes import (
    Input,
    ShapeRef,
    SkippedInput,
    embedded_refs,
    embedding_ref,
    open_apart,
    resolve_inputs,
)
from trajkit.shapes.v0 import V0_KINDS
from trajkit.shapes.v0.mapping import MigratedConversation, ToolNames
from trajkit.shapes.v0.reader import read_v0
from trajkit.shapes.v0.report import REPORT_FILE, SIDECAR_FILE, MigrationReport
from trajkit.store.atomic import make_folder, staged_folder, write_new_file
from trajkit.store.guard import refuse_output_inside
from trajkit.store.layout import EVENTS_DIR, conversation_parts, subagent_folder

if TYPE_CHECKING:
    from trajkit.engine import Engine

__all__ = [
    "AlreadyMigrated",
    "Migrated",
    "iter_inputs",
    "iter_v0_conversations",
    "migrate_paths",
    "write_conversation",
]


@dataclass(frozen=True)
class Migrated:
    """One conversation written to disk."""

    source: str
    """Input it came from (`path:line` for jsonl lines)."""
    name: str
    """Conversation name."""
    conversation_id: str
    """V1 conversation id (dashed uuid)."""
    folder: str
    """The written folder `OUT/<hex>`."""
    events: int
    """V1 events written."""
    report: dict[str, Any]
    """The `migration_report.json` content."""
    subagents: tuple[Migrated, ...] = ()
    """The trajectories an ATIF file embedded in this one, written below its folder
    (`subagents/<hex>/`, nested as they were embedded)."""
    skipped: tuple[str, ...] = ()
    """Embedded trajectories that could not be read (one line each)."""


@dataclass(frozen=True)
class AlreadyMigrated(SkippedInput):
    """An input whose folder a previous run already wrote completely (folders appear whole).

    A re-run after an interruption meets these for the finished part: they are not errors, so
    the run can finish the rest. `--overwrite` rewrites them instead.
    """

    folder: str = ""
    """The existing `OUT/<hex>` folder."""


@dataclass
class MigrationTally:
    """The outcomes of one `migrate_paths` run, counted as they come (`trajkit migrate`).

    `add(outcome)` files one outcome and returns the lines that report it, each with whether
    it says what was skipped (none for a folder already migrated; an ATIF file's embedded
    trajectories after it); `summary(out)` and `to_json()` say what the run did. `show` turns
    a path into the text a user reads (the CLI passes its `display_path`).
    """

    show: Callable[[str], str] = str
    done: list[Migrated] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)

    def add(self, outcome: Migrated | SkippedInput) -> list[tuple[str, bool]]:
        if isinstance(outcome, AlreadyMigrated):
            self.existing.append(outcome.folder)
            return []
        if isinstance(outcome, SkippedInput):
            self.skipped.append(str(outcome))
            return [(f"skipped {outcome}", True)]
        self.done.append(outcome)
        r = outcome.report
        line = (
            f"{self.show(outcome.source)} -> {self.show(outcome.folder)} ({outcome.events} events, "
            f"{r['dropped']} dropped, {len(r['warnings'])} warning(s))"
        )
        subs = [sub_line for sub in outcome.subagents for sub_line in self.add(sub)]
        self.skipped += outcome.skipped
        return [(line, False), *subs, *((f"skipped {s}", True) for s in outcome.skipped)]

    def summary(self, out: str) -> str:
        done = self.done
        warnings = sum(len(m.report["warnings"]) for m in done)
        existing = len(self.existing)
        return (
            f"migrated {len(done)} conversation(s) into {out}: {sum(m.events for m in done)} "
            f"events, {sum(m.report['dropped'] for m in done)} V0 events dropped, "
            f"{sum(m.report['synthesized'] for m in done)} synthesized, {warnings} warning(s) "
            f"(see migration_report.json); {len(self.skipped)} input(s) skipped"
            + (
                f"; {existing} already migrated (kept; --overwrite rewrites them)"
                if existing
                else ""
            )
        )

    def interrupted(self, out: str) -> str:
        return (
            f"interrupted: {len(self.done)} conversation(s) migrated in this run are complete in "
            f"{out} (folders appear whole); run the same command again to migrate the rest"
        )

    def to_json(self) -> dict[str, Any]:
        """`migrate --json` (`trajkit.migrate/1`)."""
        return {
            "schema": "trajkit.migrate/1",
            "migrated": [  # an ATIF file's embedded trajectories listed after it, in its folder
                {k: v for k, v in vars(m).items() if k not in ("subagents", "skipped")}
                for m in self.done
            ],
            "already_migrated": self.existing,
            "skipped": self.skipped,
        }


_DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EPERM, errno.EDQUOT})
"""Write errors that concern OUT_DIR as a whole: the run stops instead of failing each input."""


def iter_v0_conversations(
    paths: Iterable[str | os.PathLike[str]], *, tool_names: ToolNames = "keep"
) -> Iterator[MigratedConversation | SkippedInput]:
    """Every V0 trajectory under `paths` as a V1 conversation in memory (nothing is written)."""
    for item in resolve_inputs(paths):
        if isinstance(item, SkippedInput):
            yield item
        elif isinstance(item, ShapeRef) and item.shape in V0_KINDS:
            yield _convert(item, tool_names)


def migrate_paths(
    paths: Iterable[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    tool_names: ToolNames = "keep",
    engine: Engine | None = None,
) -> Iterator[Migrated | SkippedInput]:
    """Write one V1 folder per V0 trajectory under `paths` into `out_dir`, yielding outcomes.

    `engine` runs the work (`trajkit.engine`; default `LocalEngine()`, up to 2 processes).
    """
    from trajkit.engine import LocalEngine

    engine = engine or LocalEngine()
    (out,) = engine.portable([Path(out_dir)])
    paths = list(paths)
    refuse_output_inside(out, paths)
    if out.exists() and not out.is_dir():
        raise InputError(out, "", "output path exists and is not a folder")
    try:
        make_folder(out)
    except OSError as exc:
        raise OutputError.from_os(out, exc) from None
    _remove_dead_temp_folders(out)
    work = partial(_migrate_item, out=str(out), overwrite=overwrite, tool_names=tool_names)
    inputs = iter_inputs(engine.portable(paths), out)
    yield from engine.map(work, inputs)


def iter_inputs(
    paths: Iterable[str | os.PathLike[str]], out_dir: str | os.PathLike[str]
) -> Iterator[Input | SkippedInput]:
    """What `migrate_paths(paths, out_dir)` reads, one outcome each: the tree whole, each
    stray JSON file reported, never OUT_DIR. An ATIF trajectory's embedded trajectories (listed
    right after it) are written with it, below its folder, so they are not inputs of their own.
    """
    top: ShapeRef | None = None
    held: set[str] | None = None  # what `top` embeds (read when a keyed ref follows it)
    for item in resolve_inputs(paths, strays=True, exclude=out_dir):
        ref = item if isinstance(item, ShapeRef) else None
        if ref is not None and top is not None and ref.key and ref.shape == top.shape:
            if held is None:
                try:
                    held = {r.label for r in embedded_refs(top)}
                except TrajkitError:
                    held = set()
            if ref.label in held:
                continue  # written with `top`, below its folder
        top, held = ref, None
        yield item


def _migrate_item(
    inp: Any, *, out: str, overwrite: bool, tool_names: ToolNames
) -> Migrated | SkippedInput:
    if isinstance(inp, SkippedInput):
        return inp
    if isinstance(inp, ShapeRef) and inp.shape in V0_KINDS:
        return _migrate_one(inp, out, overwrite, tool_names)
    result: Migrated | SkippedInput = migrate_v1_input(inp, out, overwrite=overwrite)
    return result


def _convert(inp: ShapeRef, tool_names: ToolNames) -> MigratedConversation | SkippedInput:
    try:
        return read_v0(inp, tool_names=tool_names)
    except InputError as exc:
        return SkippedInput(str(exc.path), exc.pointer, exc.message)


def _migrate_one(
    inp: ShapeRef, out: str, overwrite: bool, tool_names: ToolNames
) -> Migrated | SkippedInput:
    conv = _convert(inp, tool_names)
    if isinstance(conv, SkippedInput):
        return conv
    try:
        folder = write_conversation(conv, out, overwrite=overwrite)
    except OutputExists as exc:
        return AlreadyMigrated(
            inp.label,
            "",
            f"already migrated to {exc.path}; pass --overwrite to replace it",
            folder=exc.path,
        )
    except OSError as exc:
        if exc.errno in _DISK_ERRNOS:
            raise OutputError.from_os(out, exc) from None
        return SkippedInput(inp.label, "", f"could not write the conversation: {exc}")
    except TrajkitError as exc:
        return SkippedInput(inp.label, "", f"could not write the conversation: {exc}")
    return Migrated(
        source=conv.source,
        name=conv.name,
        conversation_id=conv.id,
        folder=str(folder),
        events=len(conv.events),
        report=conv.report.to_dict(),
    )


# -- V1 input: other shapes, older SDK versions ---------------------------------------


def migrate_v1_input(location: Any, out: str, *, overwrite: bool) -> Any:
    """Write one V1 conversation as a current V1 folder; a `Migrated` or a `SkippedInput`.

    An ATIF trajectory's embedded subagent trajectories are written below it, in
    `<folder>/subagents/<hex>/` (the runtime's layout for a task's sub-conversation), in the
    same staged folder: the parent and its children appear whole, together.
    """
    tree = _read_tree(location)
    top = tree[0][1]
    if isinstance(top, SkippedInput):
        return top
    label = str(location)
    final = Path(out) / top.folder_name
    placed: dict[str, Path] = {}
    written: list[tuple[MigratedConversation, Path]] = []
    skipped: list[SkippedInput] = []
    for ref, conv, parent in tree:
        where = Path() if parent is None else placed.get(parent)
        if isinstance(conv, SkippedInput) or where is None:
            skipped.append(conv if isinstance(conv, SkippedInput) else SkippedInput(
                str(ref), "", "the trajectory it is embedded in was not read; not written"))  # fmt: skip
            continue
        if parent is not None:  # the runtime's layout for a sub-conversation
            where = subagent_folder(where, conv.id)
        placed[str(ref)] = where
        written.append((conv, where))
    try:
        with staged_folder(final, overwrite=overwrite, folders=[EVENTS_DIR]) as tmp:
            for conv, where in written:
                _write_parts(conv, tmp / where, final / where)
    except OutputExists as exc:  # a re-run: kept, as for V0 input
        message = f"already migrated to {exc.path}; pass --overwrite to replace it"
        return AlreadyMigrated(label, "", message, folder=exc.path)
    except (TrajkitError, OSError) as exc:
        return SkippedInput(label, "", f"could not write the conversation: {exc}")
    return _migrated(top, final, subagents=[
        _migrated(c, final / w) for c, w in written[1:]], skipped=skipped)  # fmt: skip


def _read_tree(location: Any) -> list[tuple[Any, MigratedConversation | SkippedInput, Any]]:
    """`(input, conversation read, the input it is embedded in)`: `location` first, then each
    trajectory an ATIF file embeds below it (depth first; see `trajkit.shapes.atif`).
    """
    if not isinstance(location, ShapeRef):
        return [(location, _read_v1(location), None)]
    try:
        subs = embedded_refs(location)
    except TrajkitError:
        subs = []  # opening the trajectory says what is wrong
    tree = [(location, _read_v1(location), None)]
    return tree + [(s, _read_v1(s), str(embedding_ref(s, location))) for s in subs]


def _read_v1(location: Any) -> MigratedConversation | SkippedInput:
    """One V1 conversation in memory, with its report; a current V1 folder is skipped."""
    from trajkit.store import StoredConversation, open_conversation

    label = str(location)
    conv: StoredConversation
    try:
        if isinstance(location, ShapeRef):
            conv = open_apart(location)  # the ones it embeds: folders below it
        else:
            conv = open_conversation(location)
        state = conv.base_state()
        events = list(conv.iter_events(skip_empty=True))
    except InputError as exc:  # `file:pointer: message`, as every command says it
        return SkippedInput(str(exc.path), exc.pointer, exc.message)
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
    return MigratedConversation(
        id=conv.id,
        name=report.name,
        source=label,
        base_state=state,
        events=events,
        report=report,
        sidecar={},
    )


def _migrated(
    conv: MigratedConversation,
    folder: Path,
    *,
    subagents: Iterable[Migrated] = (),
    skipped: Iterable[SkippedInput] = (),
) -> Migrated:
    return Migrated(
        source=conv.source,
        name=conv.name,
        conversation_id=conv.id,
        folder=str(folder),
        events=len(conv.events),
        report=conv.report.to_dict(),
        subagents=tuple(subagents),
        skipped=tuple(map(str, skipped)),
    )


def _name(location: Any) -> str:
    key = getattr(location, "key", "")
    return str(key) if key else Path(str(location)).name


def _minimal_state(conversation_id: str, events: list[Any]) -> Any:
    """A base state for a shape that has none: the model unknown, the tools it recorded."""
    from trajkit.events import SystemPromptEvent
    from trajkit.events.state import parse_base_state
    from trajkit.events.tools import tool_name

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


def write_conversation(
    conv: MigratedConversation, out_dir: str | os.PathLike[str], *, overwrite: bool = False
) -> Path:
    """Write `conv` as `out_dir/<hex>/` (`store.staged_folder`: published whole); the folder."""
    final = Path(out_dir) / conv.folder_name
    with staged_folder(final, overwrite=overwrite, folders=[EVENTS_DIR]) as tmp:
        _write_parts(conv, tmp, final)
    return final


def _write_parts(conv: MigratedConversation, folder: Path, final: Path) -> None:
    """`conv`'s files in `folder` (a staged folder, or one below it), which becomes `final`."""
    from trajkit.events import dump_event
    from trajkit.events.state import dump_base_state
    from trajkit.store import event_file_name

    events, base_state = conversation_parts(folder)
    make_folder(events, plain=True)
    for index, event in enumerate(conv.events):
        name = event_file_name(index, event.id)
        write_new_file(events / name, dump_event(event).encode())
    state = conv.base_state.model_copy(update={"persistence_dir": str(final.resolve())})
    write_new_file(base_state, dump_base_state(state).encode())
    write_new_file(folder / REPORT_FILE, _json(conv.report.to_dict()).encode())
    if conv.report.shape != "v1":  # V1 inputs have nothing V1 cannot hold
        write_new_file(folder / SIDECAR_FILE, _json(conv.sidecar, indent=None).encode())


def _remove_dead_temp_folders(out: Path) -> None:
    """Remove `.<hex>.tmp-<pid>-<n>` folders whose writer process is gone (a killed run)."""
    for entry in out.iterdir():
        name = entry.name
        if not (name.startswith(".") and ".tmp-" in name and entry.is_dir()):
            continue
        pid_text = name.rsplit(".tmp-", 1)[1].split("-", 1)[0]
        if pid_text.isdigit() and not _alive(int(pid_text)):
            shutil.rmtree(entry, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _json(value: Any, *, indent: int | None = 2) -> str:
    """Strict JSON: a NaN or infinity that a V0 file held (Python's json writes them) is kept
    as its string ("NaN", "Infinity"), since bare NaN is not JSON and readers refuse it.
    """
    return (
        json.dumps(_finite(value), ensure_ascii=False, indent=indent, default=str, allow_nan=False)
        + "\n"
    )


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(value)  # "NaN", "Infinity", "-Infinity"
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value
