"""Convert many conversations: one JSONL line per conversation, bad ones reported and skipped.

Conversations are found lazily (``find_conversations``) and converted in worker processes; each
worker returns the finished JSON line (bytes), so memory holds a few conversations at a time,
never the corpus. Results come back in the order the conversations were found.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from trajkit.convert.conversation import convert_conversation
from trajkit.errors import TrajkitError
from trajkit.store import find_conversations

__all__ = ["CorpusItem", "convert_corpus"]

_DOCUMENT_KEYS = ("conversation_id", "messages", "instructions", "input", "tools")


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


def _convert_one(args: tuple[Path, dict[str, Any]]) -> CorpusItem:
    path, options = args
    try:
        result = convert_conversation(path, **options)
    except TrajkitError as exc:
        return CorpusItem(path, error=str(exc))
    document = {k: result[k] for k in _DOCUMENT_KEYS if k in result}
    return CorpusItem(path, line=orjson.dumps(document), problems=tuple(result["problems"]))


def convert_corpus(
    paths: Iterable[str | os.PathLike[str]], *, jobs: int | None = None, **options: Any
) -> Iterator[CorpusItem]:
    """Convert every conversation under ``paths``; ``options`` as for ``convert_conversation``.

    Args:
        paths: conversation folders or folders holding many.
        jobs: worker processes (default: up to 2; 1 converts in this process).
    """
    folders = (Path(p) for p in find_conversations([Path(p) for p in paths]))
    tasks = ((folder, options) for folder in folders)
    workers = jobs if jobs is not None else min(2, os.cpu_count() or 1)
    if workers <= 1:
        yield from map(_convert_one, tasks)
        return
    import multiprocessing

    ctx = multiprocessing.get_context("forkserver" if os.name == "posix" else "spawn")
    with ctx.Pool(workers) as pool:
        yield from pool.imap(_convert_one, tasks, chunksize=1)
