"""What an agent answered in the end: the SDK's ``get_agent_final_response``."""

from __future__ import annotations

from collections.abc import Sequence

from trajkit.events import ActionEvent, Event, FinishAction, MessageEvent, TextContent

__all__ = ["get_agent_final_response"]


def get_agent_final_response(events: Sequence[Event]) -> str:
    """The message of the agent's last ``finish`` call or the text of its last reply without
    tool calls, whichever came last; empty when there is neither.
    """
    for event in reversed(events):
        if (
            isinstance(event, ActionEvent)
            and event.source == "agent"
            and event.tool_name == "finish"
        ):
            return event.action.message if isinstance(event.action, FinishAction) else ""
        if isinstance(event, MessageEvent) and event.source == "agent":
            return "".join(c.text for c in event.llm_message.content if isinstance(c, TextContent))
    return ""
