"""``LLMSummarizingCondenser``: keep a long history within bounds by summarising its middle.

Behaviour of openhands-sdk 1.58.2's condenser of the same name (checked against recordings in
``tests/sdk/parity``):

- It runs at the start of an agent step, on the condensed view the step would send (the
  active branch through `trajkit.convert.condensed_view`). It condenses when the view holds
  more than ``max_size`` events, or when a ``CondensationRequest`` (``conversation.condense()``,
  or a context-window overflow) has no ``Condensation`` after it.
- What is forgotten: from ``keep_first`` (never before the system prompt) up to the point
  that leaves ``max_size // 2 - keep_first - 1`` events at the tail (``len(view) // 2 -
  keep_first - 1`` for a request). Both ends move forward to the next safe cut, one where no
  tool call is left without its result, so an action and its observation go together.
- The forgotten events are summarised by the condenser's own LLM (its own ``usage_id``, so
  its cost is listed apart in ``conversation_stats``) and recorded as a ``Condensation``
  (forgotten ids, summary, ``summary_offset`` = where the kept prefix ends). The step ends
  there; the next step sends the condensed view, which is what ``trajkit convert --view
  condensed`` rebuilds from the files, and what a restored conversation continues from.
- Fewer than ``minimum_progress`` of the view to forget (or nothing at all): no condensation
  for the size rule; a request then summarises everything after the system prompt.

The summarising prompt is trajkit's own wording.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trajkit.events import (
    ActionEvent,
    Condensation,
    CondensationRequest,
    Event,
    LLMConvertibleEvent,
    Message,
    SystemPromptEvent,
    TextContent,
)
from trajkit.events.tool_events import ObservationBaseEvent
from trajkit.sdk.llm import LLM

__all__ = ["LLMSummarizingCondenser", "NoCondensationAvailable", "safe_cuts"]

SUMMARY_INSTRUCTIONS = """You maintain the memory of a software agent whose history has grown \
too long. You receive the part of the history that will be removed. Write a summary the agent \
can continue from: the user's goal and constraints, what was done and found (files, commands, \
results, errors), decisions taken, and what is left to do. Keep names, paths and numbers \
exactly; leave out chatter. Answer with the summary only."""
EVENT_CHARS = 4000
"""Each forgotten event is cut to this many characters in the summarising request."""


class NoCondensationAvailable(Exception):
    """Nothing can be forgotten without splitting a tool call from its result."""


def unhandled_request(branch: Sequence[Event]) -> bool:
    """A ``CondensationRequest`` with no ``Condensation`` after it."""
    for e in reversed(branch):
        if isinstance(e, Condensation):
            return False
        if isinstance(e, CondensationRequest):
            return True
    return False


def safe_cuts(view: Sequence[LLMConvertibleEvent]) -> list[int]:
    """Indices ``i`` where ``view[:i]`` / ``view[i:]`` splits no tool call from its result."""
    cuts = [0]
    open_calls: dict[str, int] = {}
    for i, e in enumerate(view, start=1):
        if isinstance(e, ActionEvent):
            open_calls[e.tool_call_id] = open_calls.get(e.tool_call_id, 0) + 1
        elif isinstance(e, ObservationBaseEvent) and open_calls.get(e.tool_call_id):
            open_calls[e.tool_call_id] -= 1
        if not any(open_calls.values()):
            cuts.append(i)
    return cuts


def _next_cut(cuts: Sequence[int], i: int) -> int:
    return next((c for c in cuts if c >= i), cuts[-1])


def describe_event(event: LLMConvertibleEvent) -> str:
    """One forgotten event as plain text for the summarising request."""
    message = event.to_llm_message()
    parts = [f"[{event.kind} from {event.source}]"]
    for c in message.content:
        if isinstance(c, TextContent) and c.text:
            parts.append(c.text)
    for call in message.tool_calls or []:
        parts.append(f"calls {call.name}({call.arguments})")
    text = "\n".join(parts)
    return text if len(text) <= EVENT_CHARS else text[:EVENT_CHARS] + " [...]"


class LLMSummarizingCondenser(BaseModel):
    """Summarise the middle of the history with an LLM when it grows past ``max_size``."""

    model_config = ConfigDict(extra="ignore", use_attribute_docstrings=True)

    llm: LLM
    """The summarising LLM (give it its own ``usage_id``)."""
    max_size: int = Field(default=240, gt=0)
    """Events in the view above which it condenses."""
    max_tokens: int | None = None
    """Kept for compatibility (token-based condensing is not done)."""
    keep_first: int = Field(default=2, ge=0)
    """Events at the start that are never forgotten."""
    minimum_progress: float = Field(default=0.1, gt=0.0, lt=1.0)
    """Smallest share of the view worth condensing."""
    hard_context_reset_max_retries: int = Field(default=5, gt=0)
    """Attempts at summarising everything (kept for compatibility)."""
    hard_context_reset_context_scaling: float = Field(default=0.8, gt=0.0, lt=1.0)
    """Shrink factor between those attempts (kept for compatibility)."""
    kind: Literal["LLMSummarizingCondenser"] = "LLMSummarizingCondenser"
    """Condenser class name."""

    @model_validator(mode="after")
    def _room_to_condense(self) -> LLMSummarizingCondenser:
        if self.max_size // 2 - self.keep_first - 1 <= 0:
            raise ValueError(
                f"keep_first ({self.keep_first}) must be less than max_size // 2 - 1 "
                f"({self.max_size // 2 - 1}) to leave room for condensation"
            )
        return self

    def handles_condensation_requests(self) -> bool:
        """Whether ``conversation.condense()`` can use it (always)."""
        return True

    def condense(
        self, view: Sequence[LLMConvertibleEvent], branch: Sequence[Event]
    ) -> Condensation | None:
        """The condensation this step needs, or None (see the module docstring)."""
        requested = unhandled_request(branch)
        if not requested and len(view) <= self.max_size:
            return None
        tails = []
        if requested:
            tails.append(len(view) // 2 - self.keep_first - 1)
        if len(view) > self.max_size:
            tails.append(self.max_size // 2 - self.keep_first - 1)
        keep_tail = max(0, min(tails))
        prefix = self.keep_first
        system = next((i for i, e in enumerate(view) if isinstance(e, SystemPromptEvent)), None)
        if system is not None:
            prefix = max(prefix, system + 1)
        cuts = safe_cuts(view)
        start = _next_cut(cuts, prefix)
        end = _next_cut(cuts, len(view) - keep_tail)
        forgotten = list(view[start:end])
        if not forgotten or len(forgotten) < len(view) * self.minimum_progress:
            if not requested:
                return None
            start = prefix if system is None else system + 1
            forgotten = list(view[start:])
            if not forgotten:
                return None
        return self._summarise(forgotten, start)

    def _summarise(self, forgotten: list[LLMConvertibleEvent], offset: int) -> Condensation:
        events = "\n\n".join(describe_event(e) for e in forgotten)
        messages = [
            Message(role="system", content=[TextContent(text=SUMMARY_INSTRUCTIONS)]),
            Message(role="user", content=[TextContent(text=f"History to summarise:\n\n{events}")]),
        ]
        response = self.llm.call(messages)
        text = "".join(c.text for c in response.message.content if isinstance(c, TextContent))
        return Condensation(
            forgotten_event_ids=[e.id for e in forgotten],
            summary=text or None,
            summary_offset=offset,
            llm_response_id=response.id,
        )
