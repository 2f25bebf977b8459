"""mini-swe-agent and SWE-agent trajectories read as V1 conversations."""

from __future__ import annotations

import json

import atif
import pytest

from tests.formats._shared import needs_formats
from tests.support import fixtures as fx
from trajkit.convert import convert_conversation
from trajkit.convert.atif import conversation_to_atif
from trajkit.events import ActionEvent, MessageEvent, ObservationEvent, UnknownEvent
from trajkit.shapes import shape_refs


def _only(name: str):  # type: ignore[no-untyped-def]
    refs = list(shape_refs(fx.FORMATS / name) or [])
    assert len(refs) == 1
    return refs[0]


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content or [])  # type: ignore[union-attr]


def _runs(messages: list[dict]) -> list[tuple[str, str]]:
    """(role, text) per message, consecutive user messages joined (as convert sends them)."""
    runs: list[tuple[str, str]] = []
    for m in messages:
        if runs and m["role"] == "user" and runs[-1][0] == "user":
            runs[-1] = ("user", runs[-1][1] + _text(m["content"]))
        else:
            runs.append((m["role"], _text(m["content"])))
    return runs


@needs_formats
@pytest.mark.parametrize("name", fx.SWE_FILES)
def test_the_chat_is_the_recorded_messages(name: str) -> None:
    doc = json.loads((fx.FORMATS / name).read_text())
    recorded = doc if isinstance(doc, list) else doc.get("messages", doc.get("history"))
    chat = convert_conversation(_only(name))["messages"]
    assert _runs(chat) == _runs(recorded)
    document, _ = conversation_to_atif(_only(name).open_conversation())
    atif.Trajectory.model_validate(document)


@needs_formats
def test_mini_swe_agent_v1_keeps_usage_reasoning_and_info() -> None:
    name = fx.SWE_FILES[0]
    doc = json.loads((fx.FORMATS / name).read_text())
    conv = _only(name).open_conversation()
    state = conv.base_state()
    assert state is not None and state.agent.llm.model == "google/gemini-3-pro-preview"
    metrics = state.stats.usage_to_metrics["agent"]  # type: ignore[union-attr]
    assert len(metrics.token_usages) == doc["info"]["model_stats"]["api_calls"]
    assert metrics.accumulated_cost == pytest.approx(doc["info"]["model_stats"]["instance_cost"])
    said = [e for e in conv.iter_events() if isinstance(e, MessageEvent) and e.source == "agent"]
    recorded = [m["extra"]["response"]["choices"][0]["message"].get("reasoning")
                for m in doc["messages"] if m["role"] == "assistant"]  # fmt: skip
    assert [e.llm_message.reasoning_content for e in said] == recorded
    kept = [e for e in conv.iter_events() if isinstance(e, UnknownEvent)]
    assert kept[-1].raw["data"]["info"]["submission"] == doc["info"]["submission"]


@needs_formats
def test_swe_agent_tool_calls_are_answered_by_their_results() -> None:
    conv = _only(fx.SWE_FILES[3]).open_conversation()
    events = list(conv.iter_events())
    actions = {e.tool_call_id: e for e in events if isinstance(e, ActionEvent)}
    results = [e for e in events if isinstance(e, ObservationEvent)]
    assert len(actions) == len(results) == 4
    assert all(actions[r.tool_call_id].id == r.action_id for r in results)
    assert actions[results[0].tool_call_id].tool_name == "find_file"
