"""Tool definitions rebuilt from the SystemPromptEvent, as openhands-sdk 1.58.2 sends them."""

from __future__ import annotations

import json

from tests.convert._openai import check_chat, check_responses
from tests.support import fixtures as fx
from trajkit.convert import convert_conversation, tools_to_chat, tools_to_responses
from trajkit.convert.tools import tool_name, tool_parameters
from trajkit.events import SystemPromptEvent
from trajkit.store import open_conversation

SUMMARY = (
    '{"type": "string", "description": "A concise summary (approximately 10 words) describing '
    "what this specific action does. Focus on the key operation and target. Example: 'List all "
    "Python files in current directory'\"}"
)
RISK = (
    '{"type": "string", "description": "Security risk levels for actions.\\n\\nBased on OpenHands '
    "security risk levels but adapted for agent-sdk.\\nInteger values allow for easy comparison "
    'and ordering.", "enum": ["UNKNOWN", "LOW", "MEDIUM", "HIGH"]}'
)
# v1-rendering.md section 7.3, concatenated: the exact JSON text (key order included).
FINISH = (
    '{"type": "object", "properties": {"summary": ' + SUMMARY + ', "message": {"type": "string", '
    '"description": "Final message to send to the user."}}, "required": ["message"]}'
)
THINK = (
    '{"type": "object", "properties": {"summary": ' + SUMMARY + ', "thought": {"type": "string", '
    '"description": "The thought to log."}}, "required": ["thought"]}'
)


def _system_prompt(scenario: str) -> SystemPromptEvent:
    events = open_conversation(fx.sdk_conversation(scenario)).iter_events()
    return next(e for e in events if isinstance(e, SystemPromptEvent))


def test_builtin_tools_of_the_fixtures() -> None:
    event = _system_prompt("b_terminal")
    chat = tools_to_chat(event.tools)
    assert [t["function"]["name"] for t in chat] == ["terminal", "file_editor", "finish", "think"]
    assert [t["function"]["description"] for t in chat] == [t.description for t in event.tools]
    by_name = {t["function"]["name"]: t["function"]["parameters"] for t in chat}
    assert json.dumps(by_name["finish"], ensure_ascii=False) == FINISH
    assert json.dumps(by_name["think"], ensure_ascii=False) == THINK
    terminal = by_name["terminal"]
    assert list(terminal) == ["type", "properties", "required"]
    assert list(terminal["properties"]) == [
        "security_risk",
        "summary",
        "command",
        "is_input",
        "timeout",
        "reset",
    ]
    assert json.dumps(terminal["properties"]["security_risk"]) == RISK
    assert "\u2019ll be asked" in terminal["properties"]["timeout"]["description"]
    editor = by_name["file_editor"]
    assert editor["required"] == ["command", "path"]
    assert list(editor["properties"]["view_range"]) == ["type", "items", "description"]
    check_chat([], chat)


def test_responses_shape() -> None:
    tools = tools_to_responses(_system_prompt("a_text").tools)
    assert list(tools[0]) == ["type", "name", "description", "parameters", "strict"]
    assert tools[0]["strict"] is False
    check_responses(None, [], tools)


def test_mcp_tool_schema_is_simplified_and_prefixed() -> None:
    mcp = {
        "kind": "MCPToolDefinition",
        "description": "Fetch a URL.",
        "action_type": "MCPToolAction",
        "title": "fetch",
        "annotations": {"readOnlyHint": False},
        "mcp_tool": {
            "name": "fetch",
            "inputSchema": {
                "type": "object",
                "$defs": {
                    "Opts": {
                        "type": "object",
                        "description": "Options.",
                        "properties": {"raw": {"type": "boolean", "default": False}},
                    }
                },
                "properties": {
                    "url": {"type": "string", "description": "URL", "format": "uri"},
                    "max_length": {
                        "anyOf": [{"type": "integer"}, {"type": "null"}],
                        "description": "Limit",
                        "default": 5000,
                    },
                    "opts": {"$ref": "#/$defs/Opts"},
                },
                "required": ["url"],
            },
        },
    }
    assert tool_name(mcp) == "fetch"
    params = tool_parameters(mcp)
    assert list(params["properties"]) == ["security_risk", "summary", "url", "max_length", "opts"]
    assert params["properties"]["security_risk"]["description"] == (
        "The LLM's assessment of the safety risk of this action."
    )
    assert params["properties"]["max_length"] == {"type": "integer", "description": "Limit"}
    assert params["properties"]["opts"] == {
        "type": "object",
        "description": "Options.",
        "properties": {"raw": {"type": "boolean"}},
    }
    assert params["required"] == ["url"]
    read_only = {**mcp, "annotations": {"readOnlyHint": True}}
    assert "security_risk" not in tool_parameters(read_only)["properties"]
    check_chat([], tools_to_chat([mcp]))


def test_documents_carry_the_tools() -> None:
    folder = fx.sdk_conversation("c_file_editor")
    chat = convert_conversation(folder, to="chat")
    resp = convert_conversation(folder, to="responses")
    assert [t["function"]["name"] for t in chat["tools"]] == [t["name"] for t in resp["tools"]]
