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

from trajkit.shapes import ShapeRef, SkippedInput, resolve_inputs
from trajkit.validate.conversation import ConversationReport, validate_conversation, validate_file
from trajkit.validate.diagnose import checker
from trajkit.validate.files import MAX_FILE_BYTES
from trajkit.validate.problems import Problem, error, warning

if TYPE_CHECKING:
    from trajkit.engine import Engine


@dataclass(frozen=True, slots=True)
class Target:
    """One thing to check: a conversation folder, a loose file, or a path that is broken."""

    path: Path
    what: str
    """`conversation`, `shape`, `file`, `broken` (an error) or `skipped` (a warning)."""
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
        """Count one report (a part named but not checked is no file: only its warning)."""
        if names_nothing(report):
            self.unchecked += 1
            self.failed.append(os.fspath(report.path))
            return
        skipped = bool(report.problems) and all(p.code == "skipped" for p in report.problems)
        if report.is_conversation:
            self.conversations += 1
        elif not skipped:
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
        PATH named nothing: their errors said it all).
        """
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
    problems are errors about the input, not about a file or a conversation.
    """
    problems = report.problems
    return not report.is_conversation and bool(problems) and all(p.code == "path" for p in problems)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def iter_targets(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Target]:
    """Expand PATHs through the input registry (`trajkit.shapes.resolve_inputs`).

    A conversation folder or a shape's conversation is a target, a file named alone is one
    (`validate_file`); V0 input is named, not read (it is not V1: `trajkit migrate` writes V1
    from it). What is not read is a problem naming it: a warning for a part of a folder that
    holds conversations too, an error for a PATH with nothing to check (missing, a broken
    link, nothing inside, V0 only: one rule for every command; the other paths are still
    checked).
    """
    for raw in paths:
        held: list[SkippedInput] | None = []  # skipped parts, until a conversation shows
        for item in resolve_inputs([raw], v0="skip", note=_V0_NOTE, files=True):
            if isinstance(item, SkippedInput):
                if held is None:
                    yield Target(Path(item.path), "skipped", item.message)
                else:
                    held.append(item)
                continue
            for skipped in held or ():
                yield Target(Path(skipped.path), "skipped", skipped.message)
            held = None
            if isinstance(item, ShapeRef):
                yield Target(item, "shape")  # type: ignore[arg-type]
            elif os.fspath(item) == os.fspath(raw) and item.is_file():
                yield Target(item, "file")  # type: ignore[arg-type]
            else:
                yield Target(item, "conversation")  # type: ignore[arg-type]
        for skipped in held or ():  # nothing to check under this PATH: each is an error
            yield Target(Path(skipped.path), "broken", skipped.message)


_V0_NOTE = "`trajkit migrate PATH -o OUT` writes V1 folders to validate"


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
    if target.what == "skipped":  # named, not checked: a warning (an error with --strict)
        make = error if strict else warning
        problem: Problem = make(target.path, "", f"not checked: {target.reason}", "skipped")
    else:
        problem = error(target.path, "", target.reason, "path")
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
    "iter_targets",
    "names_nothing",
    "validate_paths",
]
