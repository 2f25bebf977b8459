"""V0 (OpenHands 0.x) event dicts: the types that exist, and the shapes they come in.

A V0 trajectory is a list of event dicts (`id, timestamp, source, message, cause,
action|observation, tool_call_metadata, llm_metrics, args|content+extras, success, timeout`).
This module turns every shape a container can hold into that one shape, so `mapping` sees a
single kind of input:

- flat dicts (trajectory files, session folders, `history` of SWE-bench style eval outputs);
- `[action, observation]` pairs (`history` of most other eval outputs): flattened, the synthetic
  `null` fillers dropped, and the original interleaving restored by sorting on `id`;
- lossy resolver records (dataclass fields flat next to `action`/`observation`, no ids, no
  source, no timestamps): fields moved into `args`/`extras`, ids, sources and `cause` inferred.

It also mirrors the normalisations the V0 reader applied on load (renamed and retired keys), so
old files map like new ones. Nothing here writes or prints; problems become warning strings.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from typing import Any, Literal, cast

__all__ = [
    "ACTION_TYPES",
    "answering_action",
    "display_text",
    "is_hidden",
    "response_reasoning",
    "response_text",
    "DROPPED_ACTIONS",
    "DROPPED_OBSERVATIONS",
    "HistoryShape",
    "LEGACY_ACTIONS",
    "NormalizedHistory",
    "OBSERVATION_TYPES",
    "ToolCallInfo",
    "event_type",
    "is_v0_event",
    "looks_like_history",
    "normalize_history",
    "tool_call_info",
]

ACTION_TYPES = frozenset(
    {
        "message", "system", "run", "run_ipython", "read", "write", "edit", "browse",
        "browse_interactive", "call_tool_mcp", "think", "finish", "reject", "delegate", "recall",
        "condensation", "condensation_request", "task_tracking", "change_agent_state",
        "loop_recovery", "null",
    }
)  # fmt: skip
"""Action strings of the V0 code at its last release (0.62)."""

OBSERVATION_TYPES = frozenset(
    {
        "run", "run_ipython", "read", "write", "edit", "browse", "download", "mcp", "think",
        "task_tracking", "delegate", "recall", "error", "user_rejected", "success",
        "agent_state_changed", "condense", "loop_detection", "null",
    }
)  # fmt: skip
"""Observation strings of the V0 code at its last release (0.62)."""

LEGACY_ACTIONS = frozenset({"kill", "add_task", "modify_task", "summarize", "push", "send_pr"})
"""Action strings of 2024 streams that the last V0 reader already rejected."""

DROPPED_ACTIONS = frozenset({"recall", "change_agent_state", "null", "loop_recovery"})
"""Actions with nothing for V1 to hold (their effect is carried by other events)."""

DROPPED_OBSERVATIONS = frozenset({"null", "loop_detection", "condense"})
"""Observations with nothing for V1 to hold."""

HistoryShape = Literal["flat", "pairs", "resolver"]


@dataclass
class NormalizedHistory:
    """V0 events in one shape (flat dicts with ids), plus what was learned on the way."""

    events: list[dict[str, Any]]
    """Event dicts in stream order, each with an int `id`."""
    shape: HistoryShape
    """What the container held."""
    warnings: list[str] = field(default_factory=list)
    """Things a reader should know (synthesized ids, dropped non-events, ...)."""
    dropped: dict[str, int] = field(default_factory=dict)
    """Items that were not events (or only fillers), by reason."""
    synthesized_timestamps: bool = False
    """True when timestamps were missing (resolver records)."""


def is_v0_event(item: Any) -> bool:
    """Whether `item` looks like one V0 event dict (it names an action or observation type)."""
    return isinstance(item, dict) and (
        isinstance(item.get("action"), str) or isinstance(item.get("observation"), str)
    )


def looks_like_history(items: Any) -> bool:
    """Whether `items` is a non-empty list holding V0 events or `[action, observation]` pairs."""
    if not isinstance(items, list) or not items:
        return False
    for item in items[:20]:
        if is_v0_event(item):
            return True
        if isinstance(item, list) and any(is_v0_event(x) for x in item):
            return True
    return False


def event_type(event: dict[str, Any]) -> str:
    """`action:<type>` or `observation:<type>`: the key reports count by."""
    if isinstance(event.get("action"), str):
        return f"action:{event['action']}"
    return f"observation:{event.get('observation')}"


def normalize_history(items: list[Any]) -> NormalizedHistory:
    """Bring any V0 history shape to flat event dicts with ids, in stream order."""
    if any(isinstance(x, list) for x in items[:20]):
        hist = _flatten_pairs(items)
    elif _is_resolver(items):
        hist = _from_resolver(items)
    else:
        hist = _flat(items)
    hist.events = [_normalize_legacy(e) for e in hist.events]
    return hist


# -- shapes ---------------------------------------------------------------------------------


def _flat(items: list[Any]) -> NormalizedHistory:
    hist = NormalizedHistory(events=[], shape="flat")
    for pos, item in enumerate(items):
        if is_v0_event(item):
            hist.events.append(dict(item))
        else:
            _count(hist.dropped, "not an event")
            if len(hist.warnings) < 20:
                hist.warnings.append(
                    f"/{pos}: skipped an item that is not a V0 event "
                    "(expected an object with an 'action' or 'observation' string)"
                )
    _ensure_ids(hist)
    return hist


def _flatten_pairs(items: list[Any]) -> NormalizedHistory:
    """Eval `history` as `[action, observation]` pairs (compatibility_for_eval_history_pairs)."""
    hist = NormalizedHistory(events=[], shape="pairs")
    seen: set[int] = set()
    for pos, pair in enumerate(items):
        members = pair if isinstance(pair, list) else [pair]
        for member in members:
            if not is_v0_event(member):
                _count(hist.dropped, "not an event")
                hist.warnings.append(f"/{pos}: skipped a pair member that is not a V0 event")
                continue
            if _is_pair_filler(member):
                _count(hist.dropped, "pairs filler")
                continue
            ident = member.get("id")
            if isinstance(ident, int) and ident in seen:
                continue  # the same action paired twice
            if isinstance(ident, int):
                seen.add(ident)
            hist.events.append(dict(member))
    if all(isinstance(e.get("id"), int) for e in hist.events):
        # Pairs list all actions first, then orphan observations; ids restore the stream order.
        hist.events.sort(key=lambda e: e["id"])
        hist.warnings.append(
            "pairs history: original interleaving rebuilt from V0 ids; observation "
            "positions come from their ids"
        )
    _ensure_ids(hist)
    return hist


def _is_pair_filler(member: dict[str, Any]) -> bool:
    # The pairs writer fills gaps with id-less `null` actions/observations.
    return (member.get("action") == "null" or member.get("observation") == "null") and (
        "id" not in member
    )


def _is_resolver(items: list[Any]) -> bool:
    events = [x for x in items[:20] if is_v0_event(x)]
    return bool(events) and all(
        "args" not in e and "extras" not in e and "id" not in e for e in events
    )


_RESOLVER_OBS_TOP = ("content",)


def _from_resolver(items: list[Any]) -> NormalizedHistory:
    """Resolver `dataclasses.asdict` records: no ids, sources, timestamps or tool calls."""
    hist = NormalizedHistory(events=[], shape="resolver")
    hist.synthesized_timestamps = True
    hist.warnings.append(
        "lossy resolver records: ids, sources, causes and timestamps were inferred "
        "(first message = user, actions = agent, each observation answers the action before it)"
    )
    last_action: int | None = None
    seen_message = False
    for pos, item in enumerate(items):
        if not is_v0_event(item):
            _count(hist.dropped, "not an event")
            continue
        rec = dict(item)
        ident = len(hist.events)
        if isinstance(rec.get("action"), str):
            kind = rec.pop("action")
            source = "agent"
            if kind == "message" and not seen_message:
                source = "user"
            seen_message = seen_message or kind == "message"
            rec.pop("source", None)
            ev: dict[str, Any] = {"id": ident, "source": source, "action": kind, "args": rec}
            last_action = ident
        else:
            kind = rec.pop("observation")
            content = rec.pop("content", "")
            rec.pop("source", None)
            ev = {"id": ident, "source": "agent", "observation": kind, "content": content}
            ev["extras"] = rec
            if last_action is not None:
                ev["cause"] = last_action
                last_action = None
        ev["_pointer"] = f"/{pos}"
        hist.events.append(ev)
    return hist


def _ensure_ids(hist: NormalizedHistory) -> None:
    """Give every event a unique int id; renumber by position when ids are missing or repeat."""
    ids = [e.get("id") for e in hist.events]
    if all(isinstance(i, int) and not isinstance(i, bool) for i in ids) and len(set(ids)) == len(
        ids
    ):
        return
    missing = sum(1 for i in ids if not isinstance(i, int))
    if missing:
        hist.warnings.append(f"{missing} event(s) had no V0 id; all events numbered by position")
    else:
        hist.warnings.append("V0 ids repeat; events renumbered by position (causes kept by id)")
    old_to_new: dict[int, int] = {}
    for new, ev in enumerate(hist.events):
        old = ev.get("id")
        if isinstance(old, int) and old not in old_to_new:
            old_to_new[old] = new
        if isinstance(old, int):
            ev["_v0_original_id"] = old
        ev["id"] = new
    for ev in hist.events:
        cause = ev.get("cause")
        if isinstance(cause, int) and cause in old_to_new:
            ev["cause"] = old_to_new[cause]


# -- legacy keys (what the V0 reader itself normalised on load) ----------------------------


def _normalize_legacy(ev: dict[str, Any]) -> dict[str, Any]:
    args = ev.get("args")
    if isinstance(args, dict):
        args = dict(args)
        if "images_urls" in args and "image_urls" not in args:  # <= 0.12
            args["image_urls"] = args.pop("images_urls")
        if "is_confirmed" in args and "confirmation_state" not in args:  # <= 0.10
            args["confirmation_state"] = args.pop("is_confirmed")
        code = args.get("translated_ipython_code")  # 2024-12 .. 2025-02 oh_aci read/edit
        if isinstance(code, str):
            for k, v in _file_editor_call(code).items():
                if args.get(k) in (None, ""):
                    args[k] = v
        ev["args"] = args
    elif "action" in ev:
        ev["args"] = {}
    extras = ev.get("extras")
    if isinstance(extras, dict):
        extras = dict(extras)
        if ev.get("observation") == "run" and "metadata" not in extras:  # <= 0.17
            meta: dict[str, Any] = {}
            if isinstance(extras.get("exit_code"), int):
                meta["exit_code"] = extras["exit_code"]
            if isinstance(extras.get("command_id"), int):
                meta["pid"] = extras["command_id"]
            extras["metadata"] = meta
        ev["extras"] = extras
    elif "observation" in ev:
        ev["extras"] = {}
    return ev


def _file_editor_call(code: str) -> dict[str, Any]:
    """Arguments of `print(file_editor(**{...}))` (a dict literal; read with literal_eval)."""
    start, end = code.find("{"), code.rfind("}")
    if start < 0 or end < start:
        return {}
    try:
        value = ast.literal_eval(code[start : end + 1])
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


# -- tool_call_metadata --------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCallInfo:
    """What `tool_call_metadata` says about the one tool call an event stands for."""

    function_name: str
    """Tool name the LLM called."""
    tool_call_id: str
    """Tool-call id (not unique across a trajectory in non-native function calling)."""
    response_id: str | None
    """`model_response.id`: the LLM response the call came from."""
    total_calls: int
    """`total_calls_in_response`."""
    message: dict[str, Any]
    """`model_response.choices[0].message` (empty when not recorded)."""
    raw_call: dict[str, Any] | None
    """The matching element of the response's `tool_calls`, when found."""
    response: dict[str, Any]
    """The rest of `model_response` (model, usage, created, ...), without `choices`."""


def tool_call_info(ev: dict[str, Any], *, occurrence: int = 0) -> ToolCallInfo | None:
    """Read an event's `tool_call_metadata`; `occurrence` picks among repeated ids in one response."""
    meta = ev.get("tool_call_metadata")
    if not isinstance(meta, dict):
        return None
    name = meta.get("function_name")
    call_id = meta.get("tool_call_id")
    if not isinstance(name, str) or not isinstance(call_id, str):
        return None
    response = meta.get("model_response")
    response = response if isinstance(response, dict) else {}
    message: dict[str, Any] = {}
    choices = response.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        msg = choices[0].get("message")
        message = msg if isinstance(msg, dict) else {}
    raw_call = _find_call(message.get("tool_calls"), call_id, name, occurrence)
    total = meta.get("total_calls_in_response")
    rid = response.get("id")
    return ToolCallInfo(
        function_name=name,
        tool_call_id=call_id,
        response_id=rid if isinstance(rid, str) and rid else None,
        total_calls=total if isinstance(total, int) else 1,
        message=message,
        raw_call=raw_call,
        response={k: v for k, v in response.items() if k != "choices"},
    )


def _find_call(calls: Any, call_id: str, name: str, occurrence: int) -> dict[str, Any] | None:
    if not isinstance(calls, list):
        return None
    matches = [c for c in calls if isinstance(c, dict) and c.get("id") == call_id]
    if not matches:
        return None
    call = matches[min(occurrence, len(matches) - 1)]
    fn = call.get("function")
    if not isinstance(fn, dict) or fn.get("name") not in (name, None):
        return None
    return call


def call_arguments(raw_call: dict[str, Any] | None) -> tuple[str | None, dict[str, Any] | None]:
    """The raw JSON-string arguments of a tool call, and their parsed dict when they parse."""
    if raw_call is None:
        return None, None
    fn = raw_call.get("function")
    raw = fn.get("arguments") if isinstance(fn, dict) else None
    if isinstance(raw, dict):
        return json.dumps(raw), raw
    if not isinstance(raw, str):
        return None, None
    try:
        parsed = json.loads(raw)
    except ValueError:
        return raw, None
    return raw, parsed if isinstance(parsed, dict) else None


def _count(counter: dict[str, int], key: str) -> None:
    counter[key] = counter.get(key, 0) + 1


def answering_action(
    unanswered: list[dict[str, Any]], obs: dict[str, Any]
) -> dict[str, Any] | None:
    """The latest unanswered action whose tool-call id the observation repeats (no `cause`)."""
    info = tool_call_info(obs)
    if info is None:
        return None
    for action in reversed(unanswered):
        other = tool_call_info(action)
        if other is not None and other.tool_call_id == info.tool_call_id:
            return cast(dict[str, Any], action)
    return None


def is_hidden(ev: dict[str, Any]) -> bool:
    """Whether V0 marked the event `hidden` (it never reached the LLM or the trajectory)."""
    for key in ("args", "extras"):
        block = ev.get(key)
        if isinstance(block, dict) and block.get("hidden") is True:
            return True
    return False


def display_text(ev: dict[str, Any]) -> str:
    """V0's derived `message` text ("" when absent)."""
    message = ev.get("message")
    return message if isinstance(message, str) else ""


def response_text(content: Any) -> str:
    """The text of a model response message's `content` (a string or a list of parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p.get("text", "")
            for p in content
            if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return ""


def response_reasoning(message: dict[str, Any]) -> dict[str, Any]:
    """`reasoning_content` and `thinking_blocks` of a response message, in V1 shape."""
    out: dict[str, Any] = {}
    if isinstance(message.get("reasoning_content"), str) and message["reasoning_content"]:
        out["reasoning_content"] = message["reasoning_content"]
    blocks = []
    raw = message.get("thinking_blocks")
    for b in raw if isinstance(raw, list) else []:
        if not isinstance(b, dict):
            continue
        if b.get("type") == "thinking" and isinstance(b.get("thinking"), str):
            blocks.append(
                {k: b[k] for k in ("type", "thinking", "signature") if isinstance(b.get(k), str)}
            )
        elif b.get("type") == "redacted_thinking" and isinstance(b.get("data"), str):
            blocks.append({"type": "redacted_thinking", "data": b["data"]})
    if blocks:
        out["thinking_blocks"] = blocks
    return out
