"""Index rows for many conversations: what `trajkit serve` and the static site list.

`source_row(source)` reads one conversation (a V1 folder, or a V0 input migrated in memory)
with the same summary code as `ls` and `stats` (`summary._row` for the listing facts,
`summary._count` for the counts, one pass over the events), and returns a `CatalogRow`: status,
model, events, tool calls, tool errors, errors (failed steps as the report counts them:
`trajkit.events.outcome`), cost, tokens, duration, first user message,
an evaluation record's outcome, the tools called, and `text`: the searchable words of the
conversation (message texts, commands, arguments, outputs; capped at `TEXT_LIMIT` characters).

`source_fingerprint(source)` is what changes when a conversation changes (mtimes and sizes of
its `events/` folder and `base_state.json`, or of the V0 file), so a cache can keep rows whose
fingerprint is unchanged. Nothing is ever written.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajkit.shapes.atif import part_files
from trajkit.shapes.memory import ShapeRef
from trajkit.store import open_conversation
from trajkit.store.layout import conversation_parts
from trajkit.store.location import Location, is_remote
from trajkit.views import summary
from trajkit.views.entries import event_to_entry
from trajkit.views.load import eval_outcome

if TYPE_CHECKING:
    from trajkit.events import Event

__all__ = [
    "CatalogRow",
    "TEXT_LIMIT",
    "source_fingerprint",
    "source_key",
    "source_row",
]

TEXT_LIMIT = 200_000
"""Characters of searchable text kept per conversation."""
_FIRST_MESSAGE = 300
"""Characters of the first user message kept in a row."""


@dataclass
class CatalogRow:
    """One conversation in the index."""

    key: str
    id: str
    path: str
    status: str | None = None
    model: str | None = None
    events: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    errors: int = 0
    cost: float | None = None
    tokens: int = 0
    duration_s: float | None = None
    first_time: str | None = None
    last_time: str | None = None
    first_message: str = ""
    outcome: str | None = None
    tools: list[str] = field(default_factory=list)
    problems: int = 0
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-able values without the search text."""
        data = dict(self.__dict__)
        data.pop("text")
        return data


def source_key(source: Location | ShapeRef) -> str:
    """A stable, opaque key for a conversation (16 hex of a digest of where it is)."""
    where = str(source)
    return hashlib.sha1(
        os.fsencode(os.path.abspath(where) if "://" not in where else where)
    ).hexdigest()[:16]


def source_fingerprint(source: Location | ShapeRef, *, clear: bool = False) -> str:
    """What changes when the conversation changes (see the module docstring); `clear`: what
    is built from it keeps secrets (`--no-redact`), so it differs from the masked build.
    """
    mode = " clear" if clear else ""
    parts: list[str] = []
    if isinstance(source, Path):
        targets: list[str | Path] = [*conversation_parts(source)]
    elif is_remote(source):
        return "remote" + mode
    else:  # trajkit.shapes: the file holding it (an ATIF's continuations too), and which one
        targets = [source.file]
        if source.shape == "atif" and not source.key:
            targets += part_files(Path(source.file))
        parts.append(source.key)
    for t in targets:
        try:
            st = os.stat(t)
            parts.append(f"{st.st_mtime_ns}:{st.st_size}")
        except OSError:
            parts.append("-")
    return "/".join(parts) + mode


def source_row(source: Location | ShapeRef) -> CatalogRow:
    """The row of one conversation; raises `TrajkitError` when it cannot be read at all."""
    key = source_key(source)
    texts = _Texts()
    conv = open_conversation(source)
    ls_row = summary._row(conv)
    stats = summary._new_stats(conv)
    outcome = eval_outcome(getattr(conv, "record", None))[0]  # an evaluation record's verdict
    summary._count(stats, texts.watch(conv.iter_events_or_none(stats.problems)))
    t = stats.totals
    return CatalogRow(
        key=key,
        id=ls_row.id,
        path=ls_row.path,
        status=stats.status,
        model=stats.model,
        events=stats.n_events,
        tool_calls=sum(stats.tool_calls.values()),
        tool_errors=sum(stats.tool_errors.values()),
        errors=stats.errors,
        cost=t.cost,
        tokens=t.prompt_tokens + t.completion_tokens,
        duration_s=stats.duration_s,
        first_time=ls_row.first_time,
        last_time=ls_row.last_time,
        first_message=ls_row.first_message[:_FIRST_MESSAGE],
        outcome=outcome,
        tools=sorted(stats.tool_calls),
        problems=len(ls_row.problems) + len(stats.problems),
        text=texts.text(),
    )


class _Texts:
    """Collects the searchable text of events passing by."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0

    def watch(self, events: Iterator[Event | None]) -> Iterator[Event | None]:
        for pos, event in enumerate(events):
            if event is not None:
                entry = event_to_entry(pos, event)
                if self.size < TEXT_LIMIT and entry.role != "system":
                    for part in (entry.text, entry.args, *(c.text for c in entry.code)):
                        if part:
                            self.parts.append(part)
                            self.size += len(part)
            yield event

    def text(self) -> str:
        return "\n".join(self.parts)[:TEXT_LIMIT]
