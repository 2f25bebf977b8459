"""The checked-in JSON Schemas match the models and validate every fixture with plain jsonschema."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest

from trajkit.schema import BASE_STATE_SCHEMA, EVENT_SCHEMA, drift

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "schemas"
FIXTURES = ROOT / "fixtures" / "sdk"


def _validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_no_drift():
    assert drift(SCHEMAS) == []


def test_drift_is_detected(tmp_path: Path):
    (tmp_path / EVENT_SCHEMA).write_text("{}\n")
    problems = drift(tmp_path)
    assert any("out of date" in p for p in problems)
    assert any("missing" in p for p in problems)


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*/*/events/event-*.json")), ids=str)
def test_fixture_events_validate_with_plain_jsonschema(path: Path):
    errors = list(_validator(EVENT_SCHEMA).iter_errors(json.loads(path.read_text())))
    assert errors == []


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*/*/base_state.json")), ids=str)
def test_fixture_base_states_validate(path: Path):
    assert list(_validator(BASE_STATE_SCHEMA).iter_errors(json.loads(path.read_text()))) == []


def test_schema_pinpoints_errors():
    v = _validator(EVENT_SCHEMA)
    src = next(FIXTURES.glob("b_terminal/*/events/event-00003-*.json"))
    event = json.loads(src.read_text())
    bad = copy.deepcopy(event)
    bad["observation"]["exit_code"] = "zero"
    errors = list(v.iter_errors(bad))
    assert [list(e.absolute_path) for e in errors] == [["observation", "exit_code"]]
    missing = {k: val for k, val in event.items() if k != "action_id"}
    assert any("action_id" in e.message for e in v.iter_errors(missing))
    # Unknown kinds are opaque, not errors.
    assert list(v.iter_errors({"id": "x", "kind": "NewEvent", "whatever": 1})) == []
    assert list(v.iter_errors({"id": "x"}))  # kind is required
