"""What counts as a failed step: the one rule the report, `stats`, `ls` and `export` share.

A step failed when the event is
- an agent error, a conversation or server error (`AgentErrorEvent`, `ConversationErrorEvent`,
  `ServerErrorEvent`), or a rejected tool call (`UserRejectObservation`);
- a tool result flagged `is_error`, or a terminal result whose exit code is known and not 0
  (`exit_code`, else the session metadata's when it is not -1, "unknown");
- a hook that failed or blocked the action, or an ACP tool call flagged `is_error`.
"""

from __future__ import annotations

from trajkit.events.base import Event
from trajkit.events.payloads import TerminalObservation

__all__ = ["exit_code", "is_failed_step"]

_ERROR_KINDS = frozenset(
    {"AgentErrorEvent", "ConversationErrorEvent", "ServerErrorEvent", "UserRejectObservation"}
)


def is_failed_step(event: Event) -> bool:
    """True when `event` records a failed step (see the module docstring)."""
    kind = event.kind
    if kind in _ERROR_KINDS:
        return True
    get = event.__dict__.get
    if kind == "ObservationEvent":
        observation = get("observation")
        if getattr(observation, "is_error", False):
            return True
        return isinstance(observation, TerminalObservation) and exit_code(observation) not in (
            None,
            0,
        )
    if kind == "HookExecutionEvent":
        return bool(get("blocked")) or not get("success", True)
    return kind == "ACPToolCallEvent" and bool(get("is_error"))


def exit_code(observation: TerminalObservation) -> int | None:
    """The command's exit code when known: `exit_code`, else the metadata's unless -1."""
    if observation.exit_code is not None:
        return observation.exit_code
    code = observation.metadata.exit_code
    return None if code == -1 else code
