"""Messages of validated events without pydantic: the one stand-in for ``Message``.

``convert``'s streaming path (``stream.write_conversation``) and ``export``'s events table
(``export.rows``) build a message for every result and tool call. Those events were parsed by
the validator, so their parts (``TextContent``, ``MessageToolCall``, ...) are already checked
models; running ``Message``'s validator over them again only copies the lists (about 10 us an
event). ``Msg`` holds the same fields and answers what the adjustments and serializers read
(the attributes, ``text`` and ``model_copy(update=...)``); ``message_of`` and
``action_message`` build it with the fields of ``to_llm_message`` and ``_batch_message``
(``ObservationBaseEvent.llm_content``, ``action_message_fields``), so the bytes converted from
it are those of the pydantic message (``tests/convert/test_messages.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from trajkit.events import ActionEvent, LLMConvertibleEvent, Message, TextContent
from trajkit.events.tool_events import ObservationBaseEvent, action_message_fields

__all__ = ["Msg", "action_message", "message_of"]


class Msg:
    """A ``Message`` without pydantic (see the module): its fields, ``text`` and
    ``model_copy(update=...)``."""

    __slots__ = (
        "role",
        "content",
        "tool_calls",
        "tool_call_id",
        "name",
        "reasoning_content",
        "thinking_blocks",
        "responses_reasoning_item",
    )

    def __init__(
        self,
        role: str,
        content: list[Any],
        tool_calls: list[Any] | None = None,
        tool_call_id: str | None = None,
        name: str | None = None,
        reasoning_content: str | None = None,
        thinking_blocks: list[Any] | None = None,
        responses_reasoning_item: Any = None,
    ) -> None:
        self.role = role
        self.content = content
        self.tool_calls = tool_calls
        self.tool_call_id = tool_call_id
        self.name = name
        self.reasoning_content = reasoning_content
        self.thinking_blocks = thinking_blocks if thinking_blocks is not None else []
        self.responses_reasoning_item = responses_reasoning_item

    @property
    def text(self) -> str:
        """As ``Message.text``: the text parts joined with newlines."""
        return "\n".join(c.text for c in self.content if isinstance(c, TextContent))

    def model_copy(self, *, update: dict[str, Any]) -> Msg:
        copy = Msg.__new__(Msg)
        for key in Msg.__slots__:
            setattr(copy, key, update[key] if key in update else getattr(self, key))
        return copy


def action_message(batch: Sequence[ActionEvent]) -> Message:
    """``_batch_message`` (``ActionEvent.to_llm_message`` for one call), as a ``Msg``."""
    return cast(Message, Msg(**action_message_fields(batch)))


def message_of(event: LLMConvertibleEvent) -> Message:
    """``event.to_llm_message()``; a result's or a call's message as a ``Msg``."""
    if isinstance(event, ObservationBaseEvent):  # as ObservationBaseEvent.to_llm_message
        return cast(
            Message,
            Msg("tool", event.llm_content(), tool_call_id=event.tool_call_id, name=event.tool_name),
        )
    if isinstance(event, ActionEvent):  # as ActionEvent.to_llm_message
        return action_message((event,))
    return event.to_llm_message()
