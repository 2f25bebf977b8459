"""Conversation visualizers: what a running conversation prints (the SDK's ``visualizer=``).

``Conversation(visualizer=...)`` takes a `ConversationVisualizerBase` subclass (instantiated
with no arguments; the default is `DefaultConversationVisualizer`), an instance (the SDK's
custom-visualizer pattern: subclass and implement `on_event`), or None for silence. The
visualizer sees each event first, before it is written and before the callbacks, as the SDK
orders them, so a failing callback never hides an event from the screen.

The default prints one panel per event with rich (imported on first use; the toolkit never
loads it): a title naming the event (``Message from User``, ``Agent Action``,
``Observation``...), its text, and under each model response the token and cost totals so
far. Secrets are already masked in observations; user messages are printed as typed.
"""

from __future__ import annotations

import contextlib
import json
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

from trajkit.events import (
    ActionEvent,
    AgentErrorEvent,
    Condensation,
    CondensationRequest,
    ConversationErrorEvent,
    Event,
    MessageEvent,
    ObservationEvent,
    PauseEvent,
    SystemPromptEvent,
    TextContent,
    UserRejectObservation,
)
from trajkit.redact import SecretMasker

if TYPE_CHECKING:
    from trajkit.sdk.conversation.state import ConversationState
    from trajkit.sdk.metrics import ConversationStats

__all__ = ["ConversationVisualizerBase", "DefaultConversationVisualizer"]

PANEL_CHARS = 4000
"""Longer texts are cut in the panel (the event on disk is whole)."""


class ConversationVisualizerBase(ABC):
    """Shows a conversation's events as they happen; subclass and implement `on_event`."""

    def __init__(self) -> None:
        self._state: ConversationState | None = None

    def initialize(self, state: ConversationState) -> None:
        """Called once by the conversation with its state (keep this in subclasses)."""
        self._state = state

    @property
    def conversation_stats(self) -> ConversationStats | None:
        """The conversation's LLM usage, once initialised."""
        return self._state.stats if self._state is not None else None

    @abstractmethod
    def on_event(self, event: Event) -> None:
        """Show one event."""

    def create_sub_visualizer(self, agent_id: str) -> ConversationVisualizerBase | None:
        """The visualizer of a sub-agent's conversation (``agent_id`` names it); None: silent."""
        del agent_id
        return None


def _texts(content: Any) -> str:
    return "\n".join(c.text for c in content or [] if isinstance(c, TextContent) and c.text)


def _cut(text: str) -> str:
    return text if len(text) <= PANEL_CHARS else text[:PANEL_CHARS] + "\n[... cut]"


_SILENT_RESULTS = frozenset({"FinishObservation", "ThinkObservation"})
"""Results that draw no panel, as in the SDK: ``finish`` and ``think`` say nothing new."""


def describe(event: Event) -> tuple[str, str, str] | None:
    """``(title, body, colour)`` for an event's panel, or None for events not shown."""
    if isinstance(event, SystemPromptEvent):
        names = ", ".join(t.title for t in event.tools)
        return "System Prompt", _cut(event.system_prompt.text) + f"\n\nTools: {names}", "magenta"
    if isinstance(event, MessageEvent):
        who = {"user": "User", "agent": "Agent"}.get(event.source, event.source.title())
        body = _texts(event.llm_message.content)
        extra = _texts(event.extended_content)
        if extra:
            body += f"\n\n{extra}"
        return f"Message from {who}", _cut(body), "green" if event.source == "user" else "blue"
    if isinstance(event, ActionEvent):
        thought = _texts(event.thought)
        call = event.tool_call
        args = call.arguments if call is not None else ""
        with contextlib.suppress(ValueError):
            args = json.dumps(json.loads(args), indent=2, ensure_ascii=False)
        body = (f"{thought}\n\n" if thought else "") + f"{event.tool_name}: {args}"
        return "Agent Action", _cut(body), "yellow"
    if isinstance(event, ObservationEvent):
        if event.observation.kind in _SILENT_RESULTS:
            return None
        body = _texts(event.to_llm_message().content)
        return "Observation", _cut(f"{event.tool_name}: {body}"), "cyan"
    if isinstance(event, UserRejectObservation):
        return "User Rejected Action", event.rejection_reason, "red"
    if isinstance(event, AgentErrorEvent):
        return "Agent Error", _cut(f"{event.tool_name}: {event.error}"), "red"
    if isinstance(event, ConversationErrorEvent):
        return f"Conversation Error ({event.code})", _cut(event.detail), "red"
    if isinstance(event, PauseEvent):
        return "User Paused", "The run stops after the current step.", "bright_black"
    if isinstance(event, CondensationRequest):
        return "Condensation Requested", "The history is condensed at the next step.", "white"
    if isinstance(event, Condensation):
        body = f"Forgot {len(event.forgotten_event_ids)} events.\n\n{event.summary or ''}"
        return "Condensation", _cut(body.strip()), "white"
    return None


class DefaultConversationVisualizer(ConversationVisualizerBase):
    """One rich panel per event, with token and cost totals under model responses."""

    def __init__(self) -> None:
        super().__init__()
        self._console: Any = None

    def describe(self, event: Event) -> tuple[str, str, str] | None:
        """``(title, body, colour)`` of the event's panel (`describe`), None to skip it."""
        return describe(event)

    def on_event(self, event: Event) -> None:
        shown = self.describe(event)
        if shown is None:
            return
        from rich.console import Console
        from rich.panel import Panel
        from rich.text import Text

        if self._console is None:
            self._console = Console(highlight=False)
        title, body, colour = shown
        if self._state is not None:  # a model may echo a key or secret: never printed
            body = SecretMasker(self._state.secret_values()).text(body)
        subtitle = self._usage_line() if event.source == "agent" else None
        self._console.print(
            Panel(
                Text(body),
                title=f"[bold {colour}]{title}[/]",
                title_align="left",
                subtitle=subtitle,
                subtitle_align="right",
                border_style=colour,
                expand=True,
            )
        )

    def _usage_line(self) -> str | None:
        stats = self.conversation_stats
        if stats is None:
            return None
        combined = stats.get_combined_metrics()
        usage, cost = combined.accumulated_token_usage, combined.accumulated_cost
        prompt, completion = (usage.prompt_tokens, usage.completion_tokens) if usage else (0, 0)
        if not (prompt or completion or cost):
            return None
        return f"tokens in {prompt:,} / out {completion:,} - ${cost:.4f}"
