"""Cases the fixtures do not hold: parallel calls, images, reasoning, errors, rejections, custom
tools, dangling calls, caching and string forms. Every payload is checked against openai's types."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from tests.convert._build import Log, image, text
from tests.convert._openai import check_chat, check_responses
from trajkit.convert import (
    ConversionOptions,
    FormatOptions,
    convert_events,
    messages_to_chat,
    messages_to_responses,
)
from trajkit.convert.adjust import IMAGE_PLACEHOLDER, SYNTHETIC_RESULT
from trajkit.events import Message, TextContent
from trajkit.events.truncate import BASE_NOTICE

PNG = "data:image/png;base64,iVBORw0KGgo="


def both(log: Log, **options: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Chat and Responses documents for the log, both validated with openai's types."""
    chat = convert_events(log.events, to="chat", options=ConversionOptions(**options))
    check_chat(chat["messages"], chat["tools"])
    resp = convert_events(log.events, to="responses", options=ConversionOptions(**options))
    check_responses(resp["instructions"], resp["input"], resp["tools"])
    return chat, resp


def wire(**changes: Any) -> ConversionOptions:
    """Options whose wire settings are convert's defaults (no LLM config) with `changes`."""
    return ConversionOptions(
        formatting=FormatOptions.from_llm({}, **{"tool_images": "user", **changes})
    )


def test_validators_reject_malformed_payloads() -> None:
    with pytest.raises(pydantic.ValidationError):
        check_chat([{"role": "assistant", "tool_calls": [{"id": "x", "type": "function"}]}])
    with pytest.raises(pydantic.ValidationError):
        check_responses(None, [{"type": "function_call_output", "call_id": "c"}])
    with pytest.raises(pydantic.ValidationError):
        check_responses(None, [{"type": "function_call", "call_id": "c", "name": "t"}])


def test_parallel_calls_become_one_assistant_message() -> None:
    log = Log()
    log.system()
    log.user(text("do three things"))
    ids = [
        log.action(f"call_{i}", "resp-1", thought="Three at once." if i == 0 else None)
        for i in range(3)
    ]
    for i, a in enumerate(ids):
        log.terminal_result(f"call_{i}", a, f"out {i}")
    log.agent("done", response="resp-2")
    chat, resp = both(log)
    assistant = chat["messages"][2]
    assert assistant["content"] == [{"type": "text", "text": "Three at once."}]
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_0", "call_1", "call_2"]
    assert [m["role"] for m in chat["messages"]] == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "tool",
        "assistant",
    ]
    kinds = [(i["type"], i.get("call_id")) for i in resp["input"]]
    assert kinds[1:8] == [
        ("message", None),
        ("function_call", "call_0"),
        ("function_call", "call_1"),
        ("function_call", "call_2"),
        ("function_call_output", "call_0"),
        ("function_call_output", "call_1"),
        ("function_call_output", "call_2"),
    ]
    assert resp["input"][2]["id"] == "fc_call_0"


def test_actions_of_one_response_split_by_another_event_are_two_messages() -> None:
    log = Log()
    log.system()
    a = log.action("c1", "resp-1")
    log.terminal_result("c1", a, "x")
    b = log.action("c2", "resp-1")
    log.terminal_result("c2", b, "y")
    chat, _ = both(log)
    assert [len(m.get("tool_calls", [])) for m in chat["messages"]] == [0, 1, 0, 1, 0]


def test_image_in_user_message() -> None:
    log = Log()
    log.system()
    log.user(text("what is this?"), image(PNG, "https://example.com/a.png"))
    log.agent("a cat")
    chat, resp = both(log)
    assert chat["messages"][1]["content"] == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": PNG}},
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
    ]
    assert resp["input"][0]["content"][1] == {
        "type": "input_image",
        "image_url": PNG,
        "detail": "auto",
    }
    chat, resp = both(log, images="placeholder")
    assert chat["messages"][1]["content"][1:] == [{"type": "text", "text": IMAGE_PLACEHOLDER}] * 2
    assert "data:" not in str(resp["input"])
    # Without vision the SDK drops images; a user message left empty still has one empty text.
    no_vision = convert_events(log.events, options=wire(vision=False))
    assert no_vision["messages"][1]["content"] == [{"type": "text", "text": "what is this?"}]


def test_image_in_tool_result() -> None:
    log = Log()
    log.system()
    a = log.action(
        "c1",
        "r1",
        tool="file_editor",
        arguments='{"command": "view"}',
        action={"command": "view", "path": "/w/a.png", "kind": "FileEditorAction"},
    )
    log.result(
        "c1",
        a,
        {
            "content": [text("Image file /w/a.png"), image(PNG)],
            "is_error": False,
            "command": "view",
            "kind": "FileEditorObservation",
        },
        tool="file_editor",
    )
    chat, resp = both(log)
    # OpenAI takes only text in tool messages: the image follows in a user message.
    assert chat["messages"][2]["content"] == [{"type": "text", "text": "Image file /w/a.png"}]
    assert chat["messages"][3] == {
        "content": [
            {"type": "text", "text": "Image output of tool call c1:"},
            {"type": "image_url", "image_url": {"url": PNG}},
        ],
        "role": "user",
    }
    sdk = convert_events(log.events, options=wire(tool_images="inline"))
    assert sdk["messages"][2]["content"][1] == {"type": "image_url", "image_url": {"url": PNG}}
    outputs = [i for i in resp["input"] if i["type"] == "function_call_output"]
    assert outputs[1]["output"] == [{"type": "input_image", "image_url": PNG, "detail": "auto"}]


def test_reasoning_in_chat_and_responses() -> None:
    log = Log()
    log.system()
    log.user(text("think"))
    a = log.action(
        "c1",
        "r1",
        reasoning_content="chain of thought",
        thinking_blocks=[
            {"type": "thinking", "thinking": "hmm"},
            {"type": "redacted_thinking", "data": "opaque"},
        ],
        responses_reasoning_item={
            "id": "rs_1",
            "summary": ["s1"],
            "content": ["c1"],
            "encrypted_content": "enc",
            "status": "completed",
        },
    )
    log.terminal_result("c1", a, "ok")
    chat, resp = both(log)
    assistant = chat["messages"][2]
    assert list(assistant) == ["role", "thinking_blocks", "tool_calls"]
    assert assistant["thinking_blocks"] == [
        {"type": "thinking", "thinking": "hmm", "signature": None},
        {"type": "redacted_thinking", "data": "opaque"},
    ]
    assert "reasoning_content" not in assistant
    assert resp["input"][1] == {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "s1"}],
        "content": [{"type": "reasoning_text", "text": "c1"}],
        "encrypted_content": "enc",
        "status": "completed",
    }
    kimi = convert_events(log.events, options=wire(model="moonshot/kimi-k2-thinking"))
    assert kimi["messages"][2]["reasoning_content"] == "chain of thought"
    chat, resp = both(log, reasoning=False)
    assert "thinking_blocks" not in chat["messages"][2]
    assert all(i["type"] != "reasoning" for i in resp["input"])


def test_reasoning_item_without_id_is_not_sent() -> None:
    messages = [
        Message.model_validate(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": " "}],
                "responses_reasoning_item": {"summary": ["x"]},
            }
        )
    ]
    _, items = messages_to_responses(messages)
    # whitespace-only text is kept in Responses (dropped only for Chat tool-call turns)
    assert items == [
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": " "}]}
    ]


def test_error_observation_has_separate_header() -> None:
    log = Log()
    log.system()
    a = log.action("c1", "r1")
    log.terminal_result(
        "c1",
        a,
        "boom",
        is_error=True,
        exit_code=2,
        suffix="\n[The command completed with exit code 2.]",
    )
    chat, resp = both(log)
    parts = chat["messages"][2]["content"]
    assert parts[0] == {"type": "text", "text": "[An error occurred during execution.]\n"}
    assert parts[1]["text"].endswith("[Command finished with exit code 2]")
    outputs = [i["output"] for i in resp["input"] if i["type"] == "function_call_output"]
    assert outputs[0] == "[An error occurred during execution.]\n"
    string_form = convert_events(log.events, options=wire(force_string_serializer=True))
    assert string_form["messages"][2]["content"].startswith(
        "[An error occurred during execution.]\n\nboom\n[The command completed"
    )


def test_rejected_action_and_agent_error() -> None:
    log = Log()
    log.system()
    a = log.action("c1", "r1")
    log.add(
        "UserRejectObservation",
        source="environment",
        tool_name="terminal",
        tool_call_id="c1",
        rejection_reason="Blocked by hook",
        rejection_source="hook",
        action_id=a,
    )
    log.action("c2", "r2", action=None, tool="nonexistent", arguments="{bad json")
    log.add(
        "AgentErrorEvent",
        source="agent",
        tool_name="nonexistent",
        tool_call_id="c2",
        error="Tool 'nonexistent' not found.",
    )
    chat, resp = both(log)
    assert chat["messages"][2] == {
        "content": [{"type": "text", "text": "Action rejected: Blocked by hook"}],
        "role": "tool",
        "tool_call_id": "c1",
        "name": "terminal",
    }
    assert chat["messages"][3]["tool_calls"][0]["function"]["arguments"] == "{bad json"
    assert chat["messages"][4]["content"] == [
        {"type": "text", "text": "Tool 'nonexistent' not found."}
    ]
    assert chat["problems"] == []


def test_unknown_custom_tool_observation_rendered_from_content() -> None:
    # (task_tracker was the example before its schema became known: tests/shapes/test_samples.py)
    custom_tool = {
        "description": "Keep notes.",
        "action_type": "NotesAction",
        "observation_type": "NotesObservation",
        "kind": "NotesTool",
        "title": "notes",
    }
    log = Log()
    log.system(tools=[custom_tool])
    a = log.action(
        "c1",
        "r1",
        tool="notes",
        arguments='{"command": "view"}',
        action={"command": "view", "kind": "NotesAction"},
    )
    log.result(
        "c1",
        a,
        {
            "content": [text("No notes.")],
            "is_error": False,
            "command": "view",
            "kind": "NotesObservation",
        },
        tool="notes",
    )
    chat, resp = both(log)
    assert chat["messages"][2]["content"] == [{"type": "text", "text": "No notes."}]
    assert chat["tools"][0]["function"]["name"] == "notes"
    assert chat["problems"] == ["tool 'notes': parameter schema unknown, sent as an open object"]


def _dangling_log() -> Log:
    log = Log()
    log.system()
    log.user(text("go"))
    a = log.action("c1", "r1", thought="Two calls.")
    log.action("c2", "r1")
    log.terminal_result("c1", a, "first")
    return log  # c2 never answered: the run crashed


@pytest.mark.parametrize("view", ["full", "condensed"])
def test_dangling_call_dropped_by_default_and_reported(view: str) -> None:
    chat, resp = both(_dangling_log(), view=view)
    if view == "full":
        assert chat["problems"] == ["tool call without a result: terminal (id c2, message 2)"]
        assert [c["id"] for c in chat["messages"][2]["tool_calls"]] == ["c1"]
    else:
        # The SDK's view itself drops the unanswered batch; trajkit says so.
        assert chat["messages"][-1]["role"] == "user"
        assert all("left out of the condensed view" in p for p in chat["problems"])
        assert len(chat["problems"]) == 3
    assert "c2" not in str(resp["input"])


def test_dangling_call_synthesized() -> None:
    chat, resp = both(_dangling_log(), view="full", dangling="synthesize")
    assert chat["messages"][-1] == {
        "content": [{"type": "text", "text": SYNTHETIC_RESULT}],
        "role": "tool",
        "tool_call_id": "c2",
        "name": "terminal",
    }
    assert resp["input"][-1]["call_id"] == "c2"
    assert chat["problems"] == ["tool call without a result: terminal (id c2, message 2)"]


def test_dangling_call_report_only_keeps_sdk_projection() -> None:
    chat = convert_events(
        _dangling_log().events, options=ConversionOptions(view="full", dangling="report")
    )
    assert [c["id"] for c in chat["messages"][2]["tool_calls"]] == ["c1", "c2"]
    assert chat["problems"]
    with pytest.raises(AssertionError):
        _assert_answered(chat["messages"])


def _assert_answered(messages: list[dict[str, Any]]) -> None:
    open_calls: set[str] = set()
    for m in messages:
        if m["role"] == "tool":
            open_calls.remove(m["tool_call_id"])
        else:
            assert not open_calls, f"unanswered: {open_calls}"
            open_calls = {c["id"] for c in m.get("tool_calls", [])}
    assert not open_calls, f"unanswered: {open_calls}"


def test_dangling_call_in_the_middle_is_dropped() -> None:
    log = Log()
    log.system()
    log.action("c1", "r1", thought="Let me look.")
    log.user(text("stop, do something else"))  # interrupt: no result was ever written
    log.agent("ok")
    chat, _ = both(log, view="full")
    assert chat["messages"][1] == {
        "content": [{"type": "text", "text": "Let me look."}],
        "role": "assistant",
    }
    _assert_answered(chat["messages"])


def test_tool_text_over_50000_chars_is_clipped() -> None:
    big = "x" * 60_000
    log = Log()
    log.system()
    a = log.action("c1", "r1", tool="fetch", action={"data": {}, "kind": "MCPToolAction"})
    log.result(
        "c1",
        a,
        {
            "content": [text("[Tool 'fetch' executed.]"), text(big)],
            "is_error": False,
            "tool_name": "fetch",
            "kind": "MCPToolObservation",
        },
        tool="fetch",
    )
    chat, resp = both(log)
    clipped = chat["messages"][2]["content"][1]["text"]
    assert len(clipped) == 50_000 and BASE_NOTICE in clipped
    assert clipped.startswith("x" * 24_944) and clipped.endswith("x" * 24_943)
    outputs = [i["output"] for i in resp["input"] if i["type"] == "function_call_output"]
    assert outputs == ["[Tool 'fetch' executed.]", clipped]


def test_long_terminal_output_names_saved_file() -> None:
    log = Log()
    log.system()
    a = log.action("c1", "r1")
    obs_id = log.terminal_result("c1", a, "y" * 30_000)
    log.raw[-1]["observation"]["full_output_save_dir"] = "/p/conv/observations"
    assert obs_id
    chat, _ = both(log)
    out = chat["messages"][2]["content"][0]["text"]
    assert len(out) == 30_000
    assert "saved to /p/conv/observations/terminal_output_" in out


def test_prompt_caching_marks() -> None:
    log = Log()
    log.system(dynamic_context=text("today is Monday"))
    log.user(text("hi"))
    a = log.action("c1", "r1")
    log.terminal_result("c1", a, "out")
    chat = convert_events(log.events, options=wire(caching=True))
    messages = chat["messages"]
    check_chat(messages)
    assert messages[0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in messages[0]["content"][1]
    assert "cache_control" not in messages[1]["content"][0]  # not the last user/tool message
    assert list(messages[3]) == ["content", "role", "cache_control", "tool_call_id", "name"]
    assert "cache_control" not in messages[3]["content"][0]
    # Anthropic models turn caching on from the persisted LLM settings alone.
    assert FormatOptions.from_llm({"model": "anthropic/claude-sonnet-4-5"}).caching is True
    assert FormatOptions.from_llm({"model": "openai/gpt-4o"}).caching is False


def test_string_form_and_empty_assistant_content() -> None:
    messages = [
        Message(
            role="assistant",
            content=[TextContent(text="  ")],
            tool_calls=[{"id": "c", "name": "t", "arguments": "{}"}],
        ),  # type: ignore[list-item]
        Message(role="assistant", content=[]),
        Message(role="assistant", content=[TextContent(text=" ")]),
    ]
    assert messages_to_chat(messages, FormatOptions(force_string_serializer=True)) == [
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "t", "arguments": "{}"}}
            ],
        },
        {"content": "", "role": "assistant"},
        {"content": " ", "role": "assistant"},
    ]
    as_list = messages_to_chat(messages)
    assert "content" not in as_list[0] and as_list[1]["content"] == ""
    assert as_list[2]["content"] == [{"type": "text", "text": " "}]
    assert messages_to_chat(messages, FormatOptions(model="openrouter/z-ai/glm-4.6"))[1] == {
        "content": "",
        "role": "assistant",
    }


def test_user_turns_merge_and_extended_content() -> None:
    log = Log()
    log.system()
    log.user(text("nudge"), source="environment")
    log.user(text("real request"), extended_content=[text("<skill>")])
    chat, resp = both(log)
    assert chat["messages"][1]["content"] == [
        {"type": "text", "text": "nudge"},
        {"type": "text", "text": "real request"},
        {"type": "text", "text": "<skill>"},
    ]
    assert len(resp["input"]) == 1


def test_system_instructions_and_dropping_them() -> None:
    log = Log()
    log.system("  Static prompt.", dynamic_context=text("Dynamic.  "))
    log.user(text("hi"))
    _, resp = both(log)
    assert resp["instructions"] == "Static prompt.\nDynamic."
    chat, resp = both(log, system=False)
    assert chat["messages"][0]["role"] == "user"
    assert resp["instructions"] is None
    two = [
        Message(role="system", content=[TextContent(text="A")]),
        Message(role="system", content=[TextContent(text=""), TextContent(text="B")]),
    ]
    assert messages_to_responses(two) == ("A\n\n---\n\nB", [])


def test_function_call_item_ids() -> None:
    tool_calls = [
        {"id": "fc_abc", "name": "t", "arguments": "{}"},
        {"id": "call_1", "name": "t", "arguments": "{}", "responses_item_id": "fc_orig"},
        {"id": "call_2", "name": "t", "arguments": "{}"},
    ]
    m = Message.model_validate({"role": "assistant", "tool_calls": tool_calls})
    _, items = messages_to_responses([m])
    assert [i["id"] for i in items] == ["fc_abc", "fc_orig", "fc_call_2"]
    assert [i["call_id"] for i in items] == ["fc_abc", "call_1", "call_2"]


def test_unknown_event_kinds_are_reported_not_silently_dropped() -> None:
    log = Log()
    log.system()
    log.user(text("hi"))
    log.add("FutureThoughtEvent", source="agent", thought="from a newer SDK")
    chat, _ = both(log)
    assert len(chat["messages"]) == 2
    assert chat["problems"] == ["events of unknown kind left out: FutureThoughtEvent"]
