"""Every fixture event loads as its own kind and dumps back byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from trajkit.events import (
    ActionEvent,
    Event,
    LLMConvertibleEvent,
    MessageEvent,
    ObservationEvent,
    PauseEvent,
    TerminalObservation,
    TextContent,
    UnknownAction,
    UnknownEvent,
    UnknownObservation,
    dump_event,
    parse_base_state,
    parse_event,
)
from trajkit.events.state import dump_base_state

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sdk"
EVENT_FILES = sorted(FIXTURES.glob("*/*/events/event-*.json"))
STATE_FILES = sorted(FIXTURES.glob("*/*/base_state.json"))


def test_fixture_corpus_is_present():
    assert len(EVENT_FILES) >= 70
    assert len(STATE_FILES) == 8


@pytest.mark.parametrize("path", EVENT_FILES, ids=lambda p: f"{p.parts[-4]}/{p.name[:11]}")
def test_event_round_trip_is_exact(path: Path):
    raw = path.read_bytes()
    event = Event.model_validate_json(raw)
    assert type(event).__name__ == json.loads(raw)["kind"]
    assert not isinstance(event, UnknownEvent)
    assert dump_event(event).encode() == raw.strip()
    # The dict path gives the same object.
    assert parse_event(json.loads(raw)) == event


@pytest.mark.parametrize("path", STATE_FILES, ids=lambda p: p.parts[-3])
def test_base_state_round_trip(path: Path):
    raw = path.read_bytes()
    state = parse_base_state(raw)
    assert json.loads(dump_base_state(state)) == json.loads(raw)
    assert state.agent.llm.api_key == "**********"


def test_abstract_classes_dispatch_to_subclass():
    raw = next(p for p in EVENT_FILES if "b_terminal" in str(p) and "00003" in p.name).read_text()
    event = LLMConvertibleEvent.model_validate_json(raw)
    assert isinstance(event, ObservationEvent)
    assert isinstance(event.observation, TerminalObservation)
    with pytest.raises(TypeError):
        LLMConvertibleEvent.model_validate(
            {"id": "p", "timestamp": "t", "source": "user", "kind": "PauseEvent"}
        )


def test_unknown_kind_is_kept_whole():
    raw = {"id": "e1", "timestamp": "t", "source": "agent", "kind": "BrowserEvent", "x": [1]}
    event = parse_event(json.dumps(raw))
    assert isinstance(event, UnknownEvent)
    assert event.kind == "BrowserEvent" and event.id == "e1"
    assert json.loads(dump_event(event)) == raw


def test_unknown_payloads_keep_keys_and_render_content():
    base = json.loads(
        next(p for p in EVENT_FILES if "b_terminal" in str(p) and "00003" in p.name).read_text()
    )
    base["observation"] = {
        "content": [{"type": "text", "text": "custom result"}],
        "is_error": True,
        "rows": 3,
        "kind": "MyToolObservation",
    }
    event = parse_event(base)
    assert isinstance(event, ObservationEvent)
    assert isinstance(event.observation, UnknownObservation)
    assert json.loads(dump_event(event))["observation"]["rows"] == 3
    texts = [c.text for c in event.to_llm_message().content if isinstance(c, TextContent)]
    assert texts == ["[An error occurred during execution.]\n", "custom result"]

    act = json.loads(
        next(p for p in EVENT_FILES if "b_terminal" in str(p) and "00002" in p.name).read_text()
    )
    act["action"] = {"query": "x", "kind": "SearchAction"}
    event2 = parse_event(act)
    assert isinstance(event2, ActionEvent) and isinstance(event2.action, UnknownAction)
    assert json.loads(dump_event(event2))["action"] == {"query": "x", "kind": "SearchAction"}


def test_known_kind_with_bad_fields_fails():
    with pytest.raises(ValidationError):
        parse_event({"id": "a", "timestamp": "t", "source": "agent", "kind": "ActionEvent"})
    with pytest.raises(ValidationError):
        parse_event(
            {"id": "a", "timestamp": "t", "source": "user", "kind": "PauseEvent", "extra": 1}
        )
    with pytest.raises(ValidationError):
        parse_event({"id": "__root__", "timestamp": "t", "source": "user", "kind": "PauseEvent"})
    with pytest.raises(ValueError):
        parse_event(b"[1, 2]")


def test_legacy_keys_are_accepted():
    # openhands-sdk <= 1.10.0 wrote enable_truncation, <= 1.9.0 the Message flags.
    event = parse_event(
        {
            "id": "m",
            "timestamp": "t",
            "source": "user",
            "llm_message": {
                "role": "user",
                "content": [{"type": "text", "text": "hi", "enable_truncation": True}],
                "cache_enabled": False,
                "vision_enabled": False,
            },
            "kind": "MessageEvent",
        }
    )
    assert isinstance(event, MessageEvent)
    assert event.llm_message.text == "hi"
    assert "enable_truncation" not in dump_event(event)


def test_new_events_have_sdk_defaults():
    event = PauseEvent()
    assert event.source == "user" and len(event.id) == 36
    data = json.loads(dump_event(event))
    assert list(data) == ["id", "timestamp", "source", "kind"]


def test_null_values_of_unknown_keys_survive_a_round_trip():
    # exclude_none drops declared fields that are None (the SDK's "absent means None"), but a
    # key trajkit does not know is data it only carries: its null must come back.
    base = json.loads(
        next(p for p in EVENT_FILES if "b_terminal" in str(p) and "00002" in p.name).read_text()
    )
    base["action"] = {"query": None, "kind": "SearchAction"}
    assert json.loads(dump_event(parse_event(base)))["action"] == base["action"]
    system = json.loads(next(p for p in EVENT_FILES if "00000" in p.name).read_text())
    system["tools"][0]["annotations"]["futureHint"] = None
    system["tools"][0]["x_new"] = None
    assert json.loads(dump_event(parse_event(system))) == system
