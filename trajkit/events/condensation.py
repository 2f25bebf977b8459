"""Condensation events: what the model stops seeing, and the summary that replaces it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from trajkit.events.base import Event, LLMConvertibleEvent, Source
from trajkit.events.message import Message, TextContent


class Condensation(Event):
    """Forget events from the LLM view and optionally insert a summary."""

    source: Source = "environment"
    forgotten_event_ids: list[str] = Field(default_factory=list)
    """Ids removed from the view (a set in the SDK, written in no fixed order)."""
    summary: str | None = None
    """Summary of the forgotten events."""
    summary_offset: int | None = Field(default=None, ge=0)
    """Where the summary goes in the view, counted after removal."""
    llm_response_id: str
    """Response id of the condenser LLM call."""
    kind: Literal["Condensation"] = "Condensation"
    """Event class name."""


class CondensationRequest(Event):
    """Ask the condenser to run at the next step."""

    source: Source = "environment"
    kind: Literal["CondensationRequest"] = "CondensationRequest"
    """Event class name."""


class CondensationSummaryEvent(LLMConvertibleEvent):
    """A condensation summary placed in a view; never persisted."""

    source: Source = "environment"
    summary: str
    """The summary text."""
    kind: Literal["CondensationSummaryEvent"] = "CondensationSummaryEvent"
    """Event class name."""

    def to_llm_message(self) -> Message:
        """A user message holding the summary."""
        return Message(role="user", content=[TextContent(text=self.summary)])
