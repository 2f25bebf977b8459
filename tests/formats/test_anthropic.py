"""`convert --to anthropic`: requests the `anthropic` package's own request types accept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from click.testing import CliRunner
from pydantic import TypeAdapter

from tests.formats._shared import needs_formats
from tests.support import fixtures as fx
from trajkit.cli import main
from trajkit.convert import convert_conversation
from trajkit.convert.anthropic import messages_to_anthropic
from trajkit.events import Message, MessageToolCall, TextContent, ThinkingBlock
from trajkit.shapes import shape_refs

_REQUEST = TypeAdapter(MessageCreateParamsNonStreaming)


def _checked(request: dict[str, Any]) -> None:
    """The request validates as the SDK's `MessageCreateParamsNonStreaming`, keeping every key
    (pydantic drops keys a TypedDict does not name, so the validated copy must equal it)."""

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if value is None or isinstance(value, str | int | float | bool):
            return value
        return [plain(v) for v in value]  # the SDK's Iterable fields validate lazily

    assert plain(_REQUEST.validate_python(request)) == request


def test_every_sdk_fixture_is_a_valid_request(sdk_conversation_dir: Path) -> None:
    result = CliRunner().invoke(main, ["convert", str(sdk_conversation_dir), "--to", "anthropic"])
    assert result.exit_code == 0, result.output
    request = json.loads(result.stdout)
    _checked(request)
    chat = convert_conversation(sdk_conversation_dir)
    assert request["system"] == chat["messages"][0]["content"][0]["text"]
    assert [t["name"] for t in request["tools"]] == [t["function"]["name"] for t in chat["tools"]]
    roles = [m["role"] for m in request["messages"]]
    assert all(a != b for a, b in zip(roles, roles[1:], strict=False))  # roles alternate
    calls = [c["id"] for m in chat["messages"] for c in m.get("tool_calls") or []]
    uses = [b["id"] for m in request["messages"] for b in m["content"] if b["type"] == "tool_use"]
    results = [b["tool_use_id"] for m in request["messages"] for b in m["content"]
               if b["type"] == "tool_result"]  # fmt: skip
    assert uses == calls and sorted(results) == sorted(calls)


def test_thinking_blocks_come_first_and_results_join_the_next_user_turn() -> None:
    messages = [
        Message(role="system", content=[TextContent(text="be brief")]),
        Message(role="user", content=[TextContent(text="list files")]),
        Message(
            role="assistant",
            content=[TextContent(text="Listing.")],
            thinking_blocks=[ThinkingBlock(thinking="use ls", signature="sig")],
            tool_calls=[MessageToolCall(id="t1", name="terminal", arguments='{"command": "ls"}')],
        ),
        Message(
            role="tool", content=[TextContent(text="a.txt")], tool_call_id="t1", name="terminal"
        ),
        Message(role="user", content=[TextContent(text="thanks")]),
        Message(role="assistant", content=[TextContent(text="done")], reasoning_content="unsigned"),
    ]
    request, problems = messages_to_anthropic(messages, [], {"model": "anthropic/claude-x"})
    _checked(request)
    assert request["model"] == "claude-x" and request["system"] == "be brief"
    assert [b["type"] for b in request["messages"][1]["content"]] == [
        "thinking",
        "text",
        "tool_use",
    ]
    assert request["messages"][1]["content"][2]["input"] == {"command": "ls"}
    assert [b["type"] for b in request["messages"][2]["content"]] == ["tool_result", "text"]
    assert problems and "1 assistant message" in problems[0]


@needs_formats
@pytest.mark.parametrize("name", fx.ATIF_FILES + fx.SWE_FILES + fx.INSPECT_FILES)
def test_other_formats_become_valid_requests(name: str) -> None:
    for ref in shape_refs(fx.FORMATS / name) or []:
        _checked({k: v for k, v in convert_conversation(ref, to="anthropic").items()
                  if k not in ("conversation_id", "problems")})  # fmt: skip
