"""The one-pass parse of current dumps (`parse_current_dump`) agrees with the full parser.

Whatever the fast path accepts must be exactly what decoding + upgrade rules + the full union
give; whatever it refuses goes to that path, so unknown kinds, older shapes and invalid events
read (or fail) as before.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import fixtures as fx
from trajkit.events import ActionEvent, MessageEvent, UnknownAction, UnknownEvent, dump_event
from trajkit.events.parse import EVENT_CLASSES, current_validator, parse_current_dump
from trajkit.events.upgrade import parse_event_upgraded, upgrade_and_parse, upgrade_event

EVENT_FILES = fx.sdk_event_files()
WILD = (
    next(
        (p for p in (fx.REPO.parent / "shared", fx.REPO.parents[1] / "shared") if p.is_dir()),
        fx.REPO.parent / "shared",
    )
    / "fixtures-wild"
)


def _compact(obj: dict) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def _terminal_action() -> dict:
    path = next(p for p in EVENT_FILES if b'"kind":"TerminalAction"' in p.read_bytes())
    return json.loads(path.read_bytes())


@pytest.mark.parametrize("path", EVENT_FILES, ids=lambda p: f"{p.parts[-4]}/{p.name[:11]}")
def test_every_sdk_event_takes_the_fast_path_and_matches_the_full_parser(path: Path):
    raw = path.read_bytes()
    fast = parse_current_dump(raw)
    assert fast is not None
    slow, applied = upgrade_and_parse(raw)
    assert applied == []
    assert type(fast) is type(slow)
    assert fast == slow
    assert fast.model_fields_set == slow.model_fields_set
    assert dump_event(fast).encode() == raw.strip()


def test_wild_events_parse_as_the_full_parser_says():
    files = sorted(WILD.rglob("event-*.json")) if WILD.is_dir() else []
    if not files:
        pytest.skip(f"{WILD} is not here (the shared wild samples are never committed)")
    fast_count = 0
    for path in files:
        raw = path.read_bytes()
        fast = parse_current_dump(raw)
        if fast is None:
            continue
        fast_count += 1
        slow, _ = upgrade_and_parse(raw)
        assert type(fast) is type(slow), path
        assert dump_event(fast) == dump_event(slow), path
    assert fast_count > 0


def test_unknown_event_kind_is_refused_and_kept_whole_by_the_full_parser():
    raw = b'{"id":"e1","timestamp":"2025-01-01T00:00:00","source":"agent","x":1,"kind":"NewEvent"}'
    assert parse_current_dump(raw) is None
    event, applied = parse_event_upgraded(raw)
    assert isinstance(event, UnknownEvent)
    assert event.kind == "NewEvent"
    assert applied == []


def test_unknown_payload_kind_reads_as_unknown_action_on_the_fast_path():
    obj = _terminal_action()
    obj["action"] = {"query": "x", "kind": "CustomToolAction"}
    raw = _compact(obj)
    fast = parse_current_dump(raw)
    assert isinstance(fast, ActionEvent)
    assert isinstance(fast.action, UnknownAction)
    assert fast == upgrade_and_parse(raw)[0]


@pytest.mark.parametrize(
    "mangle",
    [
        pytest.param(
            lambda raw: raw.replace(b'"kind":"ActionEvent"}', b'"kind":"Action\\u0045vent"}'),
            id="escaped",
        ),
        pytest.param(lambda raw: raw[:-1] + b',"extra":1}', id="kind-not-last"),
        pytest.param(lambda raw: raw[:-1] + b"}}", id="nested-close"),
        pytest.param(
            lambda raw: raw.replace(b'"kind":"ActionEvent"', b'"kind":"ActionEvent'), id="unclosed"
        ),
    ],
)
def test_anything_but_a_current_dump_is_left_to_the_full_parser(mangle):
    raw = _compact(_terminal_action())
    assert parse_current_dump(raw) is not None
    assert parse_current_dump(mangle(raw)) is None


def test_invalid_content_is_refused_and_the_full_parser_reports_it():
    obj = _terminal_action()
    obj["action"]["command"] = 42
    raw = _compact(obj)
    assert parse_current_dump(raw) is None
    with pytest.raises(ValueError, match="string"):
        upgrade_and_parse(raw)


def test_an_older_shape_with_kind_last_goes_through_the_upgrade_rules():
    obj = _terminal_action()
    call = obj["tool_call"]
    # litellm's tool-call object, as SDKs before MessageToolCall wrote it (upgrade.py).
    obj["tool_call"] = {
        "id": call["id"],
        "type": "function",
        "function": {"name": call["name"], "arguments": call["arguments"]},
    }
    raw = _compact(obj)
    assert raw.endswith(b'"kind":"ActionEvent"}')
    assert parse_current_dump(raw) is None
    event, applied = parse_event_upgraded(raw)
    assert isinstance(event, ActionEvent)
    assert event.tool_call.name == call["name"]
    assert event.tool_call.arguments == call["arguments"]
    assert applied  # the rule that fired is reported, as before


def _same_as_the_model(raw: bytes) -> bool:
    """Whether the current shapes' validator accepts `raw`; when it does, its event is the
    model's own (class, values, fields set, dump)."""
    kind = json.loads(raw)["kind"]
    cls = EVENT_CLASSES[kind]
    try:
        fast = current_validator(cls).validate_json(raw, strict=True)
    except ValueError:
        return False
    model = cls.model_validate_json(raw, strict=True)
    assert type(fast) is type(model)
    assert fast == model
    assert fast.model_fields_set == model.model_fields_set
    assert dump_event(fast) == dump_event(model)
    return True


def test_every_sdk_event_is_read_by_the_current_shapes_validator_as_the_model_reads_it():
    assert all(_same_as_the_model(path.read_bytes()) for path in EVENT_FILES)


def test_wild_events_upgraded_read_by_the_current_shapes_validator_as_the_model_reads_them():
    files = sorted(WILD.rglob("event-*.json")) if WILD.is_dir() else []
    if not files:
        pytest.skip(f"{WILD} is not here (the shared wild samples are never committed)")
    read = 0
    for path in files:
        data = json.loads(path.read_bytes())
        upgrade_event(data)
        if data.get("kind") in EVENT_CLASSES:
            read += _same_as_the_model(_compact(data))
    assert read > 0


def _message_event() -> dict:
    path = next(p for p in EVENT_FILES if b'"kind":"MessageEvent"}' in p.read_bytes())
    return json.loads(path.read_bytes())


@pytest.mark.parametrize(
    ("make", "what"),
    [
        pytest.param(
            lambda: {**_terminal_action(), "action": {"query": "x", "kind": "CustomToolAction"}},
            UnknownAction,
            id="unknown-payload-kind",
        ),
        pytest.param(
            lambda: {
                **_terminal_action(),
                "thought": [{"type": "text", "text": "hi", "enable_truncation": True}],
            },
            ActionEvent,
            id="legacy-text-key",
        ),
        pytest.param(
            lambda: (
                (m := _message_event()) | {"llm_message": {**m["llm_message"], "content": "hi"}}
            ),
            MessageEvent,
            id="legacy-message-text",
        ),
    ],
)
def test_what_the_current_shapes_refuse_the_model_reads(make, what):
    """Shapes the narrowed validator leaves out (`parse.current_validator`) still parse, and
    as the model reads them: the reader falls back to the model itself."""
    raw = _compact(make())
    assert not _same_as_the_model(raw)
    event = parse_current_dump(raw, strict=True)
    assert event is not None
    kind = json.loads(raw)["kind"]
    assert event == EVENT_CLASSES[kind].model_validate_json(raw, strict=True)
    assert isinstance(event, what) or isinstance(getattr(event, "action", None), what)
