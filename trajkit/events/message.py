"""LLM message primitives as the OpenHands SDK persists them (``llm/message.py``).

``Message`` uses ``extra="ignore"`` like the SDK, and drops the legacy flags written by SDKs up to
1.9.0. ``TextContent`` drops the legacy ``enable_truncation`` key (last written by 1.10.0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trajkit.events._model import StrictModel, describe_fields, legacy_input

_LEGACY_MESSAGE_KEYS = (
    "cache_enabled",
    "vision_enabled",
    "function_calling_enabled",
    "force_string_serializer",
    "send_reasoning_content",
)


class TextContent(StrictModel):
    """A text part of a message."""

    cache_prompt: bool = False
    """Whether a prompt-cache breakpoint is placed on this part (always written)."""
    type: Literal["text"] = "text"
    """Content type tag."""
    text: str
    """The text."""

    @model_validator(mode="before")
    @classmethod
    @legacy_input
    def _drop_enable_truncation(cls, data: Any) -> Any:
        # Written by openhands-sdk <= 1.10.0; the SDK strips it silently on load.
        if isinstance(data, dict) and "enable_truncation" in data:
            data = {k: v for k, v in data.items() if k != "enable_truncation"}
        return data


class ImageContent(StrictModel):
    """An image part: one or more http(s) or ``data:`` URLs."""

    cache_prompt: bool = False
    """Whether a prompt-cache breakpoint is placed on this part."""
    type: Literal["image"] = "image"
    """Content type tag."""
    image_urls: list[str]
    """Image URLs (http(s) or data: URLs)."""


Content = Annotated[TextContent | ImageContent, Field(discriminator="type")]


class ThinkingBlock(StrictModel):
    """An Anthropic extended-thinking block."""

    type: Literal["thinking"] = "thinking"
    """Block type tag."""
    thinking: str
    """The thinking text."""
    signature: str | None = None
    """Provider signature that lets the block be sent back."""


class RedactedThinkingBlock(StrictModel):
    """An Anthropic redacted-thinking block (opaque data)."""

    type: Literal["redacted_thinking"] = "redacted_thinking"
    """Block type tag."""
    data: str
    """Opaque encrypted data."""


ThinkingBlockType = Annotated[ThinkingBlock | RedactedThinkingBlock, Field(discriminator="type")]


class ReasoningItemModel(StrictModel):
    """Subset of an OpenAI Responses ``reasoning`` output item."""

    id: str | None = None
    """Responses item id (``rs_...``)."""
    summary: list[str] = Field(default_factory=list)
    """Reasoning summary texts."""
    content: list[str] | None = None
    """Reasoning texts, when the provider returns them."""
    encrypted_content: str | None = None
    """Encrypted reasoning, to send back with store=false. Never shown."""
    status: str | None = None
    """Item status."""


class MessageToolCall(StrictModel):
    """A tool call requested by the LLM, normalized across Chat and Responses."""

    id: str
    """Canonical call id: the Chat tool_call id or the Responses call_id."""
    responses_item_id: str | None = None
    """Original Responses function_call item id (since 1.18.1)."""
    name: str
    """Tool name."""
    arguments: str
    """Arguments as a JSON string, passed through byte for byte."""
    origin: Literal["completion", "responses"] = "completion"
    """Which API produced the call."""


class Message(BaseModel):
    """One LLM message."""

    model_config = ConfigDict(extra="ignore", frozen=True, json_schema_extra=describe_fields)

    role: Literal["user", "system", "assistant", "tool"]
    """Message role."""
    content: list[Content] = Field(default_factory=list)
    """Text and image parts."""
    tool_calls: list[MessageToolCall] | None = None
    """Tool calls of an assistant message."""
    tool_call_id: str | None = None
    """For tool results: the call being answered."""
    name: str | None = None
    """For tool results: the tool name."""
    reasoning_content: str | None = None
    """Reasoning text returned by the provider (Chat)."""
    thinking_blocks: list[ThinkingBlockType] = Field(default_factory=list)
    """Anthropic thinking blocks."""
    responses_reasoning_item: ReasoningItemModel | None = None
    """OpenAI Responses reasoning item."""

    @model_validator(mode="before")
    @classmethod
    @legacy_input
    def _normalize(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        # Legacy flags written by openhands-sdk <= 1.9.0.
        if any(k in data for k in _LEGACY_MESSAGE_KEYS):
            data = {k: v for k, v in data.items() if k not in _LEGACY_MESSAGE_KEYS}
        content = data.get("content")
        if content is None and "content" in data:
            data = {**data, "content": []}
        elif isinstance(content, str):
            data = {**data, "content": [{"type": "text", "text": content}]}
        return data

    @property
    def text(self) -> str:
        """The text parts joined with newlines."""
        return "\n".join(c.text for c in self.content if isinstance(c, TextContent))


_ALL_SET = set(Message.model_fields)
_new = Message.__new__
_set = object.__setattr__


def built_message(
    role: Literal["user", "system", "assistant", "tool"],
    content: list[TextContent | ImageContent],
    *,
    tool_calls: list[MessageToolCall] | None = None,
    tool_call_id: str | None = None,
    name: str | None = None,
    reasoning_content: str | None = None,
    thinking_blocks: Sequence[ThinkingBlock | RedactedThinkingBlock] = (),
    responses_reasoning_item: ReasoningItemModel | None = None,
) -> Message:
    """``Message(role=..., content=..., ...)`` over parts that are already checked models (an
    event's fields): pydantic's ``model_construct``, no second validation.

    Written out rather than called: ``model_construct`` loops over every field and, for one
    left to its default factory, inspects the factory's signature on each call (150 us a
    message on this machine); this is its work without the loop (1-2 us). Every field counts
    as set, as with ``model_construct`` given all of them.
    """
    m = _new(Message)
    _set(
        m,
        "__dict__",
        {
            "role": role,
            "content": content,
            "tool_calls": tool_calls,
            "tool_call_id": tool_call_id,
            "name": name,
            "reasoning_content": reasoning_content,
            "thinking_blocks": list(thinking_blocks),
            "responses_reasoning_item": responses_reasoning_item,
        },
    )
    _set(m, "__pydantic_fields_set__", _ALL_SET.copy())  # its own: model_copy adds to it
    _set(m, "__pydantic_extra__", None)
    _set(m, "__pydantic_private__", None)
    return m
