"""LLM-convertible events -> ``Message`` list (``LLMConvertibleEvent.events_to_messages``).

Rules (v1-rendering.md section 4, openhands-sdk 1.58.2):

- A run of directly consecutive ``ActionEvent``s with the same ``llm_response_id`` becomes one
  assistant message: content, reasoning and thinking blocks from the first event, one tool call
  per event (the stored ``tool_call``, arguments passed through). Anything in between, or another
  response id, closes the run.
- Every other event becomes ``event.to_llm_message()``: results, errors and rejections are tool
  messages, the system prompt a system message, a condensation summary a user message.
- A plain user message (role ``user``, no tool calls, no ``tool_call_id``, no ``name``) right after
  another one is merged into it: its content is appended.

Nothing is dropped here: choosing the events is the job of ``trajkit.convert.view``. It lives in
``events/`` because it needs nothing but the event classes; ``trajkit.convert`` re-exports it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from trajkit.events.base import LLMConvertibleEvent, dispatch
from trajkit.events.message import Message
from trajkit.events.tool_events import ActionEvent, action_message_fields

__all__ = ["events_to_messages"]


def events_to_messages(
    events: Sequence[LLMConvertibleEvent],
    *,
    message_of: Callable[[LLMConvertibleEvent], Message] | None = None,
) -> list[Message]:
    """The messages the SDK builds from ``events`` (see the module rules).

    ``message_of(event)`` must return ``event.to_llm_message()`` (default); a caller that has
    already built those messages (``trajkit export``) passes them in instead of rebuilding them.
    """
    if message_of is None:
        message_of = _to_llm_message
    messages: list[Message] = []
    n = len(events)
    i = 0
    while i < n:
        event = events[i]
        if isinstance(event, ActionEvent):
            j = i + 1
            response_id = event.llm_response_id
            while (
                j < n
                and isinstance(events[j], ActionEvent)
                and events[j].llm_response_id == response_id  # type: ignore[attr-defined]
            ):
                j += 1
            message = _batch_message(events[i:j]) if j - i > 1 else message_of(event)  # type: ignore[arg-type]
            i = j
        else:
            message = message_of(event)
            i += 1
        if messages and _is_plain_user(message) and _is_plain_user(messages[-1]):
            previous = messages[-1]
            messages[-1] = previous.model_copy(
                update={"content": [*previous.content, *message.content]}
            )
        else:
            messages.append(message)
    return messages


def _to_llm_message(event: LLMConvertibleEvent) -> Message:
    return event.to_llm_message()


def _batch_message(batch: Sequence[ActionEvent]) -> Message:
    return Message(**action_message_fields(batch))


def _is_plain_user(m: Message) -> bool:
    return m.role == "user" and not m.tool_calls and m.tool_call_id is None and m.name is None


dispatch.events_to_messages = events_to_messages
