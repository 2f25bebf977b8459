"""`DelegationVisualizer`: the default panels, titled with the agent each conversation belongs
to, so a delegating agent's and its sub-agents' output can be told apart.
"""

from __future__ import annotations

import re

from trajkit.events import ActionEvent, Event, MessageEvent, ObservationEvent, SystemPromptEvent
from trajkit.sdk.conversation.visualizer import DefaultConversationVisualizer

__all__ = ["DelegationVisualizer"]


class DelegationVisualizer(DefaultConversationVisualizer):
    """Panels titled ``<Name> Agent Action``, ``Message from <Name> to ...``; each sub-agent's
    conversation gets its own, named after its task.
    """

    def __init__(self, name: str | None = None, **_: object) -> None:
        super().__init__()
        self.name = name

    def create_sub_visualizer(self, agent_id: str) -> DelegationVisualizer:
        return DelegationVisualizer(name=agent_id)

    @property
    def agent_name(self) -> str:
        """``name`` as words in title case (``lodging_planner`` -> ``Lodging Planner``)."""
        name = self.name or "Agent"
        if " " in name:
            return name
        if "_" in name:
            return name.replace("_", " ").title()
        return re.sub(r"(?<!^)(?=[A-Z])", " ", name).title()

    def describe(self, event: Event) -> tuple[str, str, str] | None:
        shown = super().describe(event)
        if shown is None:
            return None
        title, body, colour = shown
        who = self.agent_name
        if isinstance(event, MessageEvent):
            sender = event.sender or ("User" if event.source == "user" else who)
            title = (
                f"Message from {sender} to {who}" if event.source == "user" else f"{who} Message"
            )
        elif isinstance(event, SystemPromptEvent | ActionEvent | ObservationEvent):
            title = f"{who} Agent {title.removeprefix('Agent ')}"
        return title, body, colour
