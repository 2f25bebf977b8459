"""Crash recovery: the one set of rules that both the runtime's restore (`Conversation(...)`
with a persisted id) and `trajkit repair` apply to a conversation a crash interrupted.

A process killed in the middle of a run can leave two things behind, and each has one answer:

1. **The head lags.** Each event is its own file the moment it happens, but `base_state.json`
   (which names the head, `leaf_event_id`) is saved once per step; a crash in between leaves
   the head on an older event. `head_after_crash` moves it to the newest complete event when
   that event continues from the recorded head, or when the recorded head names no event at
   all. A head on a deliberate side branch (the newest event does not descend from it) stays.
   State-update and conversation-error events never become the head (the SDK's rule).
2. **A tool call is unanswered.** The process died while the tool ran, so the action has no
   result and the LLM would be sent a dangling call. `unanswered_calls` lists the actions of
   the active branch without an observation, rejection or error; `interrupted_call_result`
   is the one error result written for each (`RESTART_ERROR`, classification `internal`), so
   the model is always told the same thing, by the runtime or by repair.

Works on typed events (`trajkit.events`, plus `trajkit.convert`'s branch walk); does no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trajkit.events import (
    ROOT_PARENT,
    ActionEvent,
    AgentErrorEvent,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    ErrorClassification,
    Event,
    ObservationEvent,
    UserRejectObservation,
)

__all__ = [
    "RESTART_ERROR",
    "HeadMove",
    "head_after_crash",
    "interrupted_call_result",
    "recovery_branch",
    "unanswered_calls",
]

RESTART_ERROR = (
    "A restart occurred while this tool was in progress. The tool call was interrupted and "
    "its result is unknown; check the current state before retrying it."
)
"""The error text the LLM is sent for an action a crash interrupted."""


@dataclass(frozen=True)
class HeadMove:
    """Where the head goes after a crash, and why (``reason`` is None when it stays)."""

    head: str | None
    reason: str | None = None


def _can_be_head(event: Event) -> bool:
    return not isinstance(event, ConversationStateUpdateEvent | ConversationErrorEvent)


def _parents(events: Sequence[Event]) -> dict[str, str | None]:
    """Parent of each event; a legacy event (no ``parent_id``) continues the one before it."""
    parents: dict[str, str | None] = {}
    prev: str | None = None
    for ev in events:
        parent = ev.parent_id
        parents[ev.id] = prev if parent is None else (None if parent == ROOT_PARENT else parent)
        prev = ev.id
    return parents


def _ancestors(event_id: str, parents: dict[str, str | None]) -> set[str]:
    seen: set[str] = set()
    node: str | None = event_id
    while node is not None and node not in seen:
        seen.add(node)
        node = parents.get(node)
    return seen


def head_after_crash(
    events: Sequence[Event], leaf_event_id: str | None, *, head_is_empty: bool = False
) -> HeadMove:
    """The head after recovery for the recorded ``leaf_event_id`` (see the module docstring)."""
    candidates = [ev for ev in events if _can_be_head(ev)]
    if leaf_event_id is None or not candidates:
        return HeadMove(leaf_event_id)  # no head recorded: readers take the newest event
    last = candidates[-1].id
    if leaf_event_id not in {ev.id for ev in events}:
        reason = f"head {leaf_event_id!r} names no complete event"
    elif last != leaf_event_id and leaf_event_id in _ancestors(last, _parents(events)):
        reason = f"head {leaf_event_id!r} lags behind later events that continue from it"
    else:
        return HeadMove(leaf_event_id)
    return HeadMove(last, reason)


def recovery_branch(
    events: Sequence[Event], head: str | None, *, head_is_empty: bool = False
) -> list[Event]:
    """The active branch ending at ``head`` (`trajkit.convert.active_branch`); every event
    when the parent links are broken, so a damaged log still gets its calls answered.
    """
    from trajkit.convert.view import BranchError, active_branch

    try:
        return active_branch(events, leaf_event_id=head, head_is_empty=head_is_empty)
    except BranchError:
        return list(events)


def unanswered_calls(branch: Sequence[Event]) -> list[ActionEvent]:
    """Actions of ``branch`` that no observation, rejection or error answers, in order."""
    answered = {
        ev.tool_call_id
        for ev in branch
        if isinstance(ev, ObservationEvent | UserRejectObservation | AgentErrorEvent)
    }
    out: list[ActionEvent] = []
    for ev in branch:
        if isinstance(ev, ActionEvent) and ev.tool_call_id not in answered:
            answered.add(ev.tool_call_id)
            out.append(ev)
    return out


def interrupted_call_result(
    tool_name: str, tool_call_id: str, parent_id: str | None = None
) -> AgentErrorEvent:
    """The error result recorded for a tool call a crash interrupted."""
    return AgentErrorEvent(
        tool_name=tool_name,
        tool_call_id=tool_call_id,
        error=RESTART_ERROR,
        classification=ErrorClassification(kind="internal", retryable=False),
        parent_id=parent_id,
    )
