"""Task tool payloads (openhands-tools ``task``): a sub-agent started or resumed, and its result."""

from __future__ import annotations

from typing import Literal

from trajkit.events.message import ImageContent, TextContent
from trajkit.events.payloads.base import ERROR_HEADER, Action, Observation


class TaskAction(Action):
    """Run a sub-agent on a prompt, in a new conversation or one started before."""

    description: str | None = None
    """A few words naming the task."""
    prompt: str
    """What the sub-agent is asked to do."""
    subagent_type: str = "general-purpose"
    """The registered sub-agent type."""
    resume: str | None = None
    """The id of an earlier task whose conversation continues."""
    max_turns: int | None = None
    """Ignored (kept so older calls read)."""
    kind: Literal["TaskAction"] = "TaskAction"
    """Payload class name."""


class TaskObservation(Observation):
    """The sub-agent's final answer (``content``), or why it did not finish."""

    task_id: str
    """The task's id (``resume`` takes it)."""
    subagent: str
    """The sub-agent type."""
    status: str
    """``completed`` or ``error``."""
    kind: Literal["TaskObservation"] = "TaskObservation"
    """Payload class name."""

    def to_llm_content(self) -> list[TextContent | ImageContent]:
        """The task's id, type and status, then (after the error header on failure) the result."""
        out: list[TextContent | ImageContent] = [
            TextContent(
                text=f"Task ID: {self.task_id}\nSubagent: {self.subagent}\nStatus: {self.status}"
            )
        ]
        if self.is_error:
            out.append(TextContent(text=ERROR_HEADER))
        return [*out, *self.content]
