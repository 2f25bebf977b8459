"""Upgrade events and base states written by older OpenHands SDK versions to the current model.

One table, `RULES`: each rule names the SDK change that made the old shape obsolete (the commit
in `OpenHands/software-agent-sdk` where the old name was last written), the shape it rewrites,
and the real sample it was found in (`../shared/fixtures-wild/`). A rule is a function that
rewrites a decoded JSON object in place and says whether it changed anything; rules that do not
apply cost a few dict lookups, so every object goes through the table.

The rewrites are the SDK's own renames, nothing is guessed: a value is moved to the field that
replaced it (`agent_status` -> `execution_status`), a kind gets its new class name
(`ExecuteBashAction` -> `TerminalAction`), an observation's `output` text becomes the
`content` list that replaced it, the litellm tool-call object becomes `MessageToolCall`, and
tool definitions recorded in OpenAI's format become `ToolDefinition`s keeping the recorded name,
description and parameter schema (in `meta["openai_function"]`), so a conversion sends the tool
the model was really offered. Fields that were dropped without a successor (message flags such
as `cache_enabled`) are removed. Readers report each rule that fired once per conversation
(`describe`); `validate` reports them as warnings, errors with `--strict`.

Imports nothing from the rest of trajkit beyond `events/`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

import orjson

__all__ = [
    "RULES",
    "UpgradeRule",
    "describe",
    "parse_event_upgraded",
    "upgrade_and_parse",
    "upgrade_base_state",
    "upgrade_event",
]

Obj = dict[str, Any]


@dataclass(frozen=True)
class UpgradeRule:
    """One rewrite from an older SDK's shape to the current one."""

    name: str
    """Short id, used in warnings and tests."""
    target: Literal["event", "base_state"]
    """What the rule rewrites."""
    change: str
    """What changed, in the SDK's words."""
    sdk_commit: str
    """The `OpenHands/software-agent-sdk` commit that made the change (hash, date, PR)."""
    sample: str
    """The real sample (`fixtures-wild/...`) the old shape was found in."""
    apply: Callable[[Obj], bool]
    """Rewrites the object in place; True when it changed something."""


# -- event rules ---------------------------------------------------------------------------

_PAYLOAD_RENAMES = {
    "ExecuteBashAction": "TerminalAction",
    "ExecuteBashObservation": "TerminalObservation",
}
_EDITOR_RENAMES = {
    "StrReplaceEditorAction": "FileEditorAction",
    "StrReplaceEditorObservation": "FileEditorObservation",
}


def _rename_payload_kinds(renames: dict[str, str]) -> Callable[[Obj], bool]:
    def rule(obj: Obj) -> bool:
        changed = False
        for key in ("action", "observation"):
            payload = obj.get(key)
            if isinstance(payload, dict) and _str(payload.get("kind")) in renames:
                payload["kind"] = renames[payload["kind"]]
                changed = True
        return changed

    return rule


def _str(value: Any) -> str:
    """`value` when it is a string, else "" (damaged input must not break a rule)."""
    return value if isinstance(value, str) else ""


def _text(text: str) -> Obj:
    return {"cache_prompt": False, "type": "text", "text": text}


_OUTPUT_KINDS = frozenset(
    {"TerminalObservation", "FileEditorObservation", "TaskTrackerObservation"}
)


def _observation_output_to_content(obj: Obj) -> bool:
    """`output: str` + `error` became `content: [TextContent]` + `is_error` (all observations)."""
    payload = obj.get("observation")
    if not isinstance(payload, dict):
        return False
    if _think_finish_content(payload):
        return True
    if _str(payload.get("kind")) not in _OUTPUT_KINDS or "content" in payload:
        return False
    if "output" not in payload and "error" not in payload:
        return False
    output = payload.pop("output", None)
    error = payload.pop("error", None)
    content: list[Obj] = []
    is_error = False
    if isinstance(error, bool):  # ExecuteBashObservation: a flag beside the output
        is_error = error
    elif isinstance(error, str) and error:  # StrReplaceEditorObservation: the error text
        is_error = True
        content.append(_text(error))
    if isinstance(output, str) and (output or not content):
        content.insert(0, _text(output))
    payload["content"] = content
    if is_error:
        payload["is_error"] = True
    return True


def _think_finish_content(payload: Obj) -> bool:
    kind = payload.get("kind")
    if kind == "ThinkObservation" and isinstance(payload.get("content"), str):
        payload["content"] = [_text(payload["content"])]
        return True
    if kind == "FinishObservation" and isinstance(payload.get("message"), str):
        payload["content"] = [_text(payload.pop("message"))]
        return True
    return False


def _litellm_tool_call(obj: Obj) -> bool:
    """litellm's `ChatCompletionMessageToolCall` became `MessageToolCall` (id, name, arguments)."""
    call = obj.get("tool_call")
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        return False
    function = call["function"]
    obj["tool_call"] = {
        "id": call.get("id") if isinstance(call.get("id"), str) else obj.get("tool_call_id"),
        "name": function.get("name") if isinstance(function.get("name"), str) else "",
        "arguments": function.get("arguments")
        if isinstance(function.get("arguments"), str)
        else "{}",
        "origin": "completion",
    }
    return True


_DROPPED_MESSAGE_FLAGS = (
    "cache_enabled",
    "vision_enabled",
    "function_calling_enabled",
    "force_string_serializer",
)


def _message_flags(obj: Obj) -> bool:
    """Serialization flags stored on `Message` moved to `to_chat_dict()` parameters."""
    message = obj.get("llm_message")
    if not isinstance(message, dict):
        return False
    found = [k for k in _DROPPED_MESSAGE_FLAGS if k in message]
    for key in found:
        del message[key]
    return bool(found)


def _renamed(old: str, new: str, *, list_value: bool = False) -> Callable[[Obj], bool]:
    """A key renamed `old` -> `new` (a value already under `new` wins; `list_value`: a value
    that is not a list becomes `[]`).
    """

    def rule(obj: Obj) -> bool:
        if old not in obj:
            return False
        value = obj.pop(old)
        obj.setdefault(new, [] if list_value and not isinstance(value, list) else value)
        return True

    return rule


_TOOL_CLASSES = {
    # Tool names of the SDK before the renames, and the classes that replaced them.
    "execute_bash": ("TerminalTool", "TerminalAction", "TerminalObservation"),
    "str_replace_editor": ("FileEditorTool", "FileEditorAction", "FileEditorObservation"),
    "terminal": ("TerminalTool", "TerminalAction", "TerminalObservation"),
    "file_editor": ("FileEditorTool", "FileEditorAction", "FileEditorObservation"),
    "finish": ("FinishTool", "FinishAction", "FinishObservation"),
    "think": ("ThinkTool", "ThinkAction", "ThinkObservation"),
    "task_tracker": ("TaskTrackerTool", "TaskTrackerAction", "TaskTrackerObservation"),
}


def _openai_tools(obj: Obj) -> bool:
    """`SystemPromptEvent.tools` held OpenAI tool dicts; now `ToolDefinition`s (with `kind`)."""
    tools = obj.get("tools")
    if obj.get("kind") != "SystemPromptEvent" or not isinstance(tools, list):
        return False
    changed = False
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict) or not isinstance(tool.get("function"), dict):
            continue
        function = tool["function"]
        name = str(function.get("name") or f"tool_{i}")
        description = str(function.get("description") or "")
        entry: Obj = {"description": description}
        if name in _TOOL_CLASSES:
            kind, action, observation = _TOOL_CLASSES[name]
            entry.update(action_type=action, observation_type=observation)
        else:  # not a built-in: an MCP tool (`fetch_fetch`), the one class with a schema
            kind = "MCPToolDefinition"
            entry.update(action_type="MCPToolAction", observation_type="MCPToolObservation")
            schema = function.get("parameters")
            entry["mcp_tool"] = {
                "name": name,
                "description": description,
                "inputSchema": schema if isinstance(schema, dict) else {"type": "object"},
            }
        entry.update(meta={"openai_function": function}, kind=kind, title=name)
        tools[i] = entry
        changed = True
    return changed


def _condensation_response_id(obj: Obj) -> bool:
    """`llm_response_id` became required on every LLM-generated event, condensations included.

    Older condensations have none; their own id stands in (nothing groups by it: a condensation
    is never sent to the LLM).
    """
    if obj.get("kind") != "Condensation" or "llm_response_id" in obj:
        return False
    obj["llm_response_id"] = obj.get("id") if isinstance(obj.get("id"), str) else ""
    return True


# -- base_state rules ----------------------------------------------------------------------


def _service_to_usage(obj: Obj) -> bool:
    changed = False
    stats = obj.get("stats")
    if isinstance(stats, dict) and "service_to_metrics" in stats:
        stats.setdefault("usage_to_metrics", stats.pop("service_to_metrics"))
        changed = True
    for llm in _llms(obj.get("agent")):
        if "service_id" in llm:
            llm.setdefault("usage_id", llm.pop("service_id"))
            changed = True
    return changed


def _llms(agent: Any) -> Iterable[Obj]:
    if not isinstance(agent, dict):
        return
    if isinstance(agent.get("llm"), dict):
        yield agent["llm"]
    condenser = agent.get("condenser")
    if isinstance(condenser, dict) and isinstance(condenser.get("llm"), dict):
        yield condenser["llm"]


def _workspace(obj: Obj) -> bool:
    """Base states before the Workspace abstraction name none; the terminal's folder was it.

    Only states of that era (still saying `agent_status`) are given one: a current state
    without a workspace is left as it is.
    """
    if "workspace" in obj or "agent_status" not in obj or not isinstance(obj.get("agent"), dict):
        return False
    working_dir = "/workspace"
    tools = obj["agent"].get("tools")
    for spec in tools if isinstance(tools, list) else []:
        params = spec.get("params") if isinstance(spec, dict) else None
        if isinstance(params, dict) and isinstance(params.get("working_dir"), str):
            working_dir = params["working_dir"]
            break
    obj["workspace"] = {"working_dir": working_dir, "kind": "LocalWorkspace"}
    return True


def _mcp_servers(obj: Obj) -> bool:
    """`agent.mcp_config` wrapped its servers in `mcpServers`; it is now the plain map."""
    agent = obj.get("agent")
    config = agent.get("mcp_config") if isinstance(agent, dict) else None
    if not isinstance(config, dict) or set(config) != {"mcpServers"}:
        return False
    if not isinstance(config["mcpServers"], dict):
        return False
    agent["mcp_config"] = config["mcpServers"]  # type: ignore[index]
    return True


_TOOL_SPEC_NAMES = {
    "BashTool": "terminal",
    "FileEditorTool": "file_editor",
    "TaskTrackerTool": "task_tracker",
}


def _tool_class_names(obj: Obj) -> bool:
    """Agent tool specs named the class (`BashTool`); the registry now uses `terminal` etc."""
    agent = obj.get("agent")
    tools = agent.get("tools") if isinstance(agent, dict) else None
    if not isinstance(tools, list):
        return False
    changed = False
    for spec in tools:
        if isinstance(spec, dict) and _str(spec.get("name")) in _TOOL_SPEC_NAMES:
            spec["name"] = _TOOL_SPEC_NAMES[spec["name"]]
            changed = True
    return changed


RULES: tuple[UpgradeRule, ...] = (
    UpgradeRule(
        "bash-kinds",
        "event",
        "ExecuteBashAction/ExecuteBashObservation renamed TerminalAction/TerminalObservation",
        "e485bba96 2025-11-19 (#1193)",
        "benchmarks-v1-output/openagentsafety_output.jsonl, agent-server/*",
        _rename_payload_kinds(_PAYLOAD_RENAMES),
    ),
    UpgradeRule(
        "editor-kinds",
        "event",
        "StrReplaceEditorAction/Observation renamed FileEditorAction/Observation",
        "3ce74a165 2025-10-03 (#628)",
        "agent-server/*",
        _rename_payload_kinds(_EDITOR_RENAMES),
    ),
    UpgradeRule(
        "observation-content",
        "event",
        "observations' output/error (and Think/Finish text) became content + is_error",
        "41d8d80c8 2025-11-05 (#929)",
        "agent-server/*, benchmarks-v1-output/openagentsafety_output.jsonl",
        _observation_output_to_content,
    ),
    UpgradeRule(
        "tool-call",
        "event",
        "litellm's ChatCompletionMessageToolCall replaced by MessageToolCall",
        "19f0e2201 2025-10-02 (#550)",
        "agent-server/*",
        _litellm_tool_call,
    ),
    UpgradeRule(
        "message-flags",
        "event",
        "Message's cache/vision/function-calling/string-serializer flags removed",
        "98c8c22e8 2026-01-23 (#1800)",
        "agent-server/*",
        _message_flags,
    ),
    UpgradeRule(
        "skills",
        "event",
        "MessageEvent.activated_microagents renamed activated_skills",
        "7b4250b76 2025-10-21 (#820)",
        "agent-server/*",
        _renamed("activated_microagents", "activated_skills", list_value=True),
    ),
    UpgradeRule(
        "openai-tools",
        "event",
        "SystemPromptEvent.tools in OpenAI format replaced by ToolDefinition",
        "before 1.0.0 (tools without a top-level description)",
        "sdk-early/test_file_store, agent-server/*",
        _openai_tools,
    ),
    UpgradeRule(
        "condensation-response-id",
        "event",
        "llm_response_id required on Condensation (the event's id stands in)",
        "484f29909 2025-10-30 (#930)",
        "agent-server/*",
        _condensation_response_id,
    ),
    UpgradeRule(
        "workspace",
        "base_state",
        "workspace added to the state (the terminal's working_dir, else /workspace)",
        "2ca2db4c9 2025-09-30 (#534)",
        "sdk-early/test_file_store, agent-server/*",
        _workspace,
    ),
    UpgradeRule(
        "execution-status",
        "base_state",
        "agent_status renamed execution_status",
        "00af7a968 2025-11-04 (#839)",
        "sdk-early/test_file_store, agent-server/*",
        _renamed("agent_status", "execution_status"),
    ),
    UpgradeRule(
        "knowledge-skills",
        "base_state",
        "activated_knowledge_microagents renamed activated_knowledge_skills",
        "7b4250b76 2025-10-21 (#820)",
        "sdk-early/test_file_store, agent-server/*",
        _renamed("activated_knowledge_microagents", "activated_knowledge_skills", list_value=True),
    ),
    UpgradeRule(
        "usage-id",
        "base_state",
        "service_id/service_to_metrics renamed usage_id/usage_to_metrics",
        "32e1e75f7 2025-10-19 (#799)",
        "sdk-early/test_file_store, agent-server/*",
        _service_to_usage,
    ),
    UpgradeRule(
        "mcp-servers",
        "base_state",
        "agent.mcp_config's mcpServers wrapper dropped (a plain map of servers)",
        "fe924f705 2026-07-06 (#3964)",
        "agent-server/*",
        _mcp_servers,
    ),
    UpgradeRule(
        "tool-spec-names",
        "base_state",
        "agent tool specs named by class (BashTool) now use registry names (terminal)",
        "e485bba96 2025-11-19 (#1193)",
        "agent-server/*",
        _tool_class_names,
    ),
)
"""Every upgrade rule, in the order they are applied."""

_BY_NAME = {rule.name: rule for rule in RULES}
_EVENT_RULES = tuple(r for r in RULES if r.target == "event")
_STATE_RULES = tuple(r for r in RULES if r.target == "base_state")


def upgrade_event(obj: Obj) -> list[str]:
    """Apply every event rule to `obj` in place; the names of those that changed it.

    `kind` is moved last, where the current SDK's dump has it, so the upgraded object dumped
    again is read on the fast path (`parse.kind_span`); older SDKs wrote it first.
    """
    applied = _apply(_EVENT_RULES, obj)
    if "kind" in obj:
        obj["kind"] = obj.pop("kind")
    return applied


def upgrade_base_state(obj: Obj) -> list[str]:
    """Apply every base-state rule to `obj` in place; the names of those that changed it."""
    return _apply(_STATE_RULES, obj)


def _apply(rules: tuple[UpgradeRule, ...], obj: Obj) -> list[str]:
    applied = []
    for rule in rules:
        try:
            if rule.apply(obj):
                applied.append(rule.name)
        except (TypeError, AttributeError, ValueError, KeyError):
            continue  # a damaged object: the model's own checks will say what is wrong
    return applied


def describe(name: str, count: int | None = None) -> str:
    """The warning for one rule: what was upgraded, and from which SDK change."""
    rule = _BY_NAME[name]
    times = "" if count is None else f" ({count} {'event' if count == 1 else 'events'})"
    if rule.target == "base_state":
        times = " (base_state.json)"
    return (
        f"older SDK format upgraded in memory: {rule.change}{times}; "
        f"openhands-sdk {rule.sdk_commit}"
    )


def parse_event_upgraded(raw: bytes | str | Obj) -> tuple[Any, list[str]]:
    """`parse_event`, upgrading an older SDK's shape first; returns `(event, rule names)`.

    A current dump (kind last) takes the fast path unchanged (`parse_current_dump`); anything
    else goes through `upgrade_and_parse`.
    """
    from trajkit.events.parse import parse_current_dump

    if not isinstance(raw, dict):
        data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
        event = parse_current_dump(data)
        if event is not None:
            return event, []
    return upgrade_and_parse(raw)


def upgrade_and_parse(raw: bytes | str | Obj) -> tuple[Any, list[str]]:
    """What `parse_current_dump` refused: decode, apply the rules, parse the object.

    Maybe an old shape with kind last, or kind elsewhere; an invalid event raises the error
    the full union gives (`parse_event`), unknown kinds become `UnknownEvent`.
    """
    from trajkit.events.parse import parse_event

    if isinstance(raw, dict):
        obj = raw
    else:
        obj = orjson.loads(raw)
        if not isinstance(obj, dict):
            raise ValueError(f"an event must be a JSON object, got {type(obj).__name__}")
    applied = upgrade_event(obj)
    return parse_event(obj), applied
