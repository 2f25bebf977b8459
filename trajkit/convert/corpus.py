"""Convert many conversations: one JSONL line per conversation, bad ones reported and skipped.

Conversations are found lazily and converted on worker processes (``trajkit.corpus``); each
worker returns the finished JSON line (bytes), so memory holds a few conversations at a time,
never the corpus. Results come back in the order the conversations were found.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from trajkit.convert.conversation import convert_conversation
from trajkit.convert.options import ConversionOptions, Target
from trajkit.corpus import DEFAULT_WORKERS, iter_conversation_paths, map_conversations
from trajkit.errors import TrajkitError

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


def _convert_one(path: Path, to: Target, options: ConversionOptions) -> CorpusItem:
    try:
        result = convert_conversation(path, to=to, options=options)
    except TrajkitError as exc:
        return CorpusItem(path, error=str(exc))
    document = {k: result[k] for k in _DOCUMENT_KEYS if k in result}
    return CorpusItem(path, line=orjson.dumps(document), problems=tuple(result["problems"]))


def convert_corpus(
    paths: Iterable[str | os.PathLike[str]],
    *,
    to: Target = "chat",
    options: ConversionOptions = ConversionOptions(),  # noqa: B008 - frozen dataclass
    jobs: int | None = None,
    engine: Any = None,
) -> Iterator[CorpusItem]:
    """Convert every conversation under ``paths``; ``to`` and ``options`` as for
    ``convert_conversation``.

    Args:
        paths: conversation folders or folders holding many.
        jobs: worker processes (default ``DEFAULT_WORKERS``; 1 converts in this process).
        engine: where conversions run (``trajkit.engine``); default ``jobs`` local processes.

    Raises:
        InputError: a path does not exist or holds no conversation.
    """
    work = partial(_convert_one, to=to, options=options)
    workers = DEFAULT_WORKERS if jobs is None else jobs
    if engine is not None:  # e.g. a RayEngine: the same function on a cluster
        yield from engine.map(work, iter_conversation_paths(paths))
        return
    yield from map_conversations(work, iter_conversation_paths(paths), workers=workers)
