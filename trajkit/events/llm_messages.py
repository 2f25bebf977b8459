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

Nothing is dropped here: choosing the events is the job of ``trajkit.convert.view``. The rules
are one incremental step, ``MessageBuilder``: it takes one event at a time and hands each message
on once no later event can change it (a batch closes at the next event, a plain user turn when
the next message is not one). ``events_to_messages`` is ``list()`` over it; ``convert.stream``
feeds it the events of a conversation it never holds. It lives in ``events/`` because it needs
nothing but the event classes; ``trajkit.convert`` re-exports ``events_to_messages``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from trajkit.events.base import LLMConvertibleEvent, dispatch
from trajkit.events.message import Message
from trajkit.events.tool_events import ActionEvent, action_message

__all__ = ["MessageBuilder", "events_to_messages"]


def events_to_messages(
    events: Iterable[LLMConvertibleEvent],
    *,
    message_of: Callable[[LLMConvertibleEvent], Message] | None = None,
) -> list[Message]:
    """The messages the SDK builds from ``events`` (see the module rules).

    ``message_of(event)`` must return ``event.to_llm_message()`` (default); a caller that has
    already built those messages (``trajkit export``) passes them in instead of rebuilding them.
    """
    messages: list[Message] = []
    builder = MessageBuilder(messages.append, message_of=message_of)
    for event in events:
        builder.add(event)
    builder.finish()
    return messages


class MessageBuilder:
    """``events_to_messages`` one event at a time: ``add`` each event, then ``finish``; every
    message goes to ``emit`` as soon as it is final.
    """

    def __init__(
        self,
        emit: Callable[[Message], object],
        *,
        message_of: Callable[[LLMConvertibleEvent], Message] | None = None,
    ) -> None:
        self._emit = emit
        self._message_of = message_of  # None: `event.to_llm_message()`, called directly
        self._batch: list[ActionEvent] = []
        self._held: Message | None = None  # the next plain user turn may merge into it

    def add(self, event: LLMConvertibleEvent) -> None:
        batch = self._batch
        if isinstance(event, ActionEvent):
            if batch and batch[0].llm_response_id == event.llm_response_id:
                batch.append(event)
                return
            self._close_batch()
            self._batch = [event]
            return
        if batch:
            self._close_batch()
        of = self._message_of
        self._message(event.to_llm_message() if of is None else of(event))

    def finish(self) -> None:
        """Hand on what is still held (the end of the events)."""
        self._close_batch()
        if self._held is not None:
            self._emit(self._held)
            self._held = None

    def _close_batch(self) -> None:
        batch = self._batch
        if batch:
            self._batch = []
            of = self._message_of  # a one-call batch is `to_llm_message()`'s message
            self._message(
                of(batch[0]) if of is not None and len(batch) == 1 else action_message(batch)
            )

    def _message(self, m: Message) -> None:
        held = self._held
        if held is not None and m.role == "user" and _is_plain_user(m) and _is_plain_user(held):
            self._held = held.model_copy(update={"content": [*held.content, *m.content]})
            return
        if held is not None:
            self._emit(held)
        self._held = m


def _is_plain_user(m: Message) -> bool:
    return m.role == "user" and not m.tool_calls and m.tool_call_id is None and m.name is None


dispatch.events_to_messages = events_to_messages
