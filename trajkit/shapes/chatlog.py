"""A recorded chat (system, user, assistant, tool messages) as V1 events: the mapping the
mini-swe-agent, SWE-agent and Inspect shapes share (`chat_to_v1`).

Rules, one message at a time:

- the first `system` message: `SystemPromptEvent` (tools: the OpenAI function specs given);
  a later one: an environment `MessageEvent`;
- `user`: a user `MessageEvent` (text and image parts; the observations of text-mode agents
  are user messages, as the model saw them);
- `assistant` with `tool_calls`: one `ActionEvent` per call sharing one `llm_response_id` (the
  message text is the first call's `thought`, reasoning its `reasoning_content`); without: an
  agent `MessageEvent`;
- `tool`: an `ObservationEvent` (payload `ImportedObservation`, rendered from its content, an
  error flagged with `is_error`) answering its call; a result whose call is nowhere before it
  is an environment message that names the call, counted in a note.

What a message holds beyond these keys, and the file's own data beyond the messages, go where
V1 keeps unknown data: an event of unknown kind `ImportedData` after the message (the file's
data last), which every view passes over and convert names in its warnings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from trajkit.shapes.memory import derived_id

__all__ = [
    "IMPORTED_KIND",
    "ChatLog",
    "chat_to_v1",
    "imported_state",
    "metrics_state",
    "tool_definition",
]

IMPORTED_KIND = "ImportedData"
"""Kind of the unknown-kind event holding what of a source V1 has no field for."""
_MAPPED = {"role", "content", "tool_calls", "tool_call_id", "reasoning_content"}


@dataclass
class ChatLog:
    """One conversation of another agent's format, normalised for `chat_to_v1`."""

    conv_id: str
    messages: Sequence[dict[str, Any]]
    """OpenAI-like messages: `role`, `content` (text or parts), `tool_calls`, `tool_call_id`."""
    pointers: Sequence[str]
    """Each message's JSON pointer in the file."""
    tools: list[dict[str, Any]] = field(default_factory=list)
    """OpenAI function specs offered to the model."""
    extra: dict[str, Any] = field(default_factory=dict)
    """The file's own data beyond the messages (kept in the last `ImportedData` event)."""
    timestamp: str = "1970-01-01T00:00:00"
    """When the conversation ran, for every event (the formats keep no per-message time)."""
    mapped: set[str] = field(default_factory=set)
    """Message keys the format's reader used already (not kept again)."""
    response_id: Callable[[dict[str, Any], int], str | None] = lambda m, i: None
    """The LLM response id of an assistant message, when the format records one."""


def tool_definition(spec: dict[str, Any]) -> dict[str, Any]:
    """A V1 tool entry for an OpenAI-style function spec (kept verbatim, so the tool is sent
    as recorded).
    """
    inner = spec.get("function")
    function: dict[str, Any] = inner if isinstance(inner, dict) and inner else spec
    name = str(function.get("name") or "tool")
    kind = "".join(w.capitalize() for w in re.split(r"[^0-9A-Za-z]+", name) if w) + "Tool"
    return {"description": str(function.get("description") or ""), "action_type": "UnknownAction",
            "meta": {"openai_function": function}, "kind": kind, "title": name}  # fmt: skip


def chat_to_v1(log: ChatLog) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """`(events, each event's pointer, notes)` of a chat log (see the module docstring)."""
    events: list[dict[str, Any]] = []
    pointers: list[str] = []
    calls: dict[str, tuple[str, str]] = {}  # call id -> (action event id, tool name)
    orphans = 0

    def add(event: dict[str, Any], where: str) -> dict[str, Any]:
        head = {"id": derived_id(log.conv_id, str(len(events))), "timestamp": log.timestamp}
        if events:
            head["parent_id"] = events[-1]["id"]
        events.append({**head, **event})
        pointers.append(where)
        return events[-1]

    for i, message in enumerate(log.messages):
        where, role = log.pointers[i], message.get("role")
        content = _parts(message.get("content"))
        tool_calls = [c for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        if role == "system" and not events:
            text = "".join(p["text"] for p in content if p["type"] == "text")
            tools = [tool_definition(t) for t in log.tools]
            add({"source": "agent", "system_prompt": _text(text), "tools": tools,
                 "kind": "SystemPromptEvent"}, where)  # fmt: skip
        elif role == "assistant" and tool_calls:
            response = log.response_id(message, i) or derived_id(log.conv_id, str(i), "r")
            for n, call in enumerate(tool_calls):
                event = _action(call, n, response, content if n == 0 else [], message)
                calls[event["tool_call_id"]] = (add(event, f"{where}/tool_calls/{n}")["id"],
                                                 event["tool_name"])  # fmt: skip
        elif role == "tool" and str(message.get("tool_call_id")) in calls:
            call_id = str(message["tool_call_id"])
            action_id, name = calls[call_id]
            observation = {"content": content, "is_error": bool(message.get("is_error")),
                           "kind": "ImportedObservation"}  # fmt: skip
            add({"source": "environment", "tool_name": name, "tool_call_id": call_id,
                 "observation": observation, "action_id": action_id,
                 "kind": "ObservationEvent"}, where)  # fmt: skip
        else:
            if role == "tool":
                orphans += 1
                label = f"[result of tool call {message.get('tool_call_id')}]\n"
                content = [_text(label), *content]
            source = {"user": "user", "assistant": "agent"}.get(str(role), "environment")
            llm: dict[str, Any] = {"role": "assistant" if source == "agent" else "user",
                                   "content": content}  # fmt: skip
            if source == "agent" and isinstance(message.get("reasoning_content"), str):
                llm["reasoning_content"] = message["reasoning_content"]
            event = {"source": source, "llm_message": llm}
            if source == "agent":
                event["llm_response_id"] = log.response_id(message, i) or derived_id(
                    log.conv_id, str(i), "r"
                )
            add({**event, "kind": "MessageEvent"}, where)
        leftover = {k: v for k, v in message.items() if k not in _MAPPED | log.mapped}
        if leftover:
            add({"source": "environment", "data": leftover, "kind": IMPORTED_KIND}, where)
    if log.extra:
        add({"source": "environment", "data": log.extra, "kind": IMPORTED_KIND}, "")
    notes = []
    if orphans:
        notes.append(f"{orphans} tool result(s) answer no call before them: kept as messages")
    if any(e["kind"] == IMPORTED_KIND for e in events):
        notes.append(f"data V1 has no field for kept in {IMPORTED_KIND} events")
    return events, pointers, notes


def _action(
    call: dict[str, Any],
    n: int,
    response: str,
    thought: list[dict[str, Any]],
    message: dict[str, Any],
) -> dict[str, Any]:
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    assert isinstance(function, dict)
    name = str(function.get("name") or call.get("name") or "")
    arguments = function.get("arguments", call.get("arguments", {}))
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments)
    call_id = str(call.get("id") or derived_id(response, str(n)))
    event: dict[str, Any] = {"source": "agent", "thought": thought}
    if n == 0 and isinstance(message.get("reasoning_content"), str):
        event["reasoning_content"] = message["reasoning_content"]
    return {**event, "tool_name": name, "tool_call_id": call_id,
            "tool_call": {"id": call_id, "name": name, "arguments": arguments,
                          "origin": "completion"},
            "llm_response_id": response, "kind": "ActionEvent"}  # fmt: skip


def _text(text: str) -> dict[str, Any]:
    return {"cache_prompt": False, "type": "text", "text": text}


def _parts(content: Any) -> list[dict[str, Any]]:
    """Text or OpenAI-style parts (`text`, `image_url`) as V1 content."""
    if isinstance(content, str):
        return [_text(content)] if content else []
    parts: list[dict[str, Any]] = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, str):
            parts.append(_text(part))
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            parts.append(_text(part["text"]))
        elif isinstance(part, dict) and part.get("type") in ("image_url", "image"):
            url = part.get("image_url") or part.get("image")
            url = url.get("url") if isinstance(url, dict) else url
            if isinstance(url, str):
                parts.append({"cache_prompt": False, "type": "image", "image_urls": [url]})
    return parts


def imported_state(conv_id: str, model: str | None) -> dict[str, Any]:
    """The base state every imported conversation starts from: its id, the model (or
    `unknown`), no tools, a local workspace, a finished run.
    """
    llm = {"model": model or "unknown", "usage_id": "agent"}
    return {
        "id": conv_id,
        "agent": {"llm": llm, "tools": [], "kind": "Agent"},
        "workspace": {"working_dir": "/workspace", "kind": "LocalWorkspace"},
        "execution_status": "finished",
    }


def metrics_state(
    conv_id: str,
    model: str,
    *,
    usages: Sequence[tuple[str, int, int, int, float]] = (),
    total_cost: float | None = None,
    totals: tuple[int, int] | None = None,
    events: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """A base state for an imported conversation: the model, and `stats` from per-call
    `(response id, prompt, completion, reasoning tokens, cost)` or from run totals.
    """
    state = imported_state(conv_id, model)
    llm = state["agent"]["llm"]
    token_usages: list[dict[str, Any]] = [
        {"model": llm["model"], "prompt_tokens": p, "completion_tokens": c, "reasoning_tokens": r,
         "cache_read_tokens": 0, "cache_write_tokens": 0, "context_window": 0,
         "per_turn_token": p + c, "response_id": rid}
        for rid, p, c, r, _ in usages
    ]  # fmt: skip
    prompt, completion = totals or (sum(u[1] for u in usages), sum(u[2] for u in usages))
    cost = total_cost if total_cost is not None else sum(u[4] for u in usages)
    if token_usages or totals or total_cost:
        state["stats"] = {"usage_to_metrics": {"agent": {
            "model_name": llm["model"], "accumulated_cost": float(cost),
            "accumulated_token_usage": {"model": llm["model"], "prompt_tokens": prompt,
                                        "completion_tokens": completion, "response_id": ""},
            "costs": [{"model": llm["model"], "cost": u[4], "timestamp": 0.0} for u in usages],
            "response_latencies": [], "token_usages": token_usages}}}  # fmt: skip
    if events:
        state["leaf_event_id"] = events[-1]["id"]
    return state
