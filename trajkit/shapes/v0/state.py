"""`base_state.json` for a migrated conversation, from what the V0 data tells.

- `agent.llm.model`: session `metadata.json` `llm_model`, else the eval metadata's
  `llm_config.model` or (OpenDevin-era records) `model_name`, else the model named in the last stored LLM response, else `unknown`.
  No API key is written (V0 files hold none, eval metadata masks it).
- `agent.tools`: the V1 registry names of the tools the V0 agent had (`terminal`,
  `file_editor`, `task_tracker`); tools with no V1 counterpart are not listed (the system prompt
  event keeps every V0 tool definition).
- `execution_status`: the last V0 agent state (mapped as in spec §9.3), else `finished` when the
  last action was a finish, else `idle`.
- `stats.usage_to_metrics.agent`: the last accumulated `llm_metrics` snapshot of an agent event
  (or the eval record's `metrics`), with the model name.
- `tags.title`: the session title, the eval `instance_id`, or the file name.
- `leaf_event_id` / `last_user_message_id`: the last event / the last user message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from trajkit.events import BaseState, Event, MessageEvent
from trajkit.events.state import Metrics, parse_base_state
from trajkit.shapes.v0.containers import V0Source

__all__ = ["build_base_state"]

_V1_REGISTRY = {
    "execute_bash": "terminal",
    "terminal": "terminal",
    "str_replace_editor": "file_editor",
    "file_editor": "file_editor",
    "task_tracker": "task_tracker",
}
_METRIC_KEYS = (
    "accumulated_cost", "max_budget_per_task", "accumulated_token_usage", "costs",
    "response_latencies", "token_usages",
)  # fmt: skip


def build_base_state(
    conversation_id: str,
    src: V0Source,
    v0_events: Sequence[dict[str, Any]],
    events: Sequence[Event],
    *,
    status: str | None,
    tools: Sequence[str],
    tool_names: str,
) -> BaseState:
    """The base state of a migrated conversation (validated by the event model)."""
    model = _model(src, v0_events)
    registry = sorted({_V1_REGISTRY[t] for t in tools if t in _V1_REGISTRY})
    data: dict[str, Any] = {
        "id": conversation_id,
        "agent": {
            "llm": {"model": model, "usage_id": "agent"},
            "tools": [{"name": n, "params": {}} for n in registry],
            "mcp_config": {},
            "include_default_tools": ["FinishTool", "ThinkTool"],
            "kind": "Agent",
        },
        "workspace": {"working_dir": _working_dir(v0_events), "kind": "LocalWorkspace"},
        "max_iterations": _max_iterations(src),
        "execution_status": status or _final_status(v0_events),
        "confirmation_policy": {"kind": "NeverConfirm"},
        "stats": {"usage_to_metrics": _metrics(src, v0_events, model)},
        "secret_registry": {"secret_sources": {}},
        "tags": {"title": _title(src)[:256]},
        "agent_state": {},
    }
    users = [e.id for e in events if isinstance(e, MessageEvent) and e.source == "user"]
    if users:
        data["last_user_message_id"] = users[-1]
    leaves = [
        e.id
        for e in events
        if e.kind not in ("ConversationStateUpdateEvent", "ConversationErrorEvent")
    ]
    if leaves:
        data["leaf_event_id"] = leaves[-1]
    return parse_base_state({k: v for k, v in data.items() if v is not None})


def _model(src: V0Source, v0_events: Sequence[dict[str, Any]]) -> str:
    meta = src.metadata
    if isinstance(meta.get("llm_model"), str) and meta["llm_model"]:
        return str(meta["llm_model"])
    inner = meta.get("metadata")
    llm = inner.get("llm_config") if isinstance(inner, dict) else None
    if isinstance(llm, dict) and isinstance(llm.get("model"), str):
        return str(llm["model"])
    if isinstance(inner, dict) and isinstance(inner.get("model_name"), str) and inner["model_name"]:
        return str(inner["model_name"])  # OpenDevin-era eval metadata (2024)
    for ev in reversed(v0_events):
        tcm = ev.get("tool_call_metadata")
        response = tcm.get("model_response") if isinstance(tcm, dict) else None
        if isinstance(response, dict) and isinstance(response.get("model"), str):
            return str(response["model"])
    return "unknown"


def _working_dir(v0_events: Sequence[dict[str, Any]]) -> str:
    for ev in v0_events:
        extras = ev.get("extras")
        if not isinstance(extras, dict):
            continue
        meta = extras.get("metadata")
        if ev.get("observation") == "run" and isinstance(meta, dict) and meta.get("working_dir"):
            return str(meta["working_dir"])
        if ev.get("observation") == "recall" and extras.get("working_dir"):
            return str(extras["working_dir"])
    return "/workspace"


def _max_iterations(src: V0Source) -> int | None:
    inner = src.metadata.get("metadata")
    value = inner.get("max_iterations") if isinstance(inner, dict) else None
    return value if isinstance(value, int) and value > 0 else None


def _final_status(v0_events: Sequence[dict[str, Any]]) -> str:
    for ev in reversed(v0_events):
        if isinstance(ev.get("action"), str) and ev.get("source") == "agent":
            return "finished" if ev["action"] == "finish" else "idle"
    return "idle"


def _metrics(src: V0Source, v0_events: Sequence[dict[str, Any]], model: str) -> dict[str, Any]:
    snapshot: Any = src.metadata.get("metrics")
    if not isinstance(snapshot, dict):
        snapshot = None
        for ev in reversed(v0_events):
            if (
                ev.get("source") == "agent"
                and "action" in ev
                and isinstance(ev.get("llm_metrics"), dict)
            ):
                snapshot = ev["llm_metrics"]
                break
    if snapshot is None:
        return {}
    metrics: dict[str, Any] = {"model_name": model}
    for key in _METRIC_KEYS:
        value = snapshot.get(key)
        if key in ("costs", "response_latencies", "token_usages"):
            value = [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []
        if value is not None:
            metrics[key] = value
    usage = metrics.get("accumulated_token_usage")
    if not isinstance(usage, dict):
        metrics.pop("accumulated_token_usage", None)
    elif usage.get("model") in (None, "default"):
        metrics["accumulated_token_usage"] = {**usage, "model": model}
    return {"agent": _valid_fields(metrics)}


def _valid_fields(metrics: dict[str, Any]) -> dict[str, Any]:
    """Keep only the fields the V1 model accepts (a damaged snapshot must not stop migration)."""
    kept: dict[str, Any] = {}
    for key, value in metrics.items():
        try:
            Metrics.model_validate({key: value})
        except ValidationError:
            continue
        kept[key] = value
    return kept


def _title(src: V0Source) -> str:
    title = src.metadata.get("title")
    return title if isinstance(title, str) and title else src.name
