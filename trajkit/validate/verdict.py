"""Is a conversation valid? The one answer `validate`, `convert` and `export` share.

`convert` and `export` ask `conversation_errors()` before they read a conversation for their
own work (of any shape: V1 folders on disk or in storage, `trajkit.shapes` conversations, V0
input through its migration), or read a folder through a `Verdict`: the store's one scan of it
(`trajkit.store.scan`), each file handed to the verdict as they read it, so a conversation `trajkit validate` rejects is rejected by them too, with the same
first message: skipped with its reason, or kept with `--keep-invalid` and its problems recorded
(in `convert`'s warnings and in the export row's `problems`). Warnings (unknown kinds, stray
files) never make a conversation invalid, as in `validate` without `--strict`.

One kind of error is left to the command: a secret in clear (`code == "secret"`). The structure
is sound, and what to do is each command's job: export masks the value in every column
(`trajkit.redact`), convert's payloads carry no credentials; skipping the conversation would
only lose it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajkit.validate.conversation import ConversationCheck

if TYPE_CHECKING:
    from trajkit.store.scan import Listing, ScannedFile
    from trajkit.validate.problems import Problem

__all__ = ["Verdict", "conversation_errors", "invalid_reason", "verdict_errors"]


class Verdict:
    """`conversation_errors` of a folder, given the files as its reader scans them.

    `files()` is the store's scan of the folder; hand each file to `add()` (its bytes and event
    are the caller's to use), then ask `errors()`. The folder is listed once and each file read
    once, for the verdict and the caller's work alike.
    """

    def __init__(self, folder: Path) -> None:
        self._check = ConversationCheck(folder)
        self._problems = list(self._check.start())

    def files(self) -> Iterator[ScannedFile]:
        """The event files of the folder in index order (`trajkit.store.scan.scan_events`)."""
        return self._check.files()

    @property
    def listing(self) -> Listing | None:
        """The one listing of `events/` the scan reads (None when there is none to read)."""
        return self._check.listing

    @property
    def base_state(self) -> dict[str, Any] | None:
        """`base_state.json`'s object (upgraded) when its check found nothing wrong with the
        file; else None (missing, unreadable, refused: the reader says why).
        """
        state = self._check.state
        return state.data if state is not None and not state.problems else None

    def add(self, scanned: ScannedFile) -> None:
        """Check one file of `files()`."""
        if problems := self._check.add(scanned):
            self._problems.extend(problems)

    def errors(self) -> list[str]:
        """The verdict once every file was added: the errors, formatted; [] if valid."""
        self._problems.extend(self._check.finish())
        return verdict_errors(self._problems)


def conversation_errors(location: str | os.PathLike[str] | Any) -> list[str]:
    """The errors `trajkit validate` reports for this conversation, formatted; [] if valid.

    `location` is any conversation the readers take: a V1 folder (on disk or in object
    storage), a `trajkit.shapes` handle (an evaluation record, an events array or JSONL file, a
    baseState document, a folder of bare event files, an archive folder, a V0 trajectory:
    checked as the V1 conversation its migration gives in memory), or a conversation already
    held in memory (a `MemoryConversation`: checked as it is).
    """
    from trajkit.shapes.memory import MemoryConversation, ShapeRef
    from trajkit.validate.conversation import ConversationReport, validate_conversation
    from trajkit.validate.files import MAX_FILE_BYTES
    from trajkit.validate.shapes import opened_problems, validate_shape

    if isinstance(location, MemoryConversation):
        where = Path(location.label)
        report = ConversationReport(path=where)
        state = Path(location.label + "#/baseState")
        return verdict_errors(list(opened_problems(location, report, where, state)))
    if isinstance(location, ShapeRef):
        report = validate_shape(location, max_file_bytes=MAX_FILE_BYTES)
    else:
        path = Path(location) if isinstance(location, str) else location
        report = validate_conversation(path)  # type: ignore[arg-type]  # Path or storage path
    return verdict_errors(report.problems)


_UNREADABLE = frozenset({"path", "shape", "json", "unreadable", "truncated"})
"""Problem codes of an input that cannot be read at all: `--keep-invalid` cannot help there."""


class _Error(str):
    """A formatted error that remembers whether its file could be read."""

    unreadable: bool = False


def verdict_errors(problems: Iterable[Problem]) -> list[str]:
    """The problems that make a conversation invalid, formatted (see the module docstring)."""
    errors: list[str] = []
    for p in problems:
        if p.severity == "error" and p.code != "secret":
            text = _Error(p.format())
            text.unreadable = p.code in _UNREADABLE
            errors.append(text)
    return errors


def invalid_reason(errors: list[str]) -> str:
    """One line for a skipped invalid conversation: its first error and how many more.

    `--keep-invalid` is offered only when every error leaves the input readable.
    """
    more = len(errors) - 1
    tail = f" (and {more} more problem(s): trajkit validate lists them)" if more else ""
    if any(getattr(e, "unreadable", False) for e in errors):
        return f"{errors[0]}{tail}; invalid, skipped"
    return f"{errors[0]}{tail}; invalid, skipped (--keep-invalid keeps it)"
