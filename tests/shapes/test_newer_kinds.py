"""A newer SDK's kind known by its shape (`trajkit.convert.newer`): SystemPromptUpdateEvent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.support import fixtures as fx
from trajkit.convert import convert_conversation


def _with_update(tmp_path: Path, *, shaped: bool = True) -> Path:
    conv = shutil.copytree(fx.sdk_conversation("b_terminal"), tmp_path / "c")
    events = sorted((conv / "events").glob("event-*.json"))
    first = json.loads(events[0].read_text())
    update = {
        "id": "0f0e0d0c-0b0a-4908-8706-050403020100",
        "timestamp": first["timestamp"],
        "source": "agent",
        "system_prompt": {"cache_prompt": False, "type": "text", "text": "New prompt.",
                          "enable_truncation": True},
        "tools": first["tools"][:1],
        "kind": "SystemPromptUpdateEvent",
    }  # fmt: skip
    if not shaped:
        update["system_prompt"] = "not an object"
    # Appended after the last event, linked to it, as the SDK appends.
    last = json.loads(events[-1].read_text())
    update["parent_id"] = last["id"]
    (conv / "events" / f"event-{len(events):05d}-{update['id']}.json").write_text(
        json.dumps(update)
    )
    state = json.loads((conv / "base_state.json").read_text())
    state["leaf_event_id"] = update["id"]
    (conv / "base_state.json").write_text(json.dumps(state))
    return conv


def test_system_prompt_update_becomes_the_system_message(tmp_path: Path) -> None:
    document = convert_conversation(_with_update(tmp_path), to="chat")
    assert document["messages"][0] == {
        "content": [{"type": "text", "text": "New prompt."}],
        "role": "system",
    }
    assert [t["function"]["name"] for t in document["tools"]] == ["terminal"]
    expected = fx.sdk_expected("b_terminal", "chat_messages.json")
    assert document["messages"][1:] == expected[1:]  # the rest as the SDK sent it
    assert any("SystemPromptUpdateEvent (a newer SDK's kind" in p for p in document["problems"])
    assert not any("unknown kind" in p for p in document["problems"])


def test_an_update_of_another_shape_stays_unknown(tmp_path: Path) -> None:
    document = convert_conversation(_with_update(tmp_path, shaped=False), to="chat")
    assert document["messages"] == fx.sdk_expected("b_terminal", "chat_messages.json")
    assert "events of unknown kind left out: SystemPromptUpdateEvent" in document["problems"]
