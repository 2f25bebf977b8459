"""Tool definitions for the ``tools`` request parameter, rebuilt from a ``SystemPromptEvent``.

The persisted tool entry keeps ``description``, ``action_type``, ``annotations``, ``kind`` and
``title`` but neither the name nor the parameter schema (v1-rendering.md section 7):

- name: ``mcp_tool.name`` for ``MCPToolDefinition``; otherwise ``kind`` in snake_case without the
  trailing ``_tool`` (``FileEditorTool`` -> ``file_editor``).
- description: the persisted text, verbatim (it depends on platform, vision and working dir).
- parameters: the fixed 1.58.2 schema of the built-in action (terminal, file_editor, finish, think),
  or the MCP ``inputSchema`` with ``$ref``/``anyOf`` simplified. ``security_risk`` is added unless
  the tool is read-only; ``summary`` is always added; both come first.

Chat shape ``{"type":"function","function":{name,description,parameters}}``; Responses shape
``{"type":"function",name,description,parameters,"strict":false}``. A tool whose schema is not
known (a custom tool class) gets an open object schema and is listed in ``unknown_tools``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from trajkit.events.tools import field_of, plain_value, recorded_function, tool_name

__all__ = [
    "BUILTIN_PARAMETERS",
    "chat_tool",
    "offered_parameters",
    "responses_tool",
    "simplify_schema",
    "tool_name",
    "tool_parameters",
    "tools_to_chat",
    "tools_to_responses",
    "unknown_tools",
]

_SECURITY_RISK = {
    "type": "string",
    "description": (
        "Security risk levels for actions.\n\nBased on OpenHands security risk levels but adapted "
        "for agent-sdk.\nInteger values allow for easy comparison and ordering."
    ),
    "enum": ["UNKNOWN", "LOW", "MEDIUM", "HIGH"],
}
_MCP_SECURITY_RISK_DESCRIPTION = "The LLM's assessment of the safety risk of this action."
_SUMMARY = {
    "type": "string",
    "description": (
        "A concise summary (approximately 10 words) describing what this specific action does. "
        "Focus on the key operation and target. Example: 'List all Python files in current "
        "directory'"
    ),
}


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


_TERMINAL = _schema(
    {
        "command": {
            "type": "string",
            "description": (
                "The shell command to execute. Can be empty string to view additional logs when "
                "the previous exit code is `-1`. Can be a special key name when `is_input` is "
                "True: `C-c` (Ctrl+C), `C-d` (Ctrl+D/EOF), `C-z` (Ctrl+Z), or any `C-<letter>` "
                "for Ctrl sequences; navigation keys `UP`, `DOWN`, `LEFT`, `RIGHT`, `HOME`, "
                "`END`, `PGUP`, `PGDN`; and `TAB`, `ESC`, `BS` (Backspace), `ENTER`. You can only "
                "execute one command at a time. Use the platform-appropriate shell syntax "
                "described in the tool description when chaining commands."
            ),
        },
        "is_input": {
            "type": "boolean",
            "description": (
                "If True, the command is an input to the running process. If False, the command "
                "is executed in the terminal session. Default is False."
            ),
        },
        "timeout": {
            "type": "number",
            "description": (
                "Optional. Sets a maximum time limit (in seconds) for running the command. If "
                "the command takes longer than this limit, you\u2019ll be asked whether to "
                "continue or stop it. If you don\u2019t set a value, the command will instead "
                "pause and ask for confirmation when it produces no new output for 30 seconds. "
                "Use a higher value if the command is expected to take a long time (like "
                "installation or testing), or if it has a known fixed duration (like sleep)."
            ),
        },
        "reset": {
            "type": "boolean",
            "description": (
                "If True, reset the terminal by creating a new session. Use this only when the "
                "terminal becomes unresponsive. Note that all previously set environment "
                "variables and session state will be lost after reset. Cannot be used with "
                "is_input=True."
            ),
        },
    },
    ["command"],
)

_FILE_EDITOR = _schema(
    {
        "command": {
            "type": "string",
            "description": (
                "The commands to run. Allowed options are: `view`, `create`, `str_replace`, "
                "`insert`, `undo_edit`."
            ),
            "enum": ["view", "create", "str_replace", "insert", "undo_edit"],
        },
        "path": {"type": "string", "description": "Absolute path to file or directory."},
        "file_text": {
            "type": "string",
            "description": (
                "Required parameter of `create` command, with the content of the file to be "
                "created."
            ),
        },
        "old_str": {
            "type": "string",
            "description": (
                "Required parameter of `str_replace` command containing the string in `path` to "
                "replace."
            ),
        },
        "new_str": {
            "type": "string",
            "description": (
                "Optional parameter of `str_replace` command containing the new string (if not "
                "given, no string will be added). Required parameter of `insert` command "
                "containing the string to insert."
            ),
        },
        "insert_line": {
            "type": "integer",
            "description": (
                "Required parameter of `insert` command. The `new_str` will be inserted AFTER "
                "the line `insert_line` of `path`."
            ),
        },
        "view_range": {
            "type": "array",
            "items": {"type": "integer"},
            "description": (
                "Optional parameter of `view` command when `path` points to a file. If none is "
                "given, the full file is shown. If provided, the file will be shown in the "
                "indicated line number range, e.g. [11, 12] will show lines 11 and 12. Indexing "
                "at 1 to start. Setting `[start_line, -1]` shows all lines from `start_line` to "
                "the end of the file."
            ),
        },
    },
    ["command", "path"],
)

_FINISH = _schema(
    {"message": {"type": "string", "description": "Final message to send to the user."}},
    ["message"],
)

_THINK = _schema(
    {"thought": {"type": "string", "description": "The thought to log."}},
    ["thought"],
)

_TASK_TRACKER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {
            "type": "string",
            "description": "The command to execute. `view` shows the current task list. `plan` creates or updates the task list based on provided requirements and progress. Always `view` the current list before making changes.",
            "enum": ["view", "plan"],
        },
        "task_list": {
            "type": "array",
            "description": "The full task list. Required parameter of `plan` command.",
            "items": {
                "type": "object",
                "properties": {
                    "title": {"type": "string", "description": "A brief title for the task."},
                    "notes": {
                        "type": "string",
                        "description": "Additional details or notes about the task.",
                    },
                    "status": {
                        "type": "string",
                        "description": "The current status of the task. One of 'todo', 'in_progress', or 'done'.",
                        "enum": ["todo", "in_progress", "done"],
                    },
                },
                "required": ["title"],
            },
        },
    },
}
"""openhands-tools 1.58.2 `TaskTrackerAction` (no field is required, so no `required` key)."""

BUILTIN_PARAMETERS: Mapping[str, dict[str, Any]] = {
    "TerminalAction": _TERMINAL,
    "FileEditorAction": _FILE_EDITOR,
    "FinishAction": _FINISH,
    "ThinkAction": _THINK,
    "TaskTrackerAction": _TASK_TRACKER,
}
"""The action's own fields per ``action_type`` (openhands-tools 1.58.2), before the risk/summary
fields are added."""

_KIND_TO_ACTION = {
    "TerminalTool": "TerminalAction",
    "FileEditorTool": "FileEditorAction",
    "FinishTool": "FinishAction",
    "ThinkTool": "ThinkAction",
    "TaskTrackerTool": "TaskTrackerAction",
}


def _copy(node: Any) -> Any:
    """A deep copy of a JSON tree (dicts, lists, scalars): `copy.deepcopy`, five times faster."""
    if isinstance(node, dict):
        return {k: _copy(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_copy(v) for v in node]
    return node


def _read_only(tool: Any) -> bool:
    annotations = plain_value(field_of(tool, "annotations"))
    return isinstance(annotations, Mapping) and bool(annotations.get("readOnlyHint"))


def _known_action(tool: Any) -> str | None:
    action_type = field_of(tool, "action_type")
    if action_type in BUILTIN_PARAMETERS:
        return str(action_type)
    return _KIND_TO_ACTION.get(str(field_of(tool, "kind") or ""))


def tool_parameters(tool: Any, *, security_risk: bool = True) -> dict[str, Any]:
    """The JSON Schema of a tool's parameters, as the SDK sends it.

    A tool an older SDK recorded in OpenAI's format is sent with the schema it recorded.
    """
    recorded = recorded_function(tool)
    if recorded is not None and isinstance(recorded.get("parameters"), Mapping):
        parameters: dict[str, Any] = _copy(dict(recorded["parameters"]))
        return parameters
    mcp_tool = plain_value(field_of(tool, "mcp_tool"))
    add_risk = security_risk and not _read_only(tool)
    if str(field_of(tool, "kind")) == "MCPToolDefinition" and isinstance(mcp_tool, Mapping):
        raw = mcp_tool.get("inputSchema") or {"type": "object", "properties": {}}
        schema = simplify_schema(_copy(raw), raw.get("$defs", {}))
        props = schema.setdefault("properties", {})
        if add_risk:
            props["security_risk"] = {
                **_SECURITY_RISK,
                "description": _MCP_SECURITY_RISK_DESCRIPTION,
            }
        if "summary" not in props:
            props["summary"] = _copy(_SUMMARY)
        first = {k: props[k] for k in ("security_risk", "summary") if k in props}
        schema["properties"] = {**first, **{k: v for k, v in props.items() if k not in first}}
        return schema
    action = _known_action(tool)
    return offered_parameters(
        BUILTIN_PARAMETERS[action] if action else _schema({}, []), security_risk=add_risk
    )


def offered_parameters(own: Mapping[str, Any], *, security_risk: bool) -> dict[str, Any]:
    """A tool's own parameter schema as the LLM is offered it: ``security_risk`` (unless
    ``security_risk`` is false: a read-only tool) and ``summary`` first, then its own fields;
    the runtime offers its tools through this too.
    """
    properties: dict[str, Any] = {}
    if security_risk:
        properties["security_risk"] = _copy(_SECURITY_RISK)
    properties["summary"] = _copy(_SUMMARY)
    properties.update(_copy(dict(own.get("properties", {}))))
    if "required" not in own:  # the SDK writes no `required` when no field is required
        return {"type": "object", "properties": properties}
    return _schema(properties, list(own["required"]))


def simplify_schema(
    node: Mapping[str, Any], defs: Mapping[str, Any], visiting: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Resolve ``#/$defs`` refs and ``anyOf`` the way the SDK's ``_process_schema_node`` does.

    A ref met again inside itself (a model that refers to itself, ``children: list[Node]``)
    becomes ``{"type": "object"}`` with the definition's description, as in the SDK. The runtime
    builds its custom tools' parameters with it too (``trajkit.sdk.tool.tool.action_parameters``).
    """
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.split("/")[-1]
        if name in defs:
            if name in visiting:
                shallow: dict[str, Any] = {"type": "object"}
                if "description" in defs[name]:
                    shallow["description"] = defs[name]["description"]
                return shallow
            return simplify_schema(defs[name], defs, visiting | {name})
    out: dict[str, Any] = {}
    if "type" in node:
        out["type"] = node["type"]
    if "anyOf" in node:
        non_null = [t for t in node["anyOf"] if t.get("type") != "null"]
        if non_null:
            out.update(simplify_schema(non_null[0], defs, visiting))
    if "description" in node:
        out["description"] = node["description"]
    if node.get("type") == "object" and "properties" in node:
        out["type"] = "object"
        out["properties"] = {
            k: simplify_schema(v, defs, visiting) for k, v in node["properties"].items()
        }
        if "required" in node:
            out["required"] = node["required"]
    if node.get("type") == "array" and "items" in node:
        out["type"] = "array"
        out["items"] = simplify_schema(node["items"], defs, visiting)
    if "enum" in node:
        out["enum"] = node["enum"]
    return out


def unknown_tools(tools: Iterable[Any]) -> list[str]:
    """Names of tools whose parameter schema trajkit cannot rebuild (custom tool classes)."""
    return [
        tool_name(t)
        for t in tools
        if str(field_of(t, "kind")) != "MCPToolDefinition"
        and _known_action(t) is None
        and recorded_function(t) is None
    ]


def tools_to_chat(tools: Sequence[Any], *, security_risk: bool = True) -> list[dict[str, Any]]:
    """Chat Completions ``tools`` from ``SystemPromptEvent.tools``, in stored order."""
    return [chat_tool(*_offered(t, security_risk)) for t in tools]


def tools_to_responses(tools: Sequence[Any], *, security_risk: bool = True) -> list[dict[str, Any]]:
    """Responses API ``tools`` from ``SystemPromptEvent.tools``, in stored order."""
    return [responses_tool(*_offered(t, security_risk)) for t in tools]


def _offered(tool: Any, security_risk: bool) -> tuple[str, str, dict[str, Any]]:
    parameters = tool_parameters(tool, security_risk=security_risk)
    return tool_name(tool), field_of(tool, "description") or "", parameters


def chat_tool(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """One Chat Completions ``tools`` entry (the runtime offers its live tools through it)."""
    function = {"name": name, "description": description, "parameters": parameters}
    return {"type": "function", "function": function}


def responses_tool(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """One Responses API ``tools`` entry, ``strict`` off as the SDK sends it."""
    return {
        "type": "function",
        "name": name,
        "description": description,
        "parameters": parameters,
        "strict": False,
    }
