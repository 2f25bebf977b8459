"""What the model saw: the active branch, the condensed view and the full projection.

- Active branch (v1-format.md section 1.10): each event's parent is its ``parent_id``
  (``"__root__"`` = a root), or for legacy events (no ``parent_id``) the event just before it.
  The leaf is ``leaf_event_id``; else nothing when ``head_is_empty``; else the last event that is
  not a state update or a conversation error. The branch is the path from the root to the leaf.
  Abandoned branches are left out.
- Condensed view (section 4.2, ``View.from_events``): walk the branch; a ``Condensation`` drops
  its forgotten ids and inserts a ``CondensationSummaryEvent`` (id ``<id>-summary``) at
  ``summary_offset``; LLM-convertible events are appended; everything else is dropped. Then four
  properties are enforced, restarting from the first whenever one drops something:
  1. observation uniqueness: one result per ``tool_call_id``, the first wins;
  2. batch atomicity: a batch (same ``llm_response_id``) partly missing is dropped whole;
  3. tool-call matching: actions without a result, and results without an action, are dropped;
  4. tool-loop atomicity: a tool loop started by an action with thinking blocks is kept whole or
     not at all.
- Full projection: every LLM-convertible event of the branch, in order, nothing removed (the
  fixtures' "plain" conversion).

The rules run on ``ViewEntry`` records (ids, kind flags, call and response ids: never an event's
content), so the streaming conversion (``convert.stream``) chooses the events of a conversation
it does not hold from an index of its files, with the same code as ``active_branch`` and
``condensed_view``, which build the entries from events in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from trajkit.events import (
    ActionEvent,
    Condensation,
    CondensationSummaryEvent,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    Event,
    LLMConvertibleEvent,
    UnknownEvent,
)
from trajkit.events.base import ROOT_PARENT
from trajkit.events.tool_events import ObservationBaseEvent

__all__ = [
    "BranchError",
    "ViewEntry",
    "active_branch",
    "apply_condensation",
    "branch_entries",
    "condensed_entries",
    "condensed_view",
    "entry_of",
    "full_entries",
    "full_view",
    "summary_event",
]

# ViewEntry.flags
LLM = 1
"""An LLM-convertible event (it becomes a message)."""
ACTION = 2
RESULT = 4
"""An ``ObservationBaseEvent``: observation, rejection or agent error."""
CONDENSATION = 8
SUMMARY = 16
"""A ``CondensationSummaryEvent`` (stored, or placed by a condensation: ``pos == -1``)."""
NOT_LEAF = 32
"""A state update or a conversation error: never the default leaf."""
THINKING = 64
"""An ``ActionEvent`` with thinking blocks."""
UNKNOWN = 128


class BranchError(ValueError):
    """The parent links do not form a path to the leaf (missing id or a cycle)."""

    def __init__(self, index: int | None, message: str, missing: str | None = None) -> None:
        self.index = index
        self.missing = missing
        super().__init__(message)


@dataclass(slots=True, eq=False)
class ViewEntry:
    """What the view rules read of one event: a few ids and flags, a few hundred bytes."""

    pos: int
    """Position in the sequence the entries were made from; -1 for a placed summary."""
    id: str
    parent_id: str | None
    kind: str
    flags: int
    llm_response_id: str | None = None
    """Actions: the model response the call came from (its batch)."""
    tool_call_id: str | None = None
    """Actions and results: the call id."""
    condensation: Condensed | None = None
    """Condensations (and the summaries they place): what the condensation does."""
    path: Any = None
    """The name of the event's file in `events/`, when the entry was made from one (streaming)."""


@dataclass(slots=True, frozen=True)
class Condensed:
    """A ``Condensation``'s effect on the view, without the event."""

    id: str
    forgotten_event_ids: Sequence[str]
    summary: str | None
    summary_offset: int | None
    source: Any
    timestamp: str


def entry_of(event: Event, pos: int) -> ViewEntry:
    """The view entry of ``event``, at position ``pos`` of its sequence."""
    flags = 0
    response_id = call_id = condensed = None
    if isinstance(event, LLMConvertibleEvent):
        flags = LLM
        if isinstance(event, ActionEvent):
            flags |= ACTION | (THINKING if event.thinking_blocks else 0)
            response_id, call_id = event.llm_response_id, event.tool_call_id
        elif isinstance(event, ObservationBaseEvent):
            flags |= RESULT
            call_id = event.tool_call_id
        elif isinstance(event, CondensationSummaryEvent):
            flags |= SUMMARY
    elif isinstance(event, Condensation):
        flags = CONDENSATION
        condensed = Condensed(
            event.id,
            event.forgotten_event_ids,
            event.summary,
            event.summary_offset,
            event.source,
            event.timestamp,
        )
    elif isinstance(event, (ConversationStateUpdateEvent, ConversationErrorEvent)):
        flags = NOT_LEAF
    elif isinstance(event, UnknownEvent):
        flags = UNKNOWN
    return ViewEntry(
        pos, event.id, event.parent_id, event.kind, flags, response_id, call_id, condensed
    )


def summary_event(entry: ViewEntry) -> CondensationSummaryEvent:
    """The ``CondensationSummaryEvent`` a condensation places (``entry.pos == -1``)."""
    c = entry.condensation
    assert c is not None and c.summary is not None
    return CondensationSummaryEvent(
        id=entry.id, summary=c.summary, source=c.source, timestamp=c.timestamp
    )


def _events_of(entries: Sequence[ViewEntry], events: Sequence[Any]) -> list[Any]:
    return [events[e.pos] if e.pos >= 0 else summary_event(e) for e in entries]


def active_branch(
    events: Sequence[Event], *, leaf_event_id: str | None = None, head_is_empty: bool = False
) -> list[Event]:
    """The events from the root to the active leaf, oldest first.

    Duplicate ids keep their first occurrence (as the SDK does). Raises ``BranchError`` when
    the leaf or a parent id is missing, or the parent links loop.
    """
    entries = [entry_of(e, n) for n, e in enumerate(events)]
    branch = branch_entries(entries, leaf_event_id=leaf_event_id, head_is_empty=head_is_empty)
    return _events_of(branch, events)


def branch_entries(
    entries: Sequence[ViewEntry], *, leaf_event_id: str | None = None, head_is_empty: bool = False
) -> list[ViewEntry]:
    """``active_branch`` on entries (``BranchError.index`` is a position in ``entries``)."""
    leaf = _leaf_index(entries, leaf_event_id, head_is_empty)
    if leaf is None:
        return []
    if _is_linear(entries, leaf):  # the usual case: no index of ids (100k events: 8 MB)
        return list(entries[: leaf + 1])
    index: dict[str, int] = {}
    for n, e in enumerate(entries):
        index.setdefault(e.id, n)
    path: list[int] = []
    seen: set[int] = set()
    i: int | None = leaf
    while i is not None:
        if i in seen:
            raise BranchError(i, f"parent_id links loop back to event {entries[i].id!r}")
        seen.add(i)
        path.append(i)
        i = _parent_index(entries, index, i)
    return [entries[j] for j in reversed(path)]


def _leaf_index(
    entries: Sequence[ViewEntry], leaf_event_id: str | None, head_is_empty: bool
) -> int | None:
    if leaf_event_id is not None:
        leaf = next((n for n, e in enumerate(entries) if e.id == leaf_event_id), None)
        if leaf is None:  # (the first entry with the id: duplicates keep the first)
            message = f"leaf_event_id {leaf_event_id!r} is not an event id in the log"
            raise BranchError(None, message, leaf_event_id)
        return leaf
    if head_is_empty:
        return None
    for i in range(len(entries) - 1, -1, -1):
        if not entries[i].flags & NOT_LEAF:
            return i
    return None


def _is_linear(entries: Sequence[ViewEntry], leaf: int) -> bool:
    """Every event up to the leaf has the previous event as parent (the common case)."""
    if entries[0].parent_id not in (None, ROOT_PARENT):
        return False
    prev = entries[0].id
    for e in entries[1 : leaf + 1]:
        if e.parent_id is not None and e.parent_id != prev:
            return False
        prev = e.id
    return True


def _parent_index(entries: Sequence[ViewEntry], index: dict[str, int], i: int) -> int | None:
    parent = entries[i].parent_id
    if parent == ROOT_PARENT:
        return None
    if parent is None:
        return i - 1 if i > 0 else None
    if parent not in index:
        raise BranchError(i, f"parent_id {parent!r} is not an event id in the log", parent)
    return index[parent]


def full_view(branch: Sequence[Event]) -> list[LLMConvertibleEvent]:
    """Every LLM-convertible event of the branch, in order."""
    return [
        e
        for e in branch
        if isinstance(e, LLMConvertibleEvent) and not isinstance(e, CondensationSummaryEvent)
    ]


def full_entries(branch: Sequence[ViewEntry]) -> list[ViewEntry]:
    """``full_view`` on entries."""
    return [e for e in branch if e.flags & LLM and not e.flags & SUMMARY]


def condensed_view(
    branch: Sequence[Event], *, dropped: list[tuple[str, LLMConvertibleEvent]] | None = None
) -> list[LLMConvertibleEvent]:
    """The events the model saw after condensation (``View.from_events`` of SDK 1.58.2).

    Args:
        branch: the active branch, oldest first.
        dropped: when given, receives ``(property, event)`` for each event a property removed
            (condensation's own forgetting is not listed).
    """
    entries = [entry_of(e, n) for n, e in enumerate(branch)]
    removed: list[tuple[str, ViewEntry]] | None = None if dropped is None else []
    view = condensed_entries(entries, dropped=removed)
    if dropped is not None and removed:
        dropped.extend(
            zip((r for r, _ in removed), _events_of([e for _, e in removed], branch), strict=True)
        )
    return _events_of(view, branch)


def condensed_entries(
    branch: Sequence[ViewEntry], *, dropped: list[tuple[str, ViewEntry]] | None = None
) -> list[ViewEntry]:
    """``condensed_view`` on entries; a placed summary is an entry with ``pos == -1``."""
    view: list[ViewEntry] = []
    for e in branch:
        if e.flags & CONDENSATION:
            view = _apply_condensation(e, view)
        elif e.flags & LLM:
            view.append(e)
    return _enforce_properties(view, branch, dropped)


def apply_condensation(condensation: Condensation, view: Sequence[Any]) -> list[Any]:
    """``view`` (events in request order) after ``condensation``: its ids forgotten, its
    summary placed at ``summary_offset`` (the runtime's live view applies it through this).
    """
    entries = [entry_of(e, i) for i, e in enumerate(view)]
    return _events_of(_apply_condensation(entry_of(condensation, -1), entries), view)


def _apply_condensation(c: ViewEntry, view: list[ViewEntry]) -> list[ViewEntry]:
    assert c.condensation is not None
    info = c.condensation
    forgotten = set(info.forgotten_event_ids)
    out = [e for e in view if e.id not in forgotten]
    if info.summary is not None and info.summary_offset is not None:
        summary = ViewEntry(-1, f"{c.id}-summary", None, "CondensationSummaryEvent", LLM | SUMMARY)
        summary.condensation = info
        out.insert(info.summary_offset, summary)
    return out


_Property = Callable[[list[ViewEntry], Sequence[ViewEntry]], set[str]]


def _enforce_properties(
    view: list[ViewEntry],
    branch: Sequence[ViewEntry],
    dropped: list[tuple[str, ViewEntry]] | None,
) -> list[ViewEntry]:
    properties: tuple[_Property, ...] = (
        _observation_uniqueness,
        _batch_atomicity,
        _tool_call_matching,
        _tool_loop_atomicity,
    )
    changed = True
    while changed:
        changed = False
        for prop in properties:
            drop = prop(view, branch)
            if drop:
                if dropped is not None:
                    name = prop.__name__.strip("_").replace("_", " ")
                    dropped.extend((name, e) for e in view if e.id in drop)
                view = [e for e in view if e.id not in drop]
                changed = True
                break
    return view


def _observation_uniqueness(view: list[ViewEntry], branch: Sequence[ViewEntry]) -> set[str]:
    seen: set[str | None] = set()
    drop: set[str] = set()
    for e in view:
        if e.flags & RESULT:
            if e.tool_call_id in seen:
                drop.add(e.id)
            seen.add(e.tool_call_id)
    return drop


def _batches(entries: Sequence[ViewEntry]) -> dict[str | None, list[str]]:
    batches: dict[str | None, list[str]] = {}
    for e in entries:
        if e.flags & ACTION:
            batches.setdefault(e.llm_response_id, []).append(e.id)
    return batches


def _batch_atomicity(view: list[ViewEntry], branch: Sequence[ViewEntry]) -> set[str]:
    full = _batches(branch)
    drop: set[str] = set()
    for response_id, ids in _batches(view).items():
        if set(ids) != set(full.get(response_id, ())):
            drop.update(ids)
    return drop


def _tool_call_matching(view: list[ViewEntry], branch: Sequence[ViewEntry]) -> set[str]:
    actions = {e.tool_call_id for e in view if e.flags & ACTION}
    results = {e.tool_call_id for e in view if e.flags & RESULT}
    drop: set[str] = set()
    for e in view:
        if e.flags & ACTION:
            if e.tool_call_id not in results:
                drop.add(e.id)
        elif e.flags & RESULT and e.tool_call_id not in actions:
            drop.add(e.id)
    return drop


def _tool_loops(entries: Sequence[ViewEntry]) -> list[list[str]]:
    """Tool loops: a batch with thinking blocks plus the following action/result events."""
    position = {e.id: i for i, e in enumerate(entries)}
    ranges = []
    for ids in _batches(entries).values():
        idx = [position[i] for i in ids]
        thinking = any(entries[i].flags & THINKING for i in idx)
        ranges.append((min(idx), max(idx), thinking, ids))
    ranges.sort(key=lambda r: r[0])
    loops: list[list[str]] = []
    k = 0
    while k < len(ranges):
        _, end, thinking, ids = ranges[k]
        if not thinking:
            k += 1
            continue
        loop = list(ids)
        j = k + 1
        while j < len(ranges):
            between = entries[end + 1 : ranges[j][0]]
            if not all(e.flags & (ACTION | RESULT) for e in between):
                break
            loop.extend(e.id for e in between)
            loop.extend(ranges[j][3])
            end = ranges[j][1]
            j += 1
        scan = end + 1
        while scan < len(entries) and entries[scan].flags & RESULT:
            loop.append(entries[scan].id)
            scan += 1
        loops.append(loop)
        k = j
    return loops


def _tool_loop_atomicity(view: list[ViewEntry], branch: Sequence[ViewEntry]) -> set[str]:
    if not any(e.flags & THINKING for e in branch):
        return set()
    in_view = {e.id for e in view}
    drop: set[str] = set()
    for loop in _tool_loops(branch):
        present = [i for i in loop if i in in_view]
        if present and len(present) < len(loop):
            drop.update(present)
    return drop
