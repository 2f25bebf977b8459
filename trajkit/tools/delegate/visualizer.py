"""`DelegationVisualizer`: the default panels, titled with the agent each conversation belongs
to, so a delegating agent's and its sub-agents' output can be told apart.
"""

from __future__ import annotations

import re

from trajkit.events import ActionEvent, Event, MessageEvent, ObservationEvent, SystemPromptEvent
from trajkit.sdk.conversation.visualizer import DefaultConversationVisualizer

__all__ = ["DelegationVisualizer"]


class DelegationVisualizer(DefaultConversationVisualizer):
    """Panels titled ``<Name> Agent Action``, ``<Sender> Agent Message to <Name> Agent``...;
    each sub-agent's conversation gets its own, named after its task.
    """

    def __init__(self, name: str | None = None, **_: object) -> None:
        super().__init__()
        self.name = name

    def create_sub_visualizer(self, agent_id: str) -> DelegationVisualizer:
        return DelegationVisualizer(name=agent_id)

    def describe(self, event: Event) -> tuple[str, str, str] | None:
        shown = super().describe(event)
        if shown is None:
            return None
        title, body, colour = shown
        me = f"{_display(self.name or 'Agent')} Agent"
        if isinstance(event, SystemPromptEvent):
            title = f"{me} System Prompt"
        elif isinstance(event, ActionEvent):
            title = f"{me} Action" + (" (Not Executed)" if event.action is None else "")
        elif isinstance(event, ObservationEvent):
            title = f"{me} Observation"
        elif isinstance(event, MessageEvent):
            title = self._message_title(event, me)
        return title, body, colour

    def _message_title(self, event: MessageEvent, me: str) -> str:
        if event.source == "user":
            sender = f"{_display(event.sender)} Agent" if event.sender else "User"
            return f"{sender} Message to {me}"
        if event.source != "agent":
            return f"Message from {event.source.title()} to {me}"
        events = self._state.events if self._state is not None else []
        asker = next(
            (
                e.sender
                for e in reversed(events)
                if isinstance(e, MessageEvent) and e.source == "user"
            ),
            None,
        )
        return f"{me} Message to {_display(asker)} Agent" if asker else f"Message from {me} to User"


def _display(name: str) -> str:
    """An agent name as words in title case (``lodging_planner``, ``QuizHost`` -> ``Quiz Host``)."""
    if " " in name:
        return name
    if "_" in name:
        return name.replace("_", " ").title()
    return re.sub(r"(?<!^)(?=[A-Z])", " ", name).title()
