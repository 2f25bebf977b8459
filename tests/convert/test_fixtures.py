"""Every fixture conversation converts to exactly what the OpenHands SDK produced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.convert._openai import check_chat, check_responses
from tests.support import fixtures as fx
from trajkit.convert import (
    active_branch,
    condensed_view,
    convert_conversation,
    events_to_messages,
    full_view,
    messages_to_chat,
    messages_to_responses,
)
from trajkit.convert.options import ConversionOptions
from trajkit.events import LLMConvertibleEvent
from trajkit.store import open_conversation

# (view, expected file suffix): "full" is the SDK's plain projection, "condensed" its View.
CASES = [(scenario, view) for scenario in fx.sdk_scenarios() for view in ("full", "condensed")]


def _expected_name(scenario: str, stem: str, view: str) -> str:
    meta = fx.sdk_expected(scenario, "meta.json")
    if view == "condensed" and not meta["view_equals_plain"]:
        return f"{stem}.view.json"
    return f"{stem}.json"


def _expected_text(scenario: str, name: str) -> str:
    return (fx.SDK_FIXTURES / scenario / "expected" / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(("scenario", "view"), CASES)
def test_chat_equals_sdk(scenario: str, view: str) -> None:
    name = _expected_name(scenario, "chat_messages", view)
    result = convert_conversation(
        fx.sdk_conversation(scenario), to="chat", options=ConversionOptions(view=view)
    )
    assert result["messages"] == json.loads(_expected_text(scenario, name))
    # Key order too: the harness wrote json.dumps(indent=2, ensure_ascii=False).
    assert json.dumps(result["messages"], indent=2, ensure_ascii=False) == _expected_text(
        scenario, name
    )
    assert result["problems"] == []
    check_chat(result["messages"], result["tools"])


@pytest.mark.parametrize(("scenario", "view"), CASES)
def test_responses_equals_sdk(scenario: str, view: str) -> None:
    name = _expected_name(scenario, "responses_input", view)
    result = convert_conversation(
        fx.sdk_conversation(scenario), to="responses", options=ConversionOptions(view=view)
    )
    document = {"instructions": result["instructions"], "input": result["input"]}
    assert json.dumps(document, indent=2, ensure_ascii=False) == _expected_text(scenario, name)
    check_responses(result["instructions"], result["input"], result["tools"])


def test_condensed_view_differs_only_where_sdk_says(sdk_scenario: str) -> None:
    conv = open_conversation(fx.sdk_conversation(sdk_scenario))
    state = conv.base_state()
    assert state is not None
    branch = active_branch(list(conv.iter_events()), leaf_event_id=state.leaf_event_id)
    meta = fx.sdk_expected(sdk_scenario, "meta.json")
    full, condensed = full_view(branch), condensed_view(branch)
    assert len(full) == meta["n_llm_convertible"]
    assert (full == condensed) is meta["view_equals_plain"]


def test_library_example_pipeline() -> None:
    """The reference document's second example, step by step, on the condensation fixture."""
    conv = open_conversation(fx.sdk_conversation("j_condense"))
    events = list(conv.iter_events())
    convertible = [e for e in events if isinstance(e, LLMConvertibleEvent)]
    messages = LLMConvertibleEvent.events_to_messages(convertible)
    assert messages_to_chat(messages) == fx.sdk_expected("j_condense", "chat_messages.json")
    instructions, items = messages_to_responses(messages)
    expected = fx.sdk_expected("j_condense", "responses_input.json")
    assert (instructions, items) == (expected["instructions"], expected["input"])
    assert events_to_messages(convertible) == messages


def test_condensed_view_inserts_summary_and_merges_user_turns() -> None:
    result = convert_conversation(
        fx.sdk_conversation("j_condense"), options=ConversionOptions(view="condensed")
    )
    user = result["messages"][1]
    assert user["role"] == "user"
    assert [p["text"] for p in user["content"]][1].startswith("USER_CONTEXT:")
    assert len(user["content"]) == 3


def test_conversion_is_read_only(tmp_path: Path) -> None:
    folder = fx.sdk_conversation("b_terminal")
    before = {p: p.stat().st_mtime_ns for p in folder.rglob("*")}
    for to in ("chat", "responses"):
        convert_conversation(folder, to=to)
    assert {p: p.stat().st_mtime_ns for p in folder.rglob("*")} == before
    assert not (folder / "observations").exists()
