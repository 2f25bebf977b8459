"""Conversations written by the OpenHands SDK (fixtures/sdk) are restored by trajkit's runtime and
continued: the next request carries the SDK's own rendering of the history, byte for byte."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.sdk.helpers import make_agent
from tests.support import fixtures as fx
from tests.support.llm_server import ScriptedLLMServer
from trajkit.convert import convert_conversation
from trajkit.events import ObservationEvent, SystemPromptEvent
from trajkit.sdk import Conversation
from trajkit.store import open_conversation
from trajkit.validate import validate_conversation


def _copy(scenario: str, tmp_path: Path) -> tuple[Path, str]:
    src = fx.sdk_conversation(scenario)
    dst = tmp_path / "persisted" / src.name
    shutil.copytree(src, dst)
    return dst, src.name


@pytest.mark.parametrize("scenario", ["b_terminal", "c_file_editor", "e_persist_restore"])
def test_restore_sdk_conversation_and_continue(
    llm_server: ScriptedLLMServer, tmp_path: Path, scenario: str
) -> None:
    folder, hex_id = _copy(scenario, tmp_path)
    before = {p.name: p.read_bytes() for p in (folder / "events").glob("event-*.json")}
    sdk_state = json.loads((folder / "base_state.json").read_text())
    expected = fx.sdk_expected(scenario, "chat_messages.json")

    llm_server.enqueue_tool_call("terminal", {"command": "echo continued"})
    llm_server.enqueue_tool_call("finish", {"message": "continued after restore"})
    conv = Conversation(
        agent=make_agent(llm_server),
        workspace=tmp_path / "ws",
        persistence_dir=tmp_path / "persisted",
        conversation_id=hex_id,
    )
    assert conv.state.execution_status == sdk_state["execution_status"]
    sdk_cost = sdk_state["stats"]["usage_to_metrics"]["agent"]["accumulated_cost"]
    assert conv.agent.llm.metrics.accumulated_cost == pytest.approx(sdk_cost)
    conv.send_message("Please continue.")
    conv.run()
    assert conv.state.execution_status == "finished"

    first = llm_server.bodies("chat")[0]["messages"]
    assert first[:-1] == expected  # the SDK's own conversion of its history
    assert first[-1] == {"content": [{"type": "text", "text": "Please continue."}], "role": "user"}

    # the SDK's files are untouched; trajkit appended after them on the same branch
    after = {p.name: p.read_bytes() for p in (folder / "events").glob("event-*.json")}
    assert {k: after[k] for k in before} == before
    events = [
        e
        for e in open_conversation(folder).iter_events()
        if e.kind != "ConversationStateUpdateEvent"
    ]
    assert [e.kind for e in events[len(before) :]] == [
        "MessageEvent", "ActionEvent", "ObservationEvent", "ActionEvent", "ObservationEvent",
    ]  # fmt: skip
    assert sum(isinstance(e, SystemPromptEvent) for e in events) == 1
    assert events[len(before)].parent_id == sdk_state["leaf_event_id"]
    obs = [e for e in events if isinstance(e, ObservationEvent)][-2]
    assert obs.observation.text == "continued"
    problems = [
        p for p in validate_conversation(folder).problems if str(p.severity).endswith("error")
    ]
    assert not problems
    # the continued file still converts; its prefix is still the SDK's conversion
    converted = convert_conversation(folder, to="chat")["messages"]
    assert converted[: len(expected)] == expected
    state = json.loads((folder / "base_state.json").read_text())
    assert state["persistence_dir"] == str(folder)
    assert state["stats"]["usage_to_metrics"]["agent"]["accumulated_cost"] > sdk_cost
