"""Stuck detection: does the agent repeat itself since the last user message?

The four patterns and thresholds are the SDK's ``StuckDetector``:

1. the same action followed by the same observation, 4 times in a row;
2. the same action followed by the same error, 3 times in a row;
3. a monologue: 3 agent messages in a row with no tool call and no user message between;
4. an A-B-A-B-A-B alternation of two action/observation pairs (6 pairs).

Events are compared without their ids, timestamps and tool-call ids: an action by its tool name
and payload (or the raw arguments when it could not be parsed), a result by its observation
payload, rejection reason or error text. Only the events after the last user message count, so
a user who answers gets a fresh start. `detect_stuck` returns a `StuckVerdict` saying which
pattern matched, or None.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from trajkit.events import (
    ActionEvent,
    AgentErrorEvent,
    Event,
    MessageEvent,
    ObservationEvent,
    UserRejectObservation,
)

__all__ = [
    "StuckDetectionThresholds",
    "StuckDetector",
    "StuckThresholds",
    "StuckVerdict",
    "detect_stuck",
    "parse_stuck_thresholds",
]


@dataclass(frozen=True)
class StuckThresholds:
    """How many repetitions make each pattern (the SDK's defaults)."""

    action_observation: int = 4
    action_error: int = 3
    monologue: int = 3
    alternating_pattern: int = 6


@dataclass(frozen=True)
class StuckVerdict:
    """Why the conversation is considered stuck."""

    pattern: str
    """``action_observation``, ``action_error``, ``monologue`` or ``alternating_pattern``."""
    detail: str
    """A sentence for logs and error events."""


_Result = ObservationEvent | AgentErrorEvent | UserRejectObservation


def _action_key(event: ActionEvent) -> tuple[Any, ...]:
    payload = (
        event.action.model_dump_json() if event.action is not None else event.tool_call.arguments
    )
    return (event.tool_name, payload)


def _result_key(event: _Result) -> tuple[Any, ...]:
    if isinstance(event, ObservationEvent):
        return ("observation", event.tool_name, event.observation.model_dump_json())
    if isinstance(event, AgentErrorEvent):
        return ("error", event.tool_name, event.error)
    return ("rejected", event.tool_name, event.rejection_reason)


def _since_last_user_message(events: Sequence[Event]) -> Sequence[Event]:
    for i in range(len(events) - 1, -1, -1):
        event = events[i]
        if isinstance(event, MessageEvent) and event.source == "user":
            return events[i + 1 :]
    return events


def _pairs(events: Sequence[Event]) -> list[tuple[ActionEvent, _Result]]:
    """Action/result pairs in order (matched by tool_call_id)."""
    actions: dict[str, ActionEvent] = {}
    pairs: list[tuple[ActionEvent, _Result]] = []
    for event in events:
        if isinstance(event, ActionEvent):
            actions[event.tool_call_id] = event
        elif isinstance(event, ObservationEvent | AgentErrorEvent | UserRejectObservation):
            action = actions.pop(event.tool_call_id, None)
            if action is not None:
                pairs.append((action, event))
    return pairs


def _same(keys: Sequence[Any]) -> bool:
    return len(keys) > 0 and all(k == keys[0] for k in keys)


def detect_stuck(
    events: Sequence[Event], thresholds: StuckThresholds | None = None
) -> StuckVerdict | None:
    """The pattern the recent events repeat, or None."""
    t = thresholds or StuckThresholds()
    recent = _since_last_user_message(events)
    pairs = _pairs(recent)
    keys = [(_action_key(a), _result_key(r)) for a, r in pairs]

    if _repeated(keys, t.action_observation, "observation"):
        return StuckVerdict(
            "action_observation",
            f"the same action and observation repeated {t.action_observation} times "
            f"({pairs[-1][0].tool_name})",
        )
    if _repeated(keys, t.action_error, "error"):
        return StuckVerdict(
            "action_error",
            f"the same action failed with the same error {t.action_error} times in a row",
        )
    if _monologue(recent, t.monologue):
        return StuckVerdict(
            "monologue", f"{t.monologue} agent messages in a row without tools or user input"
        )
    n = t.alternating_pattern
    tail = keys[-n:]
    if len(tail) == n and _same(tail[0::2]) and _same(tail[1::2]) and tail[0] != tail[1]:
        return StuckVerdict(
            "alternating_pattern", f"two action/observation pairs alternating for {n} steps"
        )
    return None


def _repeated(keys: Sequence[tuple[Any, ...]], n: int, result: str) -> bool:
    """The last ``n`` pairs are one and the same, and their result is a ``result``."""
    tail = keys[-n:]
    return len(tail) == n and _same(tail) and tail[0][1][0] == result


def _monologue(events: Sequence[Event], threshold: int) -> bool:
    count = 0
    for event in reversed(events):
        if isinstance(event, MessageEvent):
            if event.source == "agent":
                count += 1
                if count >= threshold:
                    return True
                continue
            return False
        if isinstance(event, ActionEvent | ObservationEvent | AgentErrorEvent):
            return False
    return False


StuckDetectionThresholds = StuckThresholds
"""The SDK's name for the thresholds."""


def parse_stuck_thresholds(
    value: StuckThresholds | Mapping[str, int] | None,
) -> StuckThresholds | None:
    """Thresholds from the object or the SDK's dict form (``{"action_observation": 2}``).

    Raises:
        ValueError: an unknown pattern name, or a count below 2 (a single step repeats
            nothing).
    """
    if value is None or isinstance(value, StuckThresholds):
        return value
    known = {f.name for f in fields(StuckThresholds)}
    unknown = sorted(set(value) - known)
    if unknown:
        raise ValueError(
            f"stuck_detection_thresholds: unknown pattern {', '.join(unknown)}; "
            f"expected some of {', '.join(sorted(known))}"
        )
    for name, count in value.items():
        if not isinstance(count, int) or isinstance(count, bool) or count < 2:
            raise ValueError(
                f"stuck_detection_thresholds[{name!r}] must be an integer >= 2, got {count!r}"
            )
    return StuckThresholds(**dict(value))


class StuckDetector:
    """``conversation.stuck_detector``: the thresholds and a check of the active branch."""

    def __init__(self, events: Callable[[], Sequence[Event]], thresholds: StuckThresholds) -> None:
        self._events = events
        self.thresholds = thresholds

    def is_stuck(self) -> bool:
        """Whether the recent events repeat a pattern."""
        return detect_stuck(self._events(), self.thresholds) is not None

    def verdict(self) -> StuckVerdict | None:
        """Which pattern repeats and why, or None."""
        return detect_stuck(self._events(), self.thresholds)
