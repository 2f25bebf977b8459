"""Tool-call events: ``ActionEvent`` and the results that answer it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import Field

from trajkit.events.base import LLMConvertibleEvent, Source
from trajkit.events.conversation import CriticResult, ErrorClassification
from trajkit.events.message import (
    ImageContent,
    Message,
    MessageToolCall,
    ReasoningItemModel,
    TextContent,
    ThinkingBlockType,
    built_message,
)
from trajkit.events.payloads import AnyAction, AnyObservation

SecurityRisk = Literal["UNKNOWN", "LOW", "MEDIUM", "HIGH"]


class ActionEvent(LLMConvertibleEvent):
    """One tool call of an LLM response (all calls of a response share ``llm_response_id``)."""

    source: Source = "agent"
    thought: list[TextContent]
    """Assistant text; only on the first call of a response."""
    reasoning_content: str | None = None
    """Reasoning text (first call of a response only)."""
    thinking_blocks: list[ThinkingBlockType] = Field(default_factory=list)
    """Anthropic thinking blocks (first call only)."""
    responses_reasoning_item: ReasoningItemModel | None = None
    """Responses reasoning item (first call only)."""
    action: AnyAction | None = None
    """The parsed action; absent when the call could not be executed."""
    tool_name: str
    """Tool name as the LLM sees it."""
    tool_call_id: str
    """Call id."""
    tool_call: MessageToolCall
    """The call as the LLM sent it (arguments may hold summary/security_risk)."""
    llm_response_id: str
    """Id of the LLM response that made this call."""
    security_risk: SecurityRisk = "UNKNOWN"
    """Predicted risk (kept only with a security analyzer)."""
    critic_result: CriticResult | None = None
    """Critic verdict (since 1.9.0)."""
    summary: str | None = None
    """Short summary of the action (since 1.8.0)."""
    kind: Literal["ActionEvent"] = "ActionEvent"
    """Event class name."""

    def to_llm_message(self) -> Message:
        """An assistant message with this single tool call."""
        return action_message((self,))


class ObservationBaseEvent(LLMConvertibleEvent):
    """A result answering a tool call."""

    abstract = True

    source: Source = "environment"
    tool_name: str
    """Tool name."""
    tool_call_id: str
    """The call being answered."""

    def llm_content(self) -> list[TextContent | ImageContent]:
        """The content of its tool message."""
        raise NotImplementedError

    def to_llm_message(self) -> Message:
        """A tool message: ``llm_content`` answering ``tool_call_id`` for ``tool_name``."""
        return built_message(
            "tool", self.llm_content(), tool_call_id=self.tool_call_id, name=self.tool_name
        )


class ObservationEvent(ObservationBaseEvent):
    """The result of an executed action."""

    observation: AnyObservation
    """The tool's observation payload."""
    action_id: str
    """Id of the ActionEvent."""
    extended_content: list[TextContent] = Field(default_factory=list)
    """Text appended after the result (path rules, since 1.34.0)."""
    kind: Literal["ObservationEvent"] = "ObservationEvent"
    """Event class name."""

    def llm_content(self) -> list[TextContent | ImageContent]:
        """The observation's rendering, then ``extended_content``."""
        return [*self.observation.to_llm_content(), *self.extended_content]


class UserRejectObservation(ObservationBaseEvent):
    """The user or a hook rejected an action."""

    rejection_reason: str = "User rejected the action"
    """Why."""
    rejection_source: Literal["user", "hook"] = "user"
    """Who rejected it (since 1.11.3)."""
    action_id: str
    """Id of the rejected ActionEvent."""
    kind: Literal["UserRejectObservation"] = "UserRejectObservation"
    """Event class name."""

    def llm_content(self) -> list[TextContent | ImageContent]:
        """``Action rejected: <reason>``."""
        return [TextContent(text=f"Action rejected: {self.rejection_reason}")]


class AgentErrorEvent(ObservationBaseEvent):
    """An error answering a tool call (invalid call, tool failure, crash recovery)."""

    source: Source = "agent"
    error: str
    """Error text, sent to the LLM verbatim."""
    classification: ErrorClassification = Field(default_factory=ErrorClassification)
    """Error classification (since 1.40.0; filled with ``unknown`` when absent)."""
    kind: Literal["AgentErrorEvent"] = "AgentErrorEvent"
    """Event class name."""

    def llm_content(self) -> list[TextContent | ImageContent]:
        """The error text."""
        return [TextContent(text=self.error)]


def action_message(batch: Sequence[ActionEvent]) -> Message:
    """The assistant message of one LLM response's calls (``batch``, in order): content,
    reasoning and thinking blocks from the first call, one tool call per event.
    """
    first = batch[0]
    return built_message(
        "assistant",
        list(first.thought),
        tool_calls=[e.tool_call for e in batch],
        reasoning_content=first.reasoning_content,
        thinking_blocks=first.thinking_blocks,
        responses_reasoning_item=first.responses_reasoning_item,
    )
