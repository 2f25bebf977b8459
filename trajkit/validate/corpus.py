"""Validate what the user named: conversation folders, folders of many, single files.

`validate_paths()` expands each PATH into targets (a conversation folder, or a loose file),
checks them on up to two worker processes (`trajkit.corpus.map_conversations`), and yields one `ConversationReport` per target in
a stable order (the order of the paths, conversations sorted within each). Memory stays
bounded: only a few targets are in flight at a time and each report holds only its problems.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from trajkit.errors import InputError
from trajkit.store.layout import EVENTS_DIR
from trajkit.store.location import as_location, check_location, exists, is_conversation, is_remote
from trajkit.validate.conversation import ConversationReport, validate_conversation, validate_file
from trajkit.validate.diagnose import checker
from trajkit.validate.files import MAX_FILE_BYTES, read_json_object
from trajkit.validate.problems import Problem, error

if TYPE_CHECKING:
    from trajkit.engine import Engine


@dataclass(frozen=True, slots=True)
class Target:
    """One thing to check: a conversation folder, a loose file, or a path that is broken."""

    path: Path
    what: str
    """`conversation`, `file` or `broken`."""
    reason: str = ""


@dataclass(slots=True)
class Summary:
    """Totals over the reports of one run, and the line `trajkit validate` ends with."""

    conversations: int = 0
    files: int = 0
    """Loose files checked (not counting files inside conversations)."""
    events: int = 0
    errors: int = 0
    warnings: int = 0
    unchecked: int = 0
    """PATHs that named nothing to check (missing, a broken link): errors, but no file."""
    failed: list[str] = field(default_factory=list)
    """Targets with at least one error."""

    def add(self, report: ConversationReport) -> None:
        """Count one report."""
        if names_nothing(report):
            self.unchecked += 1
            self.failed.append(os.fspath(report.path))
            return
        if report.is_conversation:
            self.conversations += 1
        else:
            self.files += 1
        self.events += report.events
        errors = sum(1 for p in report.problems if p.severity == "error")
        self.errors += errors
        self.warnings += len(report.problems) - errors
        if errors:
            self.failed.append(os.fspath(report.path))

    @property
    def valid(self) -> bool:
        """True when no error was found and every PATH named something to check."""
        return self.errors == 0 and self.unchecked == 0

    def to_json(self) -> dict[str, int | bool]:
        """Counts for JSON reports (a PATH naming nothing counts as one error)."""
        return {
            "valid": self.valid,
            "conversations": self.conversations,
            "files": self.files,
            "events": self.events,
            "errors": self.errors + self.unchecked,
            "warnings": self.warnings,
        }

    def line(self) -> str | None:
        """`valid: ...` / `INVALID: ...` over what was checked; None when nothing was (every
        PATH named nothing: their errors said it all)."""
        checked = [_plural(n, w) for n, w in ((self.conversations, "conversation"),
                                               (self.files, "file")) if n]  # fmt: skip
        if not checked and self.unchecked:
            return None
        scope = f"{', '.join(checked) or 'nothing'} ({_plural(self.events, 'event')})"
        if self.unchecked:
            scope += f"; {_plural(self.unchecked, 'path')} not checked (above)"
        if self.errors == 0 and not self.warnings:
            return f"valid: {scope}"
        counts = f"{_plural(self.errors, 'error')}, {_plural(self.warnings, 'warning')}"
        return f"{'INVALID' if self.errors else 'valid with warnings'}: {counts} in {scope}"


def names_nothing(report: ConversationReport) -> bool:
    """A report whose PATH names nothing to check (missing, a broken link, a V0 file): its
    problems are errors about the input, not about a file or a conversation."""
    problems = report.problems
    return not report.is_conversation and bool(problems) and all(p.code == "path" for p in problems)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def iter_targets(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Target]:
    """Expand PATHs: a file is a target, a conversation folder is one, other folders are searched.

    A path that does not exist, a broken link or a symlink loop is a `broken` target, reported
    as a problem naming it (exit 1, the other paths are still checked: one rule for every
    command). Local paths and storage URLs follow the same rules (`trajkit.store.location`).
    """
    from trajkit.shapes import ShapeRef, find_locations, shape_refs

    for raw in paths:
        path = as_location(raw)
        check_location(path)
        if not is_remote(path):
            try:
                refs = shape_refs(raw)
                if refs is not None:  # eval output, event arrays, archives: trajkit.shapes
                    yield from (Target(ref, "shape") for ref in refs)  # type: ignore[arg-type]
                    continue
            except InputError as exc:
                yield Target(Path(raw), "broken", exc.message)
                continue
        if not exists(path):
            yield Target(path, "broken", "no such file or folder")  # type: ignore[arg-type]
            continue
        try:
            is_dir = path.is_dir()
            is_file = path.is_file()
        except OSError as exc:  # ELOOP on some platforms
            yield Target(path, "broken", exc.strerror or str(exc))  # type: ignore[arg-type]
            continue
        if is_file and not is_remote(path) and (v0 := _v0_container(path)) is not None:
            yield Target(path, "broken", v0)
        elif is_file:
            yield Target(path, "file")  # type: ignore[arg-type]
        elif is_dir and is_conversation(path):
            yield Target(path, "conversation")  # type: ignore[arg-type]
        elif is_dir and path.name == EVENTS_DIR and is_conversation(path.parent):
            yield Target(path.parent, "conversation")  # type: ignore[arg-type]
        elif is_dir:
            found = False
            for folder in find_locations(path):
                found = True
                if isinstance(folder, ShapeRef):
                    yield Target(folder, "shape")  # type: ignore[arg-type]
                else:
                    yield Target(folder, "conversation")
            if not found:
                yield Target(
                    path,  # type: ignore[arg-type]
                    "broken",
                    "no V1 conversation folder (holding events/ or base_state.json) found here; "
                    "OpenHands V0 trajectories and sessions are read by `trajkit migrate`",
                )
        else:
            yield Target(path, "broken", _broken_reason(path))  # type: ignore[arg-type]


def count_targets(paths: Iterable[str | os.PathLike[str]]) -> int:
    """How many reports `validate_paths(paths)` gives (a listing: no file is checked)."""
    return sum(1 for _ in iter_targets(paths))


def _v0_container(path: Path) -> str | None:
    """What to say about a V0 `.jsonl` (evaluation output), which V1 validation does not read."""
    if path.suffix != ".jsonl":
        return None
    from trajkit.migrate.containers import MAX_V0_BYTES, _iter_lines
    from trajkit.migrate.v0 import looks_like_history

    try:
        with open(path, "rb") as fh:
            for _, line, _size in _iter_lines(fh, MAX_V0_BYTES):
                if line is not None and line.strip():
                    import orjson

                    record = orjson.loads(line)
                    break
            else:
                return None
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or not looks_like_history(record.get("history")):
        return None
    size = path.stat().st_size
    too_big = (
        f" (at {size / 2**20:.0f} MiB it is also above the {MAX_FILE_BYTES / 2**20:.0f} MiB "
        "limit for one event file)"
        if size > MAX_FILE_BYTES
        else ""
    )
    return (
        "an OpenHands V0 evaluation output (history of V0 events), not V1 events: "
        f"`trajkit migrate {path} -o OUT` writes V1 folders to validate; ls, stats, inspect "
        f"and export --from-v0 read it as it is{too_big}"
    )


def _broken_reason(path: Path) -> str:
    check = read_json_object(path, what="a file")  # stat-only outcome for links and loops
    return check.problems[0].message if check.problems else "not a file or folder"


def check_target(
    target: Target, *, strict: bool, max_file_bytes: int, thorough: bool = False
) -> ConversationReport:
    """Check one target (runs in a worker process)."""
    if target.what == "conversation":
        return validate_conversation(
            target.path, strict=strict, max_file_bytes=max_file_bytes, thorough=thorough
        )
    if target.what == "shape":
        from trajkit.validate.shapes import validate_shape

        return validate_shape(
            target.path,  # type: ignore[arg-type]
            strict=strict,
            max_file_bytes=max_file_bytes,
            thorough=thorough,
        )
    if target.what == "file":
        return validate_file(
            target.path, strict=strict, max_file_bytes=max_file_bytes, thorough=thorough
        )
    problem: Problem = error(target.path, "", target.reason, "path")
    return ConversationReport(path=target.path, problems=[problem], is_conversation=False)


def validate_paths(
    paths: Iterable[str | os.PathLike[str]],
    *,
    strict: bool = False,
    max_file_bytes: int = MAX_FILE_BYTES,
    thorough: bool = False,
    engine: Engine | None = None,
) -> Iterator[ConversationReport]:
    """Check every conversation and file under `paths`; one report per target, in order.

    Args:
        paths: conversation folders, folders holding many conversations, or single files.
        strict: report warnings (unknown kinds, stray files, …) as errors.
        max_file_bytes: files above this size are refused without being read.
        thorough: also check files the model accepts with `jsonschema` (much slower).
        engine: where checks run (`trajkit.engine`); default `LocalEngine()` (up to 2 processes).
    """
    from trajkit.engine import LocalEngine

    engine = engine or LocalEngine()
    work = partial(check_target, strict=strict, max_file_bytes=max_file_bytes, thorough=thorough)
    targets = iter_targets(engine.portable(paths))
    if engine.forks_workers:
        checker().warm()  # build schemas and validators once, before workers fork
    yield from engine.map(work, targets, on_error=_failed_target)


def _failed_target(target: Target, exc: BaseException) -> ConversationReport:
    """The report of a target whose check raised (a bug, or a worker lost): one error."""
    message = f"could not be checked: {type(exc).__name__}: {exc}"
    problem: Problem = error(target.path, "", message, "internal")
    return ConversationReport(
        path=target.path, problems=[problem], is_conversation=target.what == "conversation"
    )


__all__ = [
    "Summary",
    "Target",
    "check_target",
    "count_targets",
    "iter_targets",
    "names_nothing",
    "validate_paths",
]
