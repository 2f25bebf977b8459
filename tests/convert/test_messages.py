"""`trajkit.convert.messages`: the pydantic-free message is `to_llm_message`'s, field by field
and in every wire format (convert's stream and export's events table both build it)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import fixtures as fx
from trajkit.convert.chat import message_to_chat
from trajkit.convert.messages import Msg, action_message, message_of
from trajkit.convert.responses import message_to_responses
from trajkit.events import ActionEvent, LLMConvertibleEvent, Message
from trajkit.events.llm_messages import _batch_message
from trajkit.store import open_conversation

FIELDS = Msg.__slots__


def _fields(m: Any) -> dict[str, Any]:
    return {k: getattr(m, k) for k in FIELDS}


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


def test_every_fixture_event_gives_the_pydantic_message() -> None:
    events = _llm_events()
    kinds = {type(e).__name__ for e in events}
    assert {"ActionEvent", "ObservationEvent", "MessageEvent", "SystemPromptEvent"} <= kinds
    light = 0
    for event in events:
        expected = event.to_llm_message()
        got = message_of(event)
        light += isinstance(got, Msg)
        assert _fields(got) == _fields(expected), event.id
        assert got.text == expected.text
        assert _wire(got) == _wire(expected), event.id
    assert light > len(events) // 3  # results and calls are built without pydantic


def test_a_batch_gives_the_pydantic_message() -> None:
    actions = [e for e in _llm_events() if isinstance(e, ActionEvent)]
    by_response: dict[str, list[ActionEvent]] = {}
    for a in actions:
        by_response.setdefault(a.llm_response_id, []).append(a)
    batches = [b for b in by_response.values() if len(b) > 1] or [actions[:2]]
    for batch in batches:
        got, expected = action_message(batch), _batch_message(batch)
        assert isinstance(got, Msg)
        assert _fields(got) == _fields(expected)
        assert _wire(got) == _wire(expected)


def test_model_copy_replaces_only_what_it_is_given() -> None:
    m = Msg("tool", ["a"], tool_call_id="c1", name="t", reasoning_content="r")
    copy = m.model_copy(update={"content": ["b"], "name": None})
    assert _fields(copy) == {**_fields(m), "content": ["b"], "name": None}
    assert m.content == ["a"] and m.name == "t"  # the original is untouched
    with pytest.raises(AttributeError):
        m.other = 1  # type: ignore[attr-defined]
