"""mini-swe-agent (`*.traj.json`) and SWE-agent (`*.traj`) trajectories as V1 conversations.

- **mini-swe-agent** (`trajectory_format: mini-swe-agent-1` / `-1.1`): `messages` is the whole
  chat; an assistant's `extra.response` (v1: the raw LiteLLM response) gives the call's id,
  token usage and reasoning, v2's `extra.cost` its cost; `info` (exit status, submission, model
  stats, config) and the rest are kept whole in the last `ImportedData` event. A bare array of
  `{role, content}` messages named `*.traj.json` (the project's test data) is read the same way.
- **SWE-agent** (a JSON object with `history`, `.traj` files): `history` is the chat
  (demonstration messages, `is_demo`, included as the model saw them); `tool_call_ids` answer
  calls; `thought` / `action` / `agent` / `message_type` and `trajectory`, `info`,
  `replay_config`, `environment` are kept in `ImportedData` events. The run's totals
  (`model_stats`) become the conversation's stats.

The chat is mapped by `trajkit.shapes.chatlog`; one file is one conversation.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import orjson

from trajkit.errors import InputError
from trajkit.shapes._files import open_input
from trajkit.shapes.chatlog import ChatLog, chat_to_v1, metrics_state
from trajkit.shapes.memory import MemoryConversation, ShapeRef, derived_id, digest

__all__ = ["open_mini", "open_sweagent", "takes_mini", "takes_sweagent"]

_MINI = re.compile(rb'"trajectory_format"\s*:\s*"mini-swe-agent')


def _head(path: Path) -> bytes:
    try:
        with open_input(path) as fh:
            return fh.read(64 * 1024).lstrip()
    except (OSError, InputError):
        return b""


def takes_mini(path: Path) -> bool:
    """A mini-swe-agent trajectory: `trajectory_format` named, or a `*.traj.json` message array."""
    if not path.is_file() or path.suffix != ".json":
        return False
    head = _head(path)
    if head.startswith(b"{"):  # `trajectory_format` is written last, after the messages
        named = path.name.endswith(".traj.json") and b'"messages"' in head
        return _MINI.search(head) is not None or b'"mini_version"' in head or named
    return path.name.endswith(".traj.json") and re.match(rb'\[\s*\{\s*"role"', head) is not None


def takes_sweagent(path: Path) -> bool:
    """A SWE-agent trajectory: a `.traj` file holding an object with `history`."""
    return path.is_file() and path.suffix == ".traj" and b'"history"' in _head(path)


def _load(path: Path) -> Any:
    from trajkit.store.reader import read_file_bytes

    raw = read_file_bytes(path)
    try:
        return orjson.loads(raw), raw
    except orjson.JSONDecodeError as exc:
        raise InputError(path, "", f"not valid JSON: {exc}") from None


def _messages(value: Any, path: Path, pointer: str) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise InputError(path, pointer, "expected a list of messages")
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise InputError(path, f"{pointer}/{i}", "expected a message object")
    return value


def open_mini(ref: ShapeRef) -> MemoryConversation:
    """One mini-swe-agent trajectory as a conversation in memory."""
    path = Path(ref.file)
    doc, raw = _load(path)
    root = doc if isinstance(doc, dict) else {"messages": doc}
    pointer = "/messages" if isinstance(doc, dict) else ""
    messages = [_mini_message(m) for m in _messages(root.get("messages"), path, pointer)]
    info = root.get("info") if isinstance(root.get("info"), dict) else {}
    assert isinstance(info, dict)
    config = info.get("config") if isinstance(info.get("config"), dict) else {}
    model = _dig(config, "model", "model_name")
    conv_id = derived_id(str(root.get("instance_id") or os.path.abspath(path)), "mini-swe-agent")
    log = ChatLog(conv_id, messages, [f"{pointer}/{i}" for i in range(len(messages))],
                  extra={k: v for k, v in root.items() if k != "messages"},
                  response_id=lambda m, i: _dig(m, "extra", "response", "id"))  # fmt: skip
    events, pointers, notes = chat_to_v1(log)
    usages = [u for m in messages if (u := _mini_usage(m)) is not None]
    stats = info.get("model_stats") if isinstance(info.get("model_stats"), dict) else {}
    assert isinstance(stats, dict)
    cost = stats.get("instance_cost")
    state = metrics_state(conv_id, model or "unknown", usages=usages, events=events,
                          total_cost=float(cost) if isinstance(cost, int | float) else None)  # fmt: skip
    return _conversation(ref, conv_id, state, events, pointers, notes, raw, "mini-swe-agent")


def _mini_message(message: dict[str, Any]) -> dict[str, Any]:
    """The message with the reasoning a v1 raw response recorded, where the chat keeps it."""
    reasoning = _dig(message, "extra", "response", "choices", 0, "message", "reasoning")
    if message.get("role") == "assistant" and isinstance(reasoning, str) and reasoning:
        return {**message, "reasoning_content": reasoning}
    return message


def _mini_usage(message: dict[str, Any]) -> tuple[str, int, int, int, float] | None:
    response = _dig(message, "extra", "response")
    usage = _dig(response, "usage")
    cost = _dig(message, "extra", "cost")
    if not isinstance(usage, dict) and not isinstance(cost, int | float):
        return None
    usage = usage if isinstance(usage, dict) else {}
    reasoning = _dig(usage, "completion_tokens_details", "reasoning_tokens")
    return (
        str(_dig(response, "id") or ""),
        _int(usage.get("prompt_tokens")),
        _int(usage.get("completion_tokens")),
        _int(reasoning),
        float(cost) if isinstance(cost, int | float) else 0.0,
    )


def open_sweagent(ref: ShapeRef) -> MemoryConversation:
    """One SWE-agent trajectory as a conversation in memory."""
    path = Path(ref.file)
    doc, raw = _load(path)
    if not isinstance(doc, dict):
        raise InputError(path, "", "expected a SWE-agent trajectory (an object with history)")
    history = _messages(doc.get("history"), path, "/history")
    messages = [_swe_message(m) for m in history]
    conv_id = derived_id(os.path.abspath(path), "swe-agent")
    log = ChatLog(conv_id, messages, [f"/history/{i}" for i in range(len(messages))],
                  extra={k: v for k, v in doc.items() if k != "history"},
                  mapped={"tool_call_ids"})  # fmt: skip
    events, pointers, notes = chat_to_v1(log)
    stats = _dig(doc, "info", "model_stats")
    stats = stats if isinstance(stats, dict) else {}
    cost = stats.get("instance_cost")
    totals = (_int(stats.get("tokens_sent")), _int(stats.get("tokens_received")))
    state = metrics_state(conv_id, _swe_model(doc), events=events, totals=totals if any(totals) else None,
                          total_cost=float(cost) if isinstance(cost, int | float) else None)  # fmt: skip
    return _conversation(ref, conv_id, state, events, pointers, notes, raw, "swe-agent")


def _swe_message(message: dict[str, Any]) -> dict[str, Any]:
    ids = message.get("tool_call_ids")
    if message.get("role") == "tool" and isinstance(ids, list) and ids:
        return {**message, "tool_call_id": ids[0]}
    return message


def _swe_model(doc: dict[str, Any]) -> str:
    config = doc.get("replay_config")
    if isinstance(config, str):
        try:
            config = orjson.loads(config)
        except orjson.JSONDecodeError:
            config = None
    name = _dig(config, "agent", "model", "name")
    return name if isinstance(name, str) else "unknown"


def _conversation(
    ref: ShapeRef, conv_id: str, state: dict[str, Any], events: list[dict[str, Any]],
    pointers: list[str], notes: list[str], raw: bytes, origin: str,
) -> MemoryConversation:  # fmt: skip
    return MemoryConversation(ref.label, conversation_id=conv_id, state=state, events=events,
                              pointers=pointers, notes=notes, fingerprint=digest(raw),
                              origin=origin)  # fmt: skip


def _dig(value: Any, *keys: str | int) -> Any:
    for key in keys:
        if isinstance(key, int):
            value = value[key] if isinstance(value, list) and len(value) > key else None
        else:
            value = value.get(key) if isinstance(value, dict) else None
    return value


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
