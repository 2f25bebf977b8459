"""Conversations as one Inspect AI log (`convert --to inspect -o FILE.eval`).

The `.eval` file is the zip Inspect writes: `_journal/start.json`, one
`samples/<n>_epoch_1.json` per conversation (written as soon as it is converted, so memory
holds one conversation), then `summaries.json`, `reductions.json` and `header.json`.

A sample is one conversation: its messages are those `convert --to chat` gives
(`prepare_messages`), as Inspect models them: `system` / `user` content, `assistant` with its
`reasoning` part and `tool_calls` (`function`, `arguments` as an object), `tool` results with
`tool_call_id` and `function`. `input` is the first user text, `metadata` the conversation id and
where it came from, `model_usage` the SDK's accumulated usage, `scores` an evaluation record's
`test_result.resolved` (OpenHands benchmarks) when the conversation came from one. The log's
`eval` names the task `trajkit-convert` and the first conversation's model; V1 has no dataset,
plan or target (`target` is empty).
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any

import orjson

from trajkit.convert.options import ConversionOptions
from trajkit.errors import TrajkitError
from trajkit.events import ImageContent, Message, TextContent

if TYPE_CHECKING:
    from trajkit.redact import SecretMasker

__all__ = ["InspectReport", "conversation_to_sample", "write_inspect_log"]

_DEFAULT = ConversionOptions()


@dataclass
class InspectReport:
    """What `write_inspect_log` wrote and skipped."""

    samples: int = 0
    errors: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def write_inspect_log(
    paths: Iterable[str | os.PathLike[str]],
    output: str | os.PathLike[str] | IO[bytes],
    *,
    options: ConversionOptions = _DEFAULT,
    keep_invalid: bool = False,
    masker: SecretMasker | None = None,
) -> InspectReport:
    """Write every conversation under `paths` as one sample of the Inspect log `output`
    (a `.eval` zip), one conversation at a time. Conversations validate rejects are skipped
    (named in `errors`) unless `keep_invalid`. With `masker`, each member's bytes are masked
    before they are compressed (the zip's bytes cannot be masked afterwards).
    """
    from trajkit.shapes import SkippedInput, resolve_inputs

    report = InspectReport()
    created = datetime.now(UTC).isoformat(timespec="seconds")
    model: str | None = None
    summaries: list[dict[str, Any]] = []
    with zipfile.ZipFile(output, "w", compression=zipfile.ZIP_DEFLATED) as zf:

        def write(name: str, data: bytes) -> None:
            zf.writestr(name, masker.raw(data) if masker is not None else data)

        write("_journal/start.json", orjson.dumps({"version": 2, "eval": _spec(created, None, 0)}))
        for item in resolve_inputs(paths):
            if isinstance(item, SkippedInput):
                report.errors.append(str(item))
                continue
            try:
                sample, sample_model, problems = conversation_to_sample(
                    item, report.samples + 1, options=options, keep_invalid=keep_invalid
                )
            except TrajkitError as exc:
                report.errors.append(str(exc))
                continue
            report.samples += 1
            report.problems += [f"{item}: {p}" for p in problems]
            model = model or sample_model
            write(f"samples/{sample['id']}_epoch_1.json", orjson.dumps(sample))
            summaries.append({k: sample[k] for k in ("id", "epoch", "input", "target", "metadata",
                                                      "scores", "model_usage")})  # fmt: skip
        header = {"version": 2, "status": "success", "eval": _spec(created, model, report.samples),
                  "plan": {"name": "plan", "steps": [], "config": {}},
                  "stats": {"started_at": created, "completed_at": created, "model_usage": {}}}  # fmt: skip
        write("summaries.json", orjson.dumps(summaries))
        write("reductions.json", b"[]")
        write("header.json", orjson.dumps(header))
    return report


def _spec(created: str, model: str | None, samples: int) -> dict[str, Any]:
    from trajkit import __version__

    return {"created": created, "task": "trajkit-convert", "task_version": 0,
            "dataset": {"name": "trajkit", "samples": samples},
            "model": model or "unknown", "config": {},
            "packages": {"trajkit": __version__}}  # fmt: skip


def conversation_to_sample(
    conversation: Any, number: int, *, options: ConversionOptions, keep_invalid: bool
) -> tuple[dict[str, Any], str, list[str]]:
    """`(the Inspect sample, its model, warnings)` of one conversation."""
    from trajkit.convert._source import opened
    from trajkit.convert._source import prepared as prepared_messages

    conv, errors = opened(conversation, keep_invalid=keep_invalid)
    state, prepared = prepared_messages(conv, options)
    model = state.agent.llm.model if state is not None else "unknown"
    messages = [_message(m, model) for m in prepared.messages]
    first_user = next((m["content"] for m in messages if m["role"] == "user"), "")
    sample: dict[str, Any] = {
        "id": number, "epoch": 1,
        "input": first_user if isinstance(first_user, str) else _text(first_user),
        "target": "", "messages": messages,
        "metadata": {"conversation_id": conv.id, "source": str(conversation)},
        "scores": _scores(getattr(conv, "record", None)),
        "model_usage": _usage(state, model),
    }  # fmt: skip
    notes = [*getattr(conv, "notes", ()), *(f"{e} (kept)" for e in errors)]
    return sample, model, [*notes, *prepared.problems]


def _message(message: Message, model: str) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    if message.role == "assistant" and message.reasoning_content:
        parts.append({"type": "reasoning", "reasoning": message.reasoning_content})
    for part in message.content:
        if isinstance(part, TextContent):
            parts.append({"type": "text", "text": part.text})
        elif isinstance(part, ImageContent):
            parts += [{"type": "image", "image": url} for url in part.image_urls]
    simple = all(p["type"] == "text" for p in parts)
    out: dict[str, Any] = {"role": message.role,
                           "content": "".join(p["text"] for p in parts) if simple else parts}  # fmt: skip
    if message.role == "assistant":
        out["source"], out["model"] = "generate", model
        calls = []
        for call in message.tool_calls or []:
            try:
                arguments = orjson.loads(call.arguments)
            except orjson.JSONDecodeError:
                arguments = None
            calls.append({"id": call.id, "function": call.name, "type": "function",
                          "arguments": arguments if isinstance(arguments, dict)
                          else {"arguments": call.arguments}})  # fmt: skip
        if calls:
            out["tool_calls"] = calls
    if message.role == "tool":
        out["tool_call_id"], out["function"] = message.tool_call_id, message.name
    return out


def _text(parts: list[dict[str, Any]]) -> str:
    return "".join(p.get("text", "") for p in parts)


def _usage(state: Any, model: str) -> dict[str, Any]:
    metrics = (
        state.stats.usage_to_metrics.get("agent") if state is not None and state.stats else None
    )
    usage = getattr(metrics, "accumulated_token_usage", None)
    if usage is None:
        return {}
    prompt, completion = usage.prompt_tokens or 0, usage.completion_tokens or 0
    return {model: {"input_tokens": prompt, "output_tokens": completion,
                    "total_tokens": prompt + completion,
                    "input_tokens_cache_read": usage.cache_read_tokens or 0,
                    "reasoning_tokens": usage.reasoning_tokens or 0}}  # fmt: skip


def _scores(record: Any) -> dict[str, Any]:
    result = record.get("test_result") if isinstance(record, dict) else None
    if isinstance(result, dict) and isinstance(result.get("resolved"), bool):
        return {"resolved": {"value": result["resolved"]}}
    return {}
