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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from trajkit.events import (
    ActionEvent,
    Condensation,
    CondensationSummaryEvent,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    Event,
    LLMConvertibleEvent,
)
from trajkit.events.base import ROOT_PARENT
from trajkit.events.tool_events import ObservationBaseEvent

__all__ = ["BranchError", "active_branch", "condensed_view", "full_view"]


class BranchError(ValueError):
    """The parent links do not form a path to the leaf (missing id or a cycle)."""

    def __init__(self, index: int | None, message: str, missing: str | None = None) -> None:
        self.index = index
        self.missing = missing
        super().__init__(message)


def active_branch(
    events: Sequence[Event], *, leaf_event_id: str | None = None, head_is_empty: bool = False
) -> list[Event]:
    """The events from the root to the active leaf, oldest first.

    Duplicate ids keep their first occurrence (as the SDK does). Raises ``BranchError`` when
    the leaf or a parent id is missing, or the parent links loop.
    """
    index: dict[str, int] = {}
    for n, e in enumerate(events):
        index.setdefault(e.id, n)
    leaf = _leaf_index(events, index, leaf_event_id, head_is_empty)
    if leaf is None:
        return []
    if _is_linear(events, leaf):
        return list(events[: leaf + 1])
    path: list[int] = []
    seen: set[int] = set()
    i: int | None = leaf
    while i is not None:
        if i in seen:
            raise BranchError(i, f"parent_id links loop back to event {events[i].id!r}")
        seen.add(i)
        path.append(i)
        i = _parent_index(events, index, i)
    return [events[j] for j in reversed(path)]


def _leaf_index(
    events: Sequence[Event], index: dict[str, int], leaf_event_id: str | None, head_is_empty: bool
) -> int | None:
    if leaf_event_id is not None:
        if leaf_event_id not in index:
            message = f"leaf_event_id {leaf_event_id!r} is not an event id in the log"
            raise BranchError(None, message, leaf_event_id)
        return index[leaf_event_id]
    if head_is_empty:
        return None
    for i in range(len(events) - 1, -1, -1):
        if not isinstance(events[i], (ConversationStateUpdateEvent, ConversationErrorEvent)):
            return i
    return None


def _is_linear(events: Sequence[Event], leaf: int) -> bool:
    """Every event up to the leaf has the previous event as parent (the common case)."""
    if events[0].parent_id not in (None, ROOT_PARENT):
        return False
    prev = events[0].id
    for e in events[1 : leaf + 1]:
        if e.parent_id is not None and e.parent_id != prev:
            return False
        prev = e.id
    return True


def _parent_index(events: Sequence[Event], index: dict[str, int], i: int) -> int | None:
    parent = events[i].parent_id
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


def condensed_view(
    branch: Sequence[Event], *, dropped: list[tuple[str, LLMConvertibleEvent]] | None = None
) -> list[LLMConvertibleEvent]:
    """The events the model saw after condensation (``View.from_events`` of SDK 1.58.2).

    Args:
        branch: the active branch, oldest first.
        dropped: when given, receives ``(property, event)`` for each event a property removed
            (condensation's own forgetting is not listed).
    """
    view: list[LLMConvertibleEvent] = []
    for e in branch:
        if isinstance(e, Condensation):
            view = _apply_condensation(e, view)
        elif isinstance(e, LLMConvertibleEvent):
            view.append(e)
    return _enforce_properties(view, branch, dropped)


def _apply_condensation(
    c: Condensation, view: list[LLMConvertibleEvent]
) -> list[LLMConvertibleEvent]:
    forgotten = set(c.forgotten_event_ids)
    out = [e for e in view if e.id not in forgotten]
    if c.summary is not None and c.summary_offset is not None:
        summary = CondensationSummaryEvent(
            id=f"{c.id}-summary", summary=c.summary, source=c.source, timestamp=c.timestamp
        )
        out.insert(c.summary_offset, summary)
    return out


_Property = Callable[[list[LLMConvertibleEvent], Sequence[Event]], set[str]]


def _enforce_properties(
    view: list[LLMConvertibleEvent],
    branch: Sequence[Event],
    dropped: list[tuple[str, LLMConvertibleEvent]] | None,
) -> list[LLMConvertibleEvent]:
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


def _observation_uniqueness(view: list[LLMConvertibleEvent], branch: Sequence[Event]) -> set[str]:
    seen: set[str] = set()
    drop: set[str] = set()
    for e in view:
        if isinstance(e, ObservationBaseEvent):
            if e.tool_call_id in seen:
                drop.add(e.id)
            seen.add(e.tool_call_id)
    return drop


def _batches(events: Sequence[Event]) -> dict[str, list[str]]:
    batches: dict[str, list[str]] = {}
    for e in events:
        if isinstance(e, ActionEvent):
            batches.setdefault(e.llm_response_id, []).append(e.id)
    return batches


def _batch_atomicity(view: list[LLMConvertibleEvent], branch: Sequence[Event]) -> set[str]:
    full = _batches(branch)
    drop: set[str] = set()
    for response_id, ids in _batches(view).items():
        if set(ids) != set(full.get(response_id, ())):
            drop.update(ids)
    return drop


def _tool_call_matching(view: list[LLMConvertibleEvent], branch: Sequence[Event]) -> set[str]:
    actions = {e.tool_call_id for e in view if isinstance(e, ActionEvent)}
    results = {e.tool_call_id for e in view if isinstance(e, ObservationBaseEvent)}
    drop: set[str] = set()
    for e in view:
        if isinstance(e, ActionEvent):
            if e.tool_call_id not in results:
                drop.add(e.id)
        elif isinstance(e, ObservationBaseEvent) and e.tool_call_id not in actions:
            drop.add(e.id)
    return drop


def _has_thinking(e: Event) -> bool:
    return isinstance(e, ActionEvent) and bool(e.thinking_blocks)


def _tool_loops(events: Sequence[Event]) -> list[list[str]]:
    """Tool loops: a batch with thinking blocks plus the following action/result events."""
    position = {e.id: i for i, e in enumerate(events)}
    ranges = []
    for ids in _batches(events).values():
        idx = [position[i] for i in ids]
        thinking = any(_has_thinking(events[i]) for i in idx)
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
            between = events[end + 1 : ranges[j][0]]
            if not all(isinstance(e, (ActionEvent, ObservationBaseEvent)) for e in between):
                break
            loop.extend(e.id for e in between)
            loop.extend(ranges[j][3])
            end = ranges[j][1]
            j += 1
        scan = end + 1
        while scan < len(events) and isinstance(events[scan], ObservationBaseEvent):
            loop.append(events[scan].id)
            scan += 1
        loops.append(loop)
        k = j
    return loops


def _tool_loop_atomicity(view: list[LLMConvertibleEvent], branch: Sequence[Event]) -> set[str]:
    if not any(_has_thinking(e) for e in branch):
        return set()
    in_view = {e.id for e in view}
    drop: set[str] = set()
    for loop in _tool_loops(branch):
        present = [i for i in loop if i in in_view]
        if present and len(present) < len(loop):
            drop.update(present)
    return drop
