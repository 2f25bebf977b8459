"""Convert many conversations: one JSONL line per conversation, bad ones reported and skipped.

Conversations are found lazily and converted by an engine (``trajkit.engine``); each
worker returns the finished JSON line (bytes), so memory holds a few conversations at a time,
never the corpus. Results come back in the order the conversations were found.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajkit.convert.conversation import convert_conversation
from trajkit.convert.options import ConversionOptions, Target
from trajkit.convert.stream import jsonl_line
from trajkit.convert.targets import OTHER_TARGETS
from trajkit.errors import InputError, TrajkitError
from trajkit.shapes import SkippedInput, resolve_inputs
from trajkit.store.layout import EVENTS_DIR

if TYPE_CHECKING:
    from trajkit.engine import Engine

__all__ = [
    "ConvertReport",
    "CorpusItem",
    "convert_corpus",
    "iter_inputs",
    "refuse_output_in_conversation",
    "single_conversation",
]


@dataclass(frozen=True)
class CorpusItem:
    """The outcome for one conversation folder."""

    path: Path
    """The conversation folder."""
    line: bytes | None = None
    """The JSON line (no newline): ``conversation_id`` plus the document; None on error."""
    error: str | None = None
    """Why the conversation was skipped (``file:pointer: message``)."""
    problems: tuple[str, ...] = field(default_factory=tuple)
    """Warnings about a converted conversation (dangling calls, unknown tool schemas)."""


def _convert_one(
    path: Any, to: Target, options: ConversionOptions, keep_invalid: bool = False
) -> CorpusItem:
    from trajkit.validate.verdict import conversation_errors, invalid_reason

    if isinstance(path, SkippedInput):  # a part of the tree that holds no conversation
        return CorpusItem(Path(path.path), error=str(path))
    if isinstance(path, Path) and path.is_dir() or to in OTHER_TARGETS:  # one read
        return _convert_folder(path, to, options, keep_invalid)
    try:
        errors = conversation_errors(path)  # the check validate and export make too
        if errors and not keep_invalid:
            return CorpusItem(path, error=invalid_reason(errors))
        result = convert_conversation(path, to=to, options=options)
    except TrajkitError as exc:
        return CorpusItem(path, error=str(exc))
    kept = tuple(f"{e} (kept: --keep-invalid)" for e in errors)
    return CorpusItem(path, line=jsonl_line(result), problems=kept + tuple(result["problems"]))


def _convert_folder(
    path: Any, to: Target, options: ConversionOptions, keep_invalid: bool
) -> CorpusItem:
    """A V1 folder: the check validate and export make too, and the line, in one pass."""
    import io

    from trajkit.convert.stream import write_conversation

    out = io.BytesIO()
    try:
        written = write_conversation(
            path, out, to=to, options=options, keep_invalid=keep_invalid, line=True
        )
    except TrajkitError as exc:
        return CorpusItem(path, error=str(exc))
    kept = tuple(f"{e} (kept: --keep-invalid)" for e in written.errors)
    return CorpusItem(path, line=out.getvalue(), problems=kept + tuple(written.problems))


def iter_inputs(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Any]:
    """What `convert_corpus(paths)` converts, one item each (`resolve_inputs`, V0 migrated in
    memory); a path that is itself not read raises, a part below it not read is passed on to
    be reported.
    """
    for raw in paths:
        for item in resolve_inputs([raw]):
            if isinstance(item, SkippedInput) and item.path == os.fspath(raw):
                raise InputError(item.path, item.pointer, item.message)
            yield item


def convert_corpus(
    paths: Iterable[str | os.PathLike[str]],
    *,
    to: Target = "chat",
    options: ConversionOptions = ConversionOptions(),  # noqa: B008 - frozen dataclass
    engine: Engine | None = None,
    keep_invalid: bool = False,
) -> Iterator[CorpusItem]:
    """Convert every conversation under ``paths``; ``to`` and ``options`` as for
    ``convert_conversation``.

    A conversation ``trajkit validate`` rejects is skipped with its first error, unless
    ``keep_invalid`` (its errors then come as problems).

    Args:
        paths: conversation folders or folders holding many, other V1 shapes
            (``trajkit.shapes``), or V0 trajectories (migrated in memory).
        to: the target format, as for ``convert_conversation``.
        options: what to keep or drop, as for ``convert_conversation``.
        keep_invalid: convert a conversation validate rejects, its errors as problems.
        engine: where conversions run (``trajkit.engine``); default ``LocalEngine()`` (up to
            2 processes; ``LocalEngine(1)`` converts in this process).

    Raises:
        InputError: a path does not exist or holds no conversation.
    """
    from trajkit.engine import LocalEngine

    engine = engine or LocalEngine()
    work = partial(_convert_one, to=to, options=options, keep_invalid=keep_invalid)
    yield from engine.map(work, iter_inputs(engine.portable(paths)))


def single_conversation(paths: tuple[Path, ...] | list[Path]) -> Path | None:
    """The conversation folder when PATH... is exactly one (or its `events/`), else None.

    One conversation converts to one JSON document; anything else to JSONL, one line each.
    """
    from trajkit.store.layout import is_conversation_folder

    if len(paths) != 1:
        return None
    path = paths[0].parent if paths[0].name == EVENTS_DIR else paths[0]
    return path if path.is_dir() and is_conversation_folder(path) else None


def refuse_output_in_conversation(output: Path) -> None:
    """Convert never writes into a conversation folder: refuse an `output` inside one."""
    from trajkit.errors import UsageError
    from trajkit.store.layout import is_conversation_folder

    for folder in output.resolve().parents:
        if is_conversation_folder(folder):
            raise UsageError(
                f"{output}: inside the conversation folder {folder}; "
                "convert never writes into a conversation, choose another path"
            )


@dataclass
class ConvertReport:
    """What a `convert` run did: counts always; the lists only when `detailed` (`--json`)."""

    to: str
    output: str | None
    """The output file as the user reads it (None: stdout)."""
    detailed: bool = False
    converted: int = 0
    failed: int = 0
    skipped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def add(self, item: CorpusItem) -> None:
        """Count one item of `convert_corpus`."""
        if item.line is None:
            self.failed += 1
        else:
            self.converted += 1
        if self.detailed:
            self.warnings += [f"{item.path}: {p}" for p in item.problems]
            self.skipped += [] if item.error is None else [str(item.error)]

    def summary(self) -> str:
        """The line `convert` of many conversations ends with."""
        note = "" if self.converted or self.output is None else f"; {self.output} not written"
        return f"converted {self.converted} conversation(s), skipped {self.failed}{note}"

    def to_json(self) -> dict[str, Any]:
        """`convert --json` (`trajkit.convert/1`)."""
        written = self.output is not None and self.converted > 0
        return {
            "schema": "trajkit.convert/1",
            "to": self.to,
            "output": self.output if written else None,
            "converted": self.converted,
            "skipped": self.skipped,
            "warnings": self.warnings,
        }
