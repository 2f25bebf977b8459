"""The upgrade rules of `trajkit.events.upgrade`: each on a small old object and on its real sample."""

from __future__ import annotations

import glob
import json
from pathlib import Path
from typing import Any

import pytest

from tests.shapes.test_wild_samples import WILD, needs_wild
from trajkit.events import ActionEvent, ObservationEvent, SystemPromptEvent
from trajkit.events.upgrade import RULES, parse_event_upgraded, upgrade_base_state, upgrade_event

OLD_ACTION = {
    "kind": "ActionEvent",
    "id": "71468c29-71e3-437a-ab30-7bfb74fc1649",
    "timestamp": "2025-09-25T18:58:54.550076",
    "source": "agent",
    "thought": [],
    "action": {"kind": "ExecuteBashAction", "command": "ls", "is_input": False},
    "tool_name": "execute_bash",
    "tool_call_id": "toolu_1",
    "tool_call": {
        "index": 0,
        "function": {"arguments": '{"command": "ls"}', "name": "execute_bash"},
        "id": "toolu_1",
        "type": "function",
    },
    "llm_response_id": "chatcmpl-1",
    "security_risk": "LOW",
}
OLD_OBSERVATION = {
    "kind": "ObservationEvent",
    "id": "ad5ae7bb-9938-4dcf-9d1f-c614209c1708",
    "timestamp": "2025-09-25T18:58:54.555590",
    "source": "environment",
    "tool_name": "str_replace_editor",
    "tool_call_id": "toolu_2",
    "observation": {
        "kind": "StrReplaceEditorObservation",
        "command": "view",
        "output": "",
        "path": "/x",
        "prev_exist": True,
        "error": "no such file",
    },
    "action_id": "71468c29-71e3-437a-ab30-7bfb74fc1649",
}


def test_old_action_becomes_terminal_action_with_message_tool_call() -> None:
    event, applied = parse_event_upgraded(json.dumps(OLD_ACTION).encode())
    assert applied == ["bash-kinds", "tool-call"]
    assert isinstance(event, ActionEvent)
    assert event.action.kind == "TerminalAction"  # type: ignore[union-attr]
    assert (event.tool_call.id, event.tool_call.name) == ("toolu_1", "execute_bash")
    assert event.tool_call.arguments == '{"command": "ls"}'


def test_editor_error_text_becomes_error_content() -> None:
    event, applied = parse_event_upgraded(dict(json.loads(json.dumps(OLD_OBSERVATION))))
    assert applied == ["editor-kinds", "observation-content"]
    assert isinstance(event, ObservationEvent)
    assert event.observation.kind == "FileEditorObservation"
    assert event.observation.is_error is True
    assert [c.text for c in event.observation.content] == ["no such file"]  # type: ignore[union-attr]


def test_openai_tools_keep_the_recorded_function() -> None:
    old = {
        "kind": "SystemPromptEvent",
        "id": "a6dbad6c-3622-46dc-8a2b-44fbb4c7b66c",
        "timestamp": "2025-09-29T15:59:30.320772",
        "source": "agent",
        "system_prompt": {"cache_prompt": False, "type": "text", "text": "hi"},
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "finish",
                    "description": "Signals completion.",
                    "parameters": {"type": "object", "properties": {"message": {"type": "string"}}},
                },
            }
        ],
    }
    event, applied = parse_event_upgraded(old)
    assert applied == ["openai-tools"]
    assert isinstance(event, SystemPromptEvent)
    from trajkit.convert.tools import tools_to_chat

    assert tools_to_chat(event.tools) == [
        {
            "type": "function",
            "function": {
                "name": "finish",
                "description": "Signals completion.",
                "parameters": {"type": "object", "properties": {"message": {"type": "string"}}},
            },
        }
    ]


def test_base_state_rules() -> None:
    state: dict[str, Any] = {
        "id": "x",
        "agent": {
            "llm": {"model": "gpt-4", "service_id": "a"},
            "tools": [{"name": "BashTool", "params": {"working_dir": "/repo"}}],
            "mcp_config": {"mcpServers": {"fetch": {"command": "uvx"}}},
        },
        "agent_status": "paused",
        "activated_knowledge_microagents": [],
        "stats": {"service_to_metrics": {"a": {}}},
    }
    assert upgrade_base_state(state) == [
        "workspace",
        "execution-status",
        "knowledge-skills",
        "usage-id",
        "mcp-servers",
        "tool-spec-names",
    ]
    assert state["execution_status"] == "paused" and "agent_status" not in state
    assert state["agent"]["llm"]["usage_id"] == "a"
    assert state["stats"] == {"usage_to_metrics": {"a": {}}}
    assert state["agent"]["tools"] == [{"name": "terminal", "params": {"working_dir": "/repo"}}]
    assert state["workspace"] == {"working_dir": "/repo", "kind": "LocalWorkspace"}
    assert state["agent"]["mcp_config"] == {"fetch": {"command": "uvx"}}


def test_current_events_take_no_rule() -> None:
    from tests.support import fixtures as fx

    for path in fx.sdk_event_files():
        obj = json.loads(path.read_bytes())
        assert upgrade_event(obj) == [], path


def _objects(sample: str) -> list[dict[str, Any]]:
    root = WILD / sample.split(",")[0].strip().replace("/*", "")
    found: list[dict[str, Any]] = []
    if root.suffix == ".jsonl":
        for line in root.read_text().splitlines():
            found.extend(json.loads(line)["history"])
        return found
    for name in sorted(glob.glob(str(root / "**" / "*.json"), recursive=True)):
        data = json.loads(Path(name).read_bytes())
        found.append(data)
    return found


@needs_wild
@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
def test_each_rule_fires_on_the_sample_it_came_from(rule: Any) -> None:
    objects = _objects(rule.sample)
    if rule.target == "base_state":
        objects = [o for o in objects if "agent" in o and "kind" not in o]
    fired = [o for o in objects if rule.apply(json.loads(json.dumps(o)))]
    assert fired, f"{rule.name} changed nothing in {rule.sample}"
    for obj in fired:  # and what it produces is the current model
        if rule.target == "event":
            event, _ = parse_event_upgraded(json.loads(json.dumps(obj)))
            assert "Unknown" not in type(event).__name__
        else:
            from trajkit.events.state import parse_base_state

            copy = json.loads(json.dumps(obj))
            upgrade_base_state(copy)
            parse_base_state(copy)
