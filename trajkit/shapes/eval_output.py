"""One record of an evaluation `output.jsonl` whose `history` is V1 events, as a conversation.

OpenHands/benchmarks writes one JSON object per instance: `instance_id`, `instruction`,
`metadata` (the LLM config as `metadata.llm`, `max_iterations`, dataset, ...), `history` (the
V1 events as `model_dump`ed), `metrics`, `error`, `test_result`. Each record becomes one
conversation addressed `file.jsonl#<instance_id>`:

- events: `history` as it is (older SDK shapes are upgraded when parsed, as everywhere). When
  no user `MessageEvent` is in it (benchmarks keep the agent's events only), the record's
  `instruction` becomes the first event, a user message, so the conversation says what was
  asked; a note says so.
- base state: id derived from the file name and the instance id (uuid5, stable), `agent.llm`
  from `metadata.llm` (API keys masked), `max_iterations`, `execution_status` `error` when the
  record has an `error`, else `finished`; `stats.usage_to_metrics.agent` from `metrics` when it
  is an SDK `Metrics` dump; `tags` with the instance id and dataset; `leaf_event_id` the last
  event.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

import orjson

from trajkit.errors import InputError
from trajkit.shapes._files import json_object
from trajkit.shapes.memory import MemoryConversation, ShapeRef, derived_id

__all__ = [
    "BENCHMARK_FIELDS",
    "benchmark_fields",
    "eval_record_conversation",
    "eval_record_state",
]

_MASK = "**********"
_SECRET_KEYS = ("api_key", "aws_access_key_id", "aws_secret_access_key", "aws_session_token")


def eval_record_conversation(ref: ShapeRef, data: bytes) -> MemoryConversation:
    """The conversation of one record (`data`: the record's JSON line)."""
    label = ref.label
    record = json_object(
        label,
        data,
        bad_json="line is not valid JSON ({exc}); expected one record",
        not_object="expected an evaluation record (a JSON object)",
    )
    history = record.get("history")
    if not isinstance(history, list) or not all(isinstance(e, dict) for e in history):
        raise InputError(label, "/history", "expected a list of V1 event objects")
    conv_id = derived_id(os.path.basename(ref.file), ref.key)
    events: list[dict[str, Any]] = list(history)
    notes: list[str] = []
    instruction = record.get("instruction")
    has_user = any(e.get("kind") == "MessageEvent" and e.get("source") == "user" for e in events)
    if not has_user and isinstance(instruction, str) and instruction:
        events.insert(0, _instruction_event(conv_id, instruction, events))
        notes.append("no user message in history: the record's instruction is the first message")
    state = eval_record_state(record, conv_id, events)
    return MemoryConversation(
        ref.label,
        conversation_id=conv_id,
        state=state,
        events=events,
        notes=notes,
        pointers=(["/instruction"] if notes else [])
        + [f"/history/{i}" for i in range(len(history))],
        fingerprint=hashlib.blake2b(data, digest_size=16).hexdigest(),
        record={k: v for k, v in record.items() if k != "history"},
    )


def _instruction_event(conv_id: str, text: str, events: list[dict[str, Any]]) -> dict[str, Any]:
    first = events[0].get("timestamp") if events else None
    ids = {e.get("id") for e in events}
    parent = events[0].get("parent_id") if events else None
    # The first event's parent, when the history left it out, was the user message: reuse its id.
    missing = isinstance(parent, str) and parent not in ids and parent != "__root__"
    return {
        "id": parent if missing else derived_id(conv_id, "instruction"),
        "timestamp": first if isinstance(first, str) else "1970-01-01T00:00:00",
        "source": "user",
        "llm_message": {
            "role": "user",
            "content": [{"cache_prompt": False, "type": "text", "text": text}],
        },
        "activated_skills": [],
        "extended_content": [],
        "kind": "MessageEvent",
    }


def eval_record_state(
    record: dict[str, Any], conv_id: str, events: list[dict[str, Any]]
) -> dict[str, Any]:
    """The base state a record implies (see the module docstring)."""
    metadata = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
    assert isinstance(metadata, dict)
    llm = dict(metadata["llm"]) if isinstance(metadata.get("llm"), dict) else {}
    llm = {k: v for k, v in llm.items() if v is not None and k != "OVERRIDE_ON_SERIALIZE"}
    for key in _SECRET_KEYS:
        if llm.get(key):
            llm[key] = _MASK
    if not isinstance(llm.get("model"), str):
        model = metadata.get("model_name") or metadata.get("model")
        llm["model"] = model if isinstance(model, str) and model else "unknown"
    llm.setdefault("usage_id", "agent")
    state: dict[str, Any] = {
        "id": conv_id,
        "agent": {"llm": llm, "tools": [], "kind": "Agent"},
        "workspace": {"working_dir": "/workspace", "kind": "LocalWorkspace"},
        "execution_status": "error" if record.get("error") else "finished",
        "tags": _tags(record, metadata),
    }
    if isinstance(metadata.get("max_iterations"), int):
        state["max_iterations"] = metadata["max_iterations"]
    metrics = record.get("metrics")
    if isinstance(metrics, dict) and ("accumulated_cost" in metrics or "costs" in metrics):
        state["stats"] = {"usage_to_metrics": {"agent": {"model_name": llm["model"], **metrics}}}
    ids = [e["id"] for e in events if isinstance(e.get("id"), str)]
    if ids:
        state["leaf_event_id"] = ids[-1]
    users = [
        e["id"]
        for e in events
        if e.get("kind") == "MessageEvent" and e.get("source") == "user" and "id" in e
    ]
    if users:
        state["last_user_message_id"] = users[-1]
    return state


def _tags(record: dict[str, Any], metadata: dict[str, Any]) -> dict[str, str]:
    tags = {"title": str(record.get("instance_id", ""))[:256]}
    # (the SDK allows lowercase alphanumeric tag keys only)
    for key, tag in (("dataset", "dataset"), ("dataset_split", "split")):
        if isinstance(metadata.get(key), str):
            tags[tag] = metadata[key]
    if record.get("error"):
        tags["error"] = str(record["error"])[:256]
    return tags


# -- benchmark columns ---------------------------------------------------------------------

BENCHMARK_FIELDS = (
    "instance_id",
    "repo",
    "base_commit",
    "model_patch",
    "resolved",
    "exit_status",
    "score",
    "test_result",
)
"""What an evaluation record says about its task and outcome, in the names the public
trajectory datasets use (SWE-Gym, SWE-smith, nebius SWE-rebench): see `benchmark_fields`."""


def benchmark_fields(
    record: dict[str, Any] | None, tags: dict[str, str] | None = None
) -> dict[str, Any]:
    """The `BENCHMARK_FIELDS` of a conversation, from its evaluation record and its tags.

    OpenHands V1 (OpenHands/benchmarks `output.jsonl`) and V0 (`evaluation/` outputs) alike:
    `instance_id` (else the V0 `question_id`), `repo`/`base_commit` from the record's `instance`
    (SWE-bench rows), `model_patch` from `test_result.git_patch`, `resolved` from
    `test_result`/`report` (`resolved`), else the record's `success` (resolver) or `correct`
    (V0 gorilla and friends); `score` from `test_result.score` or `final_score.result / total`,
    else 1.0 / 0.0 from `resolved`; `exit_status` the record's own, else `error` when the record
    has an error, `submitted` when it has a patch, else `finished`; `test_result` as JSON text.
    Without a record, the agent server's (or base state's) tags may name `instance_id`
    (`instanceid`), `repo` and `base_commit` (`basecommit`); the rest stays None.
    """
    tags = tags or {}
    out: dict[str, Any] = dict.fromkeys(BENCHMARK_FIELDS)
    out["instance_id"] = tags.get("instance_id") or tags.get("instanceid")
    out["repo"] = tags.get("repo")
    out["base_commit"] = tags.get("base_commit") or tags.get("basecommit")
    if not isinstance(record, dict):
        return out
    result = _dict(record.get("test_result"))
    instance = _dict(record.get("instance"))
    report = _dict(result.get("report")) or _dict(record.get("report"))
    key = record.get("instance_id", instance.get("instance_id", record.get("question_id")))
    if isinstance(key, str | int) and not isinstance(key, bool):
        out["instance_id"] = str(key)
    for name in ("repo", "base_commit"):
        value = instance.get(name, record.get(name))
        out[name] = value if isinstance(value, str) else out[name]
    patch = result.get("git_patch", record.get("model_patch"))
    out["model_patch"] = patch if isinstance(patch, str) and patch.strip() else None
    out["resolved"] = next(
        (v for s in (result, report) if isinstance(v := s.get("resolved"), bool)),
        next(
            (v for k in ("resolved", "success", "correct") if isinstance(v := record.get(k), bool)),
            None,
        ),
    )
    out["score"] = _score(result, out["resolved"])
    status = record.get("exit_status")
    if not isinstance(status, str):
        status = (
            "error" if record.get("error") else "submitted" if out["model_patch"] else "finished"
        )
    out["exit_status"] = status
    if "test_result" in record:
        out["test_result"] = orjson.dumps(record["test_result"]).decode()
    return out


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _score(result: dict[str, Any], resolved: bool | None) -> float | None:
    score = result.get("score")
    if isinstance(score, int | float) and not isinstance(score, bool):
        return float(score)
    final = _dict(result.get("final_score"))  # OpenHands/benchmarks: checkpoints passed / total
    total, passed = final.get("total"), final.get("result")
    if isinstance(total, int | float) and isinstance(passed, int | float) and total > 0:
        return float(passed) / float(total)
    return None if resolved is None else float(resolved)
