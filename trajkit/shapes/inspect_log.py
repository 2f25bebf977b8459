"""Inspect AI logs (`.eval` zip archives and `.json` logs) read as V1 conversations.

One sample (per epoch) is one conversation, addressed `log.eval#<id>_epoch_<n>`. Its
`messages` (the final conversation) are mapped by `trajkit.shapes.chatlog`: Inspect's tool
calls (`function`, `arguments` as an object) become `ActionEvent`s, `tool` messages results
(with `error`: flagged, the error's message added), `reasoning` content parts the assistant's
reasoning. `attachment://<hash>` strings are resolved from the sample's `attachments` first.

- tools: those of the sample's first `model` event (`name`, `description`, `parameters`);
- model: the log's `eval.model`; stats: one token usage per `model` event (input, output and
  reasoning tokens), else the sample's `model_usage` totals;
- what V1 has no field for (the sample's scores, target, metadata, store, events, the log's
  eval spec, plan and results, a message's id and source) is kept in `ImportedData` events.

A `.eval` file is read with `zipfile`. Entries in deflate are read by any Python; entries in
zstd (zip method 93: Inspect's default writer since its 2026 releases) by Python 3.14's own
`zipfile`, else with the `zstandard` package (the `zstd` extra; without it, one line says to
install it or to convert the log to `.json`). The member's bytes are checked against the zip's
CRC and size limits either way.
"""

from __future__ import annotations

import io
import os
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from trajkit.errors import InputError
from trajkit.shapes._files import json_object, open_input
from trajkit.shapes.chatlog import ChatLog, chat_to_v1, metrics_state
from trajkit.shapes.memory import MemoryConversation, ShapeRef, derived_id, digest

__all__ = ["inspect_refs", "open_inspect", "takes_inspect"]

_ATTACHMENT = "attachment://"
_MAX_ENTRY = 512 * 1024 * 1024


def takes_inspect(path: Path) -> bool:
    """An Inspect log: a `.eval` file (a zip), or a `.json` `EvalLog`."""
    if not path.is_file():
        return False
    if path.suffix == ".eval":  # by its name: opening it says what is wrong with it
        return True
    if path.suffix != ".json":
        return False
    try:
        with open_input(path) as fh:
            head = fh.read(4096).lstrip()
    except (OSError, InputError):
        return False
    return (
        head.startswith(b"{") and b'"eval"' in head and b'"version"' in head and (b'"task"' in head)
    )


_ZSTD = 93
"""The zip compression method of zstd (Python < 3.14's `zipfile` cannot read it)."""


def _entry(z: zipfile.ZipFile, name: str, path: Path) -> Any:
    try:
        info = z.getinfo(name)
        if info.file_size > _MAX_ENTRY:
            raise InputError(path, name, f"entry of {info.file_size} bytes above the limit")
        try:
            data = z.read(info)
        except NotImplementedError:
            if info.compress_type != _ZSTD:
                raise
            data = _zstd_entry(z, info, path)
        return orjson.loads(data)
    except NotImplementedError as exc:
        raise InputError(path, name, f"unreadable entry: {exc}") from None
    except (KeyError, zipfile.BadZipFile, orjson.JSONDecodeError, OSError) as exc:
        raise InputError(path, name, f"unreadable entry: {exc}") from None


def _zstd_entry(z: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> bytes:
    """A zstd member's bytes (its frames, read from the member's local header on)."""
    try:
        import zstandard  # optional (the `zstd` extra): only zstd-compressed logs need it
    except ImportError:
        raise InputError(path, info.filename, "compressed with zstd (zip method 93): install "
                         "the zstd extra (pip install 'trajkit[zstd]'), or convert the log "
                         "with `inspect log convert --to json`") from None  # fmt: skip
    fp = z.fp
    assert fp is not None  # (open: we are inside its `with`)
    fp.seek(info.header_offset)
    header = fp.read(30)
    if len(header) != 30 or header[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile("bad local file header")
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    fp.seek(info.header_offset + 30 + name_len + extra_len)
    frames = io.BytesIO(fp.read(info.compress_size))
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(frames, read_across_frames=True)
        data = reader.read(info.file_size + 1)  # (a lying size is caught below)
    except zstandard.ZstdError as exc:
        raise zipfile.BadZipFile(f"zstd: {exc}") from None
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise zipfile.BadZipFile(f"bad CRC or size in {info.filename}")
    return data


def _json_log(path: Path) -> dict[str, Any]:
    from trajkit.store.reader import read_file_bytes

    return json_object(str(path), read_file_bytes(path), bad_json="not valid JSON: {exc}",
                       not_object="expected an Inspect log (a JSON object)")  # fmt: skip


def _key(sample: dict[str, Any]) -> str:
    return f"{sample.get('id')}_epoch_{sample.get('epoch', 1)}"


def inspect_refs(path: Path) -> Iterator[ShapeRef]:
    """One conversation per sample, in the log's order."""
    if path.suffix == ".eval":
        try:
            with zipfile.ZipFile(path) as z:
                names = [
                    n for n in z.namelist() if n.startswith("samples/") and n.endswith(".json")
                ]
        except (OSError, zipfile.BadZipFile) as exc:
            raise InputError(path, "", f"not a readable .eval log (a zip archive): {exc}") from None
        for name in names:
            yield ShapeRef("inspect", str(path), key=name.removeprefix("samples/")[:-5])
        return
    samples = _json_log(path).get("samples")
    for sample in samples if isinstance(samples, list) else []:
        if isinstance(sample, dict):
            yield ShapeRef("inspect", str(path), key=_key(sample))


def _read(ref: ShapeRef) -> tuple[dict[str, Any], dict[str, Any], str]:
    """`(the log without samples, the sample, its pointer)`."""
    path = Path(ref.file)
    if path.suffix == ".eval":
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
            header = _entry(
                z, "header.json" if "header.json" in names else "_journal/start.json", path
            )
            sample = _entry(z, f"samples/{ref.key}.json", path)
        return header, sample, f"samples/{ref.key}.json"
    log = _json_log(path)
    samples = log.get("samples") if isinstance(log.get("samples"), list) else []
    assert isinstance(samples, list)
    for i, sample in enumerate(samples):
        if isinstance(sample, dict) and _key(sample) == ref.key:
            return {k: v for k, v in log.items() if k != "samples"}, sample, f"/samples/{i}"
    raise InputError(ref.label, "/samples", f"no sample {ref.key!r}")


def open_inspect(ref: ShapeRef) -> MemoryConversation:
    """One sample of an Inspect log as a conversation in memory."""
    header, sample, pointer = _read(ref)
    if not isinstance(sample, dict) or not isinstance(sample.get("messages"), list):
        raise InputError(ref.label, f"{pointer}/messages", "expected a sample with messages")
    sample = _resolved(sample, sample.get("attachments") or {})
    where = pointer if pointer.startswith("/") else ""
    messages = [_message(m) if isinstance(m, dict) else {} for m in sample["messages"]]
    spec = header.get("eval") if isinstance(header.get("eval"), dict) else {}
    assert isinstance(spec, dict)
    run = (
        sample.get("uuid") or spec.get("eval_id") or spec.get("run_id") or os.path.abspath(ref.file)
    )
    conv_id = derived_id(str(run), ref.key)  # a dashed UUID, as V1 folders are named
    models = [
        e for e in sample.get("events") or [] if isinstance(e, dict) and e.get("event") == "model"
    ]
    tools = (
        [_tool(t) for t in (models[0].get("tools") or []) if isinstance(t, dict)] if models else []
    )
    rest = {k: v for k, v in sample.items() if k not in ("messages", "attachments")}
    log = ChatLog(conv_id, messages, [f"{where}/messages/{i}" for i in range(len(messages))],
                  tools=tools, extra={"sample": rest, "log": header},
                  timestamp=str(spec.get("created") or "1970-01-01T00:00:00"),
                  mapped={"tool_calls", "function", "error", "is_error"},
                  response_id=lambda m, i: m.get("id") if m.get("role") == "assistant" else None)  # fmt: skip
    events, pointers, notes = chat_to_v1(log)
    model = str(spec.get("model") or "unknown")
    usages = [_usage(e, i) for i, e in enumerate(models)]
    totals = _totals(sample.get("model_usage"))
    state = metrics_state(conv_id, model, usages=[u for u in usages if u], events=events,
                          totals=None if any(usages) else totals)  # fmt: skip
    return MemoryConversation(ref.label, conversation_id=conv_id, state=state, events=events,
                              pointers=pointers, notes=notes, origin="inspect",
                              fingerprint=digest(orjson.dumps(sample)))  # fmt: skip


def _resolved(value: Any, attachments: Any) -> Any:
    """`value` with each `attachment://<hash>` string replaced by the attachment."""
    if isinstance(value, str):
        if value.startswith(_ATTACHMENT) and isinstance(attachments, dict):
            return attachments.get(value[len(_ATTACHMENT) :], value)
        return value
    if isinstance(value, dict):
        return {k: _resolved(v, attachments) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolved(v, attachments) for v in value]
    return value


def _message(message: dict[str, Any]) -> dict[str, Any]:
    """An Inspect `ChatMessage` in the OpenAI-like shape `chat_to_v1` reads."""
    content = message.get("content")
    parts: list[Any] = []
    reasoning: list[str] = []
    odd = False
    for part in content if isinstance(content, list) else [content or ""]:
        if isinstance(part, dict) and part.get("type") == "reasoning":
            reasoning.append(str(part.get("reasoning") or part.get("summary") or ""))
            odd = odd or bool(part.get("signature") or part.get("redacted"))
        elif isinstance(part, dict) and part.get("type") not in ("text", "image"):
            odd = True
        elif part != "":
            parts.append(part)
    out = {**message, "content": parts}
    if odd:
        out["content_parts"] = content  # kept whole: parts V1 has no field for
    if reasoning and message.get("role") == "assistant":
        out["reasoning_content"] = "\n".join(reasoning)
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        out["tool_calls"] = [{"id": c.get("id"), "function": {"name": c.get("function"),
                              "arguments": c.get("arguments", {})}}
                             for c in calls if isinstance(c, dict)]  # fmt: skip
    error = message.get("error")
    if message.get("role") == "tool" and isinstance(error, dict):
        out["is_error"] = True
        out["content"] = [*parts, {"type": "text", "text": str(error.get("message") or "")}]
    return out


def _tool(info: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": info.get("name"),
            "description": info.get("description") or "",
            "parameters": info.get("parameters") or {"type": "object", "properties": {}}}}  # fmt: skip


def _usage(event: dict[str, Any], i: int) -> tuple[str, int, int, int, float] | None:
    output = event.get("output") if isinstance(event.get("output"), dict) else {}
    assert isinstance(output, dict)
    usage = output.get("usage")
    if not isinstance(usage, dict):
        return None
    choice = (output.get("choices") or [{}])[0]
    message = choice.get("message") if isinstance(choice, dict) else {}
    response_id = message.get("id") if isinstance(message, dict) else None
    return (str(response_id or i), _int(usage.get("input_tokens")),
            _int(usage.get("output_tokens")), _int(usage.get("reasoning_tokens")), 0.0)  # fmt: skip


def _totals(model_usage: Any) -> tuple[int, int] | None:
    if not isinstance(model_usage, dict) or not model_usage:
        return None
    usages = [u for u in model_usage.values() if isinstance(u, dict)]
    return (sum(_int(u.get("input_tokens")) for u in usages),
            sum(_int(u.get("output_tokens")) for u in usages))  # fmt: skip


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
