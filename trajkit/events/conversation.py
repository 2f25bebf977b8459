"""Conversation-level events: system prompt, messages, pause/interrupt, state updates, errors,
hooks, completion logs, token ids, ACP tool calls.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import Field

from trajkit.events._model import StrictModel
from trajkit.events.base import Event, LLMConvertibleEvent, Source
from trajkit.events.message import Message, TextContent
from trajkit.events.tools import ToolDefinition

ErrorKind = Literal[
    "auth", "quota", "rate_limit", "config", "transient", "agent_action", "internal", "unknown"
]


class ErrorClassification(StrictModel):
    """How an error should be handled (since 1.40.0)."""

    kind: ErrorKind = "unknown"
    """Error category."""
    retryable: bool = False
    """Whether retrying may succeed."""
    user_action: Literal["none", "retry", "settings"] = "none"
    """What the user should do."""
    error_id: str | None = None
    """Stable error identifier."""


class CriticResult(StrictModel):
    """A critic's verdict on a message or action (since 1.9.0)."""

    score: float = Field(ge=0, le=1)
    """Score in [0, 1]."""
    message: str | None = None
    """Explanation (a required-but-nullable key, absent when None)."""
    metadata: dict[str, Any] | None = None
    """Critic-specific data."""


class SystemPromptEvent(LLMConvertibleEvent):
    """The system prompt and the tools offered to the LLM; normally the first event."""

    source: Source = "agent"
    system_prompt: TextContent
    """Static system prompt."""
    tools: list[ToolDefinition]
    """Tools offered to the LLM, in request order."""
    dynamic_context: TextContent | None = None
    """Per-conversation context sent after the static prompt (since 1.11.3)."""
    kind: Literal["SystemPromptEvent"] = "SystemPromptEvent"
    """Event class name."""

    def to_llm_message(self) -> Message:
        """A ``system`` message: the prompt, then the dynamic context when present."""
        content = [self.system_prompt]
        if self.dynamic_context is not None:
            content.append(self.dynamic_context)
        return Message(role="system", content=content)


class MessageEvent(LLMConvertibleEvent):
    """A user message, an agent reply without tool calls, or an environment nudge."""

    llm_message: Message
    """The message."""
    llm_response_id: str | None = None
    """Completion/response id, for agent messages."""
    activated_skills: list[str] = Field(default_factory=list)
    """Skills triggered by this message."""
    extended_content: list[TextContent] = Field(default_factory=list)
    """Text appended for the LLM (e.g. triggered skill content)."""
    sender: str | None = None
    """Sender name (since 1.2.0)."""
    critic_result: CriticResult | None = None
    """Critic verdict (since 1.9.0)."""
    kind: Literal["MessageEvent"] = "MessageEvent"
    """Event class name."""

    def to_llm_message(self) -> Message:
        """``llm_message`` with ``extended_content`` appended to its content."""
        if not self.extended_content:
            return self.llm_message
        return self.llm_message.model_copy(
            update={"content": [*self.llm_message.content, *self.extended_content]}
        )


class PauseEvent(Event):
    """The user paused the run."""

    source: Source = "user"
    kind: Literal["PauseEvent"] = "PauseEvent"
    """Event class name."""


class InterruptEvent(Event):
    """The user interrupted the run (since 1.23.0)."""

    source: Source = "user"
    kind: Literal["InterruptEvent"] = "InterruptEvent"
    """Event class name."""


class ConversationStateUpdateEvent(Event):
    """A change of a ConversationState field, forwarded into the event stream."""

    source: Source = "environment"
    key: str = Field(default_factory=lambda: str(uuid.uuid4()))
    """State field name, or ``full_state``, ``stats`` or ``goal``."""
    value: Any = Field(default_factory=dict)
    """The new value, serialized."""
    kind: Literal["ConversationStateUpdateEvent"] = "ConversationStateUpdateEvent"
    """Event class name."""


class ConversationErrorEvent(Event):
    """A run-level error (never shown to the LLM); sets status ``error``."""

    code: str
    """Error code, e.g. ``MaxIterationsReached`` or an exception class name."""
    detail: str
    """Human-readable detail."""
    classification: ErrorClassification | None = None
    """Error classification (since 1.40.0)."""
    kind: Literal["ConversationErrorEvent"] = "ConversationErrorEvent"
    """Event class name."""


class ServerErrorEvent(Event):
    """An agent-server error."""

    source: Source = "environment"
    code: str
    """Error code."""
    detail: str
    """Detail."""
    kind: Literal["ServerErrorEvent"] = "ServerErrorEvent"
    """Event class name."""


class HookExecutionEvent(Event):
    """A hook ran (since 1.13.0)."""

    source: Source = "hook"
    hook_event_type: Literal[
        "PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop"
    ]
    """Which hook point."""
    hook_command: str
    """The hook's command."""
    tool_name: str | None = None
    """Tool concerned, for tool hooks."""
    success: bool
    """Whether the hook succeeded."""
    blocked: bool = False
    """Whether it blocked the action or message."""
    exit_code: int
    """Hook exit code."""
    stdout: str = ""
    """Hook stdout."""
    stderr: str = ""
    """Hook stderr."""
    reason: str | None = None
    """Block reason."""
    additional_context: str | None = None
    """Context the hook added."""
    error: str | None = None
    """Error text."""
    action_id: str | None = None
    """Action concerned."""
    message_id: str | None = None
    """Message concerned."""
    hook_input: dict[str, Any] | None = None
    """Input given to the hook."""
    kind: Literal["HookExecutionEvent"] = "HookExecutionEvent"
    """Event class name."""


class LLMCompletionLogEvent(Event):
    """A completion log streamed from a remote server (since 1.3.0)."""

    source: Source = "environment"
    filename: str
    """Log file name."""
    log_data: str
    """JSON-encoded log."""
    model_name: str = "unknown"
    """Model."""
    usage_id: str = "default"
    """LLM usage id."""
    kind: Literal["LLMCompletionLogEvent"] = "LLMCompletionLogEvent"
    """Event class name."""


class TokenEvent(Event):
    """Prompt and response token ids (vLLM ``return_token_ids``)."""

    prompt_token_ids: list[int]
    """Prompt token ids."""
    response_token_ids: list[int]
    """Response token ids."""
    kind: Literal["TokenEvent"] = "TokenEvent"
    """Event class name."""


class StreamingDeltaEvent(Event):
    """A streaming delta; transient, normally never persisted."""

    source: Source = "agent"
    content: str | None = None
    """Text delta."""
    reasoning_content: str | None = None
    """Reasoning delta."""
    kind: Literal["StreamingDeltaEvent"] = "StreamingDeltaEvent"
    """Event class name."""


class ACPToolCallEvent(Event):
    """A tool call made by an external ACP agent (since 1.12.0)."""

    source: Source = "agent"
    tool_call_id: str
    """Call id."""
    title: str
    """Display title."""
    status: str | None = None
    """Call status."""
    tool_kind: str | None = None
    """ACP tool kind."""
    raw_input: Any = None
    """Raw input."""
    raw_output: Any = None
    """Raw output."""
    content: list[Any] | None = None
    """ACP content blocks."""
    is_error: bool = False
    """Whether the call failed."""
    kind: Literal["ACPToolCallEvent"] = "ACPToolCallEvent"
    """Event class name."""
