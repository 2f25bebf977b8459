"""One `Message` type, built cheaply: a result's and a call's message (`built_message`, no second
validation) is the validated `Message` field by field and in every wire format; the message
rules are steps that hand on each message once it is final."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tests.convert._build import Log, text
from tests.support import fixtures as fx
from trajkit.convert.adjust import DanglingFixer
from trajkit.convert.chat import ChatWriter, message_to_chat
from trajkit.convert.options import FormatOptions
from trajkit.convert.responses import message_to_responses
from trajkit.events import ActionEvent, LLMConvertibleEvent, Message, TextContent
from trajkit.events.llm_messages import MessageBuilder
from trajkit.events.tool_events import ObservationBaseEvent, action_message
from trajkit.store import open_conversation

FIELDS = tuple(Message.model_fields)


def _fields(m: Message) -> dict[str, Any]:
    return {k: getattr(m, k) for k in FIELDS}


def _validated(m: Message) -> Message:
    """The same message through pydantic's validator."""
    return Message(**_fields(m))


def _wire(m: Message) -> tuple[Any, ...]:
    items: list[dict[str, Any]] = []
    system = message_to_responses(m, items)
    return (message_to_chat(m), message_to_chat(m, caching=True, vision=False), items, system)


def _llm_events() -> list[LLMConvertibleEvent]:
    events: list[LLMConvertibleEvent] = []
    for folder in fx.sdk_conversations():
        stored = open_conversation(folder)
        events += [e for e in stored.iter_events() if isinstance(e, LLMConvertibleEvent)]
    return events


def test_every_fixture_event_gives_the_validated_message() -> None:
    events = _llm_events()
    kinds = {type(e).__name__ for e in events}
    assert {"ActionEvent", "ObservationEvent", "MessageEvent", "SystemPromptEvent"} <= kinds
    built = 0
    for event in events:
        got = event.to_llm_message()
        expected = _validated(got)
        built += isinstance(event, ActionEvent | ObservationBaseEvent)
        assert type(got) is Message
        assert got == expected and _fields(got) == _fields(expected), event.id
        assert got.text == expected.text
        assert _wire(got) == _wire(expected), event.id
    assert built > len(events) // 3  # results and calls are the built ones


def test_a_batch_gives_the_validated_message() -> None:
    actions = [e for e in _llm_events() if isinstance(e, ActionEvent)]
    by_response: dict[str, list[ActionEvent]] = {}
    for a in actions:
        by_response.setdefault(a.llm_response_id, []).append(a)
    batches = [b for b in by_response.values() if len(b) > 1] or [actions[:2]]
    for batch in batches:
        got = action_message(batch)
        assert [tc.id for tc in got.tool_calls or ()] == [a.tool_call.id for a in batch]
        assert _fields(got) == _fields(_validated(got))
        assert _wire(got) == _wire(_validated(got))


def test_a_built_message_is_a_frozen_message() -> None:
    log = Log()
    log.action("c1", "r1", thought="look")
    m = log.events[-1].to_llm_message()  # type: ignore[attr-defined]
    with pytest.raises(ValidationError):
        m.role = "user"  # type: ignore[misc]
    copy = m.model_copy(update={"content": [TextContent(text="b")]})
    assert copy.text == "b" and m.text == "look"  # the original is untouched
    assert copy.tool_calls == m.tool_calls
    assert Message.model_validate(m.model_dump()) == m


def test_the_builder_hands_on_a_message_once_it_is_final() -> None:
    log = Log()
    log.user(text("one"))
    log.user(text("two"))  # merges into "one"
    first = log.action("c1", "r1")
    log.action("c2", "r1")  # the same response: one assistant message
    log.terminal_result("c1", first, "a")
    out: list[Message] = []
    builder = MessageBuilder(out.append)
    steps = []
    for event in log.events:
        builder.add(event)  # type: ignore[arg-type]
        steps.append([m.role for m in out])
    builder.finish()
    assert steps == [[], [], [], [], ["user", "assistant"]]  # the batch closes at the result
    assert out[0].text == "one\ntwo"
    assert [tc.id for tc in out[1].tool_calls or ()] == ["c1", "c2"]
    assert [m.role for m in out] == ["user", "assistant", "tool"]


def test_the_dangling_fixer_holds_a_synthesized_result_until_the_results_end() -> None:
    log = Log()
    log.action("c1", "r1")
    log.user(text("next"))
    messages = [e.to_llm_message() for e in log.events]  # type: ignore[attr-defined]
    out: list[Message] = []
    fixer = DanglingFixer("synthesize", set(), {"c1"}, out.append)
    fixer.add(messages[0])
    assert [m.role for m in out] == ["assistant"]  # its result may still come
    fixer.add(messages[1])
    assert [m.role for m in out] == ["assistant", "tool", "user"]
    assert out[1].tool_call_id == "c1"
    assert [d.tool_call_id for d in fixer.found] == ["c1"]


def test_the_chat_writer_marks_the_last_user_message_when_it_knows_it_is_last() -> None:
    out: list[dict[str, Any]] = []
    writer = ChatWriter(FormatOptions(model="claude-x", caching=True), out.append)
    user = Message(role="user", content=[TextContent(text="q")])
    reply = Message(role="assistant", content=[TextContent(text="a")])
    writer.add(user)
    writer.add(reply)
    assert out == []  # the user message may be the last one: held, and what follows it
    writer.add(user)
    assert [d["role"] for d in out] == ["user", "assistant"]
    assert "cache_control" not in out[0]["content"][0]
    writer.finish()
    assert out[2]["content"][0]["cache_control"] == {"type": "ephemeral"}
