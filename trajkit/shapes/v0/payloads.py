"""V0 `args`/`extras` -> V1 action and observation payloads (the nested `action`/`observation`).

Rules:
- `run` -> `TerminalAction{command, is_input, timeout}` / `TerminalObservation{content, command,
  exit_code, timeout, metadata}`. `timeout` is taken from the LLM's own arguments only (V0 put
  the runtime default on every action); the observation's `timeout` is true for exit code -1.
- `read` (str_replace_editor view) and `edit` with a file-editor command (`create`,
  `str_replace`, `insert`, `undo_edit`) -> `FileEditorAction` / `FileEditorObservation`; exact
  fields come from the tool-call arguments when they parse. For 2024-12..2025-02 data the text the
  LLM saw was `formatted_output_and_error`, so that is the observation content.
- `think` -> `ThinkAction` / `ThinkObservation`; `finish` -> `FinishAction{message}` (the
  `message` argument, else `final_thought`, `thought`, the V0 display text); `call_tool_mcp` ->
  `MCPToolAction{data}` / `MCPToolObservation{tool_name}`.
- `task_tracking` -> `TaskTrackerAction` / `TaskTrackerObservation`, the V1 task tracker's kinds
  (kept opaque by trajkit's model, fields in V1 shape).
- Tools V1 has no payload for (`execute_ipython_cell`, `browser`, `web_read`, `edit_file`,
  `delegate_to_browsing_agent`, `request_condensation`, unknown V0 types with a tool call) become
  MCP-style calls: `MCPToolAction{data: the LLM's own arguments}` and
  `MCPToolObservation{tool_name, content}`, matching the `MCPToolDefinition`s the system prompt
  event lists for them; their V0 `args`/`extras` stay in the sidecar. Observations always carry
  the text the V0 LLM saw as `content` (a delegate's `outputs.content`, IPython images,
  a browser screenshot when the file has one).

`Fields` records which V0 keys a payload used; the rest goes to the migration sidecar, so nothing
is lost. Keys starting with `_` (e.g. `_diff_cache`) never go into a payload.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "Fields",
    "action_payload",
    "observation_payload",
    "rebuilt_arguments",
    "security_risk",
    "text_of",
    "tool_definition",
]

_EDITOR_COMMANDS = ("view", "create", "str_replace", "insert", "undo_edit")
_META_KEYS = (
    "exit_code", "pid", "username", "hostname", "working_dir", "py_interpreter_path", "prefix",
    "suffix",
)  # fmt: skip


class Fields:
    """A V0 `args`/`extras` dict that remembers which keys were used."""

    def __init__(self, data: Any) -> None:
        self.data: dict[str, Any] = data if isinstance(data, dict) else {}
        self.used: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        """The value of `key` (marked used)."""
        self.used.add(key)
        return self.data.get(key, default)

    def text(self, key: str, default: str = "") -> str:
        """`key` as a string (non-strings are JSON-encoded)."""
        value = self.get(key)
        if value is None:
            return default
        return value if isinstance(value, str) else json.dumps(value)

    def rest(self) -> dict[str, Any]:
        """Unused keys that may go into an opaque payload (marks them used)."""
        out = {k: v for k, v in self.data.items() if k not in self.used and not k.startswith("_")}
        self.used.update(out)
        return out

    def unmapped(self) -> dict[str, Any]:
        """Keys no payload used."""
        return {k: v for k, v in self.data.items() if k not in self.used}


def text_of(value: Any) -> str:
    """A V0 `content` value as text."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _as_bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return bool(value)


def _timeout(call_args: dict[str, Any] | None) -> float | None:
    value = (call_args or {}).get("timeout")
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def editor_command(v0_type: str, args: Fields, call_args: dict[str, Any] | None) -> str | None:
    """The file-editor command of a `read`/`edit` action, or None for other editors."""
    if v0_type == "read":
        return "view"
    if v0_type != "edit":
        return None
    if args.data.get("impl_source") == "llm_based_edit":
        return None
    command = (call_args or {}).get("command", args.data.get("command"))
    return command if command in _EDITOR_COMMANDS else None


# -- actions -------------------------------------------------------------------------------


def action_payload(
    v0_type: str,
    args: Fields,
    call_args: dict[str, Any] | None,
    *,
    display: str = "",
) -> dict[str, Any]:
    """The V1 `action` payload for a V0 tool-call action."""
    ca = call_args or {}
    args.get("thought")
    args.get("security_risk")
    if v0_type == "run":
        return {
            "command": args.text("command"),
            "is_input": _as_bool(args.get("is_input", False)),
            "timeout": _timeout(call_args),
            "kind": "TerminalAction",
        }
    command = editor_command(v0_type, args, call_args)
    if command is not None:
        return _editor_action(command, args, ca)
    if v0_type == "think":
        thought = ca.get("thought")
        return {
            "thought": thought if isinstance(thought, str) else args.text("thought"),
            "kind": "ThinkAction",
        }
    if v0_type == "finish":
        return {"message": _finish_message(args, ca, display), "kind": "FinishAction"}
    if v0_type == "call_tool_mcp":
        args.get("name")  # the tool name is the call's name
        return {"data": _mcp_arguments(args.get("arguments")), "kind": "MCPToolAction"}
    if v0_type == "task_tracking":
        return {
            "command": args.text("command", "view"),
            "task_list": _task_list(args.get("task_list")),
            "kind": "TaskTrackerAction",
        }
    # No V1 payload for this tool: an MCP-style call whose data are the LLM's own arguments.
    if call_args is not None:
        return {"data": call_args, "kind": "MCPToolAction"}  # V0 args stay in the sidecar
    return {"data": args.rest(), "kind": "MCPToolAction"}


def _editor_action(command: str, args: Fields, ca: dict[str, Any]) -> dict[str, Any]:
    def pick(key: str) -> Any:
        value = ca.get(key)
        return value if value is not None else args.get(key)

    out: dict[str, Any] = {"command": command, "path": _str_or_none(pick("path")) or ""}
    args.get("path")
    if command == "view":
        view_range = pick("view_range")
        if isinstance(view_range, list) and all(isinstance(x, int) for x in view_range):
            out["view_range"] = view_range
        args.get("start")
        args.get("end")
    else:
        for key in ("file_text", "old_str", "new_str"):
            value = _str_or_none(pick(key))
            if value is not None:
                out[key] = value
        insert_line = _int_or_none(pick("insert_line"))
        if insert_line is not None:
            out["insert_line"] = insert_line
        for key in ("command", "content", "start", "end", "impl_source", "translated_ipython_code"):
            args.get(key)  # superseded by the exact arguments
    args.get("impl_source")
    args.get("translated_ipython_code")
    out["kind"] = "FileEditorAction"
    return out


def _finish_message(args: Fields, ca: dict[str, Any], display: str) -> str:
    for value in (ca.get("message"), args.get("final_thought"), args.get("thought")):
        if isinstance(value, str) and value.strip():
            return value
    return display


def _mcp_arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, str):  # the April-2025 MCPAction stored a JSON string
        try:
            value = json.loads(value)
        except ValueError:
            return {"arguments": value}
    return value if isinstance(value, dict) else {"arguments": value}


def _task_list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        return []
    out = []
    for item in value:
        if isinstance(item, dict):
            out.append({k: v for k, v in item.items() if k in ("title", "notes", "status")})
    return out


# -- observations --------------------------------------------------------------------------


def observation_payload(
    v0_type: str,
    content: str,
    extras: Fields,
    action: dict[str, Any] | None,
    *,
    tool_name: str,
) -> dict[str, Any]:
    """The V1 `observation` payload for a V0 observation answering a tool call."""
    action_kind = (action or {}).get("kind")
    if v0_type == "run":
        return _terminal_observation(content, extras, action)
    if v0_type in ("read", "edit") and action_kind == "FileEditorAction":
        assert action is not None
        return _editor_observation(content, extras, action)
    if v0_type == "think":
        return {"content": [_text(content)], "kind": "ThinkObservation"}
    if v0_type == "mcp":
        name = extras.get("name")
        extras.get("arguments")
        return {
            "content": [_text(content)],
            "tool_name": name if isinstance(name, str) and name else tool_name,
            "kind": "MCPToolObservation",
        }
    if v0_type == "task_tracking":
        return {
            "content": [_text(content)],
            "command": extras.text("command", "view"),
            "task_list": _task_list(extras.get("task_list")),
            "kind": "TaskTrackerObservation",
        }
    parts: list[dict[str, Any]] = [_text(content)]
    if v0_type == "delegate":
        outputs = extras.data.get("outputs")
        if isinstance(outputs, dict) and isinstance(outputs.get("content"), str):
            parts = [_text(outputs["content"])]  # what the parent LLM saw
    images = _images(v0_type, extras)
    if images:
        parts.append({"type": "image", "image_urls": images})
    # No V1 payload for this tool: the text (and images) the LLM saw; extras go to the sidecar.
    return {"content": parts, "tool_name": tool_name, "kind": "MCPToolObservation"}


def _terminal_observation(
    content: str, extras: Fields, action: dict[str, Any] | None
) -> dict[str, Any]:
    meta_in = extras.get("metadata")
    meta_in = meta_in if isinstance(meta_in, dict) else {}
    metadata: dict[str, Any] = {}
    for key in _META_KEYS:
        value = meta_in.get(key)
        if key in ("exit_code", "pid"):
            value = _int_or_none(value)
        elif value is not None and not isinstance(value, str):
            value = str(value)
        if value is not None:
            metadata[key] = value
    exit_code = metadata.get("exit_code", -1)
    command = extras.get("command")
    if not isinstance(command, str):
        command = (action or {}).get("command")
    extras.get("hidden")
    return {
        "content": [_text(content)],
        "command": command if isinstance(command, str) else None,
        "exit_code": exit_code,
        "timeout": exit_code == -1,
        "metadata": metadata,
        "kind": "TerminalObservation",
    }


def _editor_observation(content: str, extras: Fields, action: dict[str, Any]) -> dict[str, Any]:
    shown = extras.get("formatted_output_and_error")
    text = shown if isinstance(shown, str) and shown else content
    out: dict[str, Any] = {
        "content": [_text(text)],
        "command": action["command"],
        "path": _str_or_none(extras.get("path")) or action.get("path"),
    }
    prev_exist = extras.get("prev_exist")
    if isinstance(prev_exist, bool):
        out["prev_exist"] = prev_exist
    for key in ("old_content", "new_content"):
        value = _str_or_none(extras.get(key))
        if value is not None:
            out[key] = value
    extras.get("impl_source")
    out["kind"] = "FileEditorObservation"
    return out


def _images(v0_type: str, extras: Fields) -> list[str]:
    urls: list[str] = []
    if v0_type == "run_ipython":
        value = extras.get("image_urls")
        if isinstance(value, list):
            urls = [u for u in value if isinstance(u, str) and u]
    elif v0_type == "browse":
        shot = extras.data.get("screenshot")
        if isinstance(shot, str) and shot:
            extras.used.add("screenshot")
            urls = [shot if shot.startswith("data:") else f"data:image/png;base64,{shot}"]
    return urls


_RISK = {-1: "UNKNOWN", 0: "LOW", 1: "MEDIUM", 2: "HIGH"}


def security_risk(value: Any) -> str:
    """V1 `security_risk` of a V0 action (V0 wrote the enum as an int, -1..2, since 0.54)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return "UNKNOWN"
    return _RISK.get(value, "UNKNOWN")


def rebuilt_arguments(payload: dict[str, Any]) -> dict[str, Any]:
    """Tool-call arguments rebuilt from a payload, for calls whose raw arguments are lost."""
    if payload.get("kind") == "MCPToolAction" and isinstance(payload.get("data"), dict):
        return dict(payload["data"])
    return {k: v for k, v in payload.items() if k != "kind" and v is not None}


_PAYLOAD_OF_TOOL = {
    "execute_bash": "TerminalAction",
    "str_replace_editor": "FileEditorAction",
    "think": "ThinkAction",
    "finish": "FinishAction",
    "task_tracker": "TaskTrackerAction",
}


def tool_definition(function: dict[str, Any], name: str) -> dict[str, Any]:
    """A V0 OpenAI function spec as a V1 tool definition keeping name, description and schema.

    The `MCPToolDefinition` shape is the one V1 tool definition that carries its JSON schema, so
    the tools a chat conversion sends are the ones the V0 LLM saw; `action_type` names the
    payload kind migrate gives that tool's calls.
    """
    action_type = _PAYLOAD_OF_TOOL.get(function["name"], "MCPToolAction")
    description = function.get("description")
    description = description if isinstance(description, str) else ""
    schema = function.get("parameters")
    return {
        "description": description,
        "action_type": action_type,
        "observation_type": action_type.replace("Action", "Observation"),
        "mcp_tool": {
            "name": name,
            "description": description,
            "inputSchema": schema if isinstance(schema, dict) else {},
        },
        "meta": {"migrated_from": "openhands-v0", "v0_name": function["name"]},
        "kind": "MCPToolDefinition",
        "title": name,
    }
