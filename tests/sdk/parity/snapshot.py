"""Comparable snapshots of what a run wrote and sent (used by the recorder and the tests).

Only the standard library: the same code runs under the SDK's venv (recording) and trajkit's
(testing). What differs by design between two runs of one script is replaced: UUIDs (and
their 32-hex folder form) by ``<id1>``, ``<id2>``... in order of first appearance, timestamps
dropped, the system prompt's wording and tool descriptions replaced by markers (the issue
compares files "modulo ids, timestamps and the system prompt's wording").
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

_UUID = re.compile(
    r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}", re.IGNORECASE
)
_TIME_KEYS = {"timestamp", "created_at", "updated_at", "last_updated"}
SYSTEM = "<system prompt>"
AUXILIARY = "<auxiliary prompt>"


class Ids:
    """Stable placeholders for ids, in order of first appearance."""

    names: dict[str, str]

    def __init__(self, replace: dict[str, str] | None = None) -> None:
        self.names = {}
        self.replace = replace or {}
        """Literal strings (temp folders, the server's URL) and their markers."""

    def __call__(self, text: str) -> str:
        for old, new in self.replace.items():
            text = text.replace(old, new)

        def repl(m: re.Match[str]) -> str:
            key = m.group(0).replace("-", "").lower()
            return self.names.setdefault(key, f"<id{len(self.names) + 1}>")

        return _UUID.sub(repl, text)


def _walk(value: Any, ids: Ids) -> Any:
    if isinstance(value, dict):
        return {
            k: "<latency>" if k == "latency" else _walk(v, ids)
            for k, v in value.items()
            if k not in _TIME_KEYS
        }
    if isinstance(value, list):
        return [_walk(v, ids) for v in value]
    if isinstance(value, str):
        return ids(value)
    return value


def _tool_names(tools: Any) -> list[str]:
    names = []
    for t in tools or []:
        fn = t.get("function", t) if isinstance(t, dict) else {}
        names.append(str(fn.get("name", t.get("title", "?") if isinstance(t, dict) else "?")))
    return names


def normalize_event(data: dict[str, Any], ids: Ids) -> dict[str, Any]:
    """One event file's JSON, comparable."""
    data = dict(data)
    if data.get("kind") == "ConversationErrorEvent" and "detail" in data:
        data["detail"] = "<detail>"  # the provider's (or the SDK's) wording
    if data.get("kind") == "SystemPromptEvent":
        data["system_prompt"] = SYSTEM
        data["tools"] = _tool_names(data.get("tools"))
        if data.get("dynamic_context") is not None:
            data["dynamic_context"] = "<dynamic context>"
    return dict(_walk(data, ids))


def normalize_request(body: Any, ids: Ids) -> Any:
    """One request body, comparable: system text and tool descriptions replaced."""
    if not isinstance(body, dict):
        return body
    body = dict(body)
    if "tools" in body:
        body["tools"] = _tool_names(body["tools"])
    if "instructions" in body:
        body["instructions"] = SYSTEM
    if "input" in body and "tools" not in body:
        body["input"] = AUXILIARY
    auxiliary = "tools" not in body  # a condenser/title/question call: its prompt is wording
    msgs = []
    for i, m in enumerate(body.get("messages") or []):
        if auxiliary and isinstance(m, dict):
            msgs.append({**m, "content": AUXILIARY})
            continue
        # The first message is the system prompt (litellm sends it as a user message to
        # models without system messages, e.g. o3-mini).
        if isinstance(m, dict) and (m.get("role") in ("system", "developer") or i == 0):
            m = {**m, "content": SYSTEM}
        msgs.append(m)
    if "messages" in body:
        body["messages"] = msgs
    return _walk(body, ids)


def snapshot_folder(folder: Path, ids: Ids) -> dict[str, Any]:
    """One conversation folder: its file names (by kind), events and base state."""
    events_dir = folder / "events"
    files = sorted(p.name for p in events_dir.glob("event-*.json")) if events_dir.is_dir() else []
    events = [json.loads((events_dir / n).read_text()) for n in files]
    stamps = [e.get("timestamp", "") for e in events]
    base = folder / "base_state.json"
    state = json.loads(base.read_text()) if base.is_file() else None
    return {
        "folder": ids(folder.name),
        "event_kinds": [e.get("kind") for e in events],
        "events": [normalize_event(e, ids) for e in events],
        "timestamps_ordered": stamps == sorted(stamps),
        "base_state": _walk(state, ids) if state is not None else None,
    }


def snapshot_root(root: Path, ids: Ids) -> list[dict[str, Any]]:
    """Every conversation folder under ``root`` (oldest first by its first event)."""
    if not root.is_dir():
        return []
    folders = [p for p in root.iterdir() if p.is_dir() and (p / "base_state.json").exists()]
    folders.sort(key=lambda p: min((f.stat().st_mtime for f in p.rglob("*")), default=0))
    return [snapshot_folder(p, ids) for p in folders]


def snapshot_run(
    work: Path,
    requests: list[Any],
    result: dict[str, Any],
    *,
    base_url: str | None = None,
    root: Path | None = None,
) -> dict[str, Any]:
    """Everything one scenario produced, comparable."""
    replace = {str(work.resolve()): "<work>", str(work): "<work>"}
    if base_url:
        replace[base_url] = "<base_url>"
    ids = Ids(replace)
    conversations = snapshot_root(root or work / "conversations", ids)
    return {
        "result": _walk(result, ids),
        "requests": [normalize_request(r.body, ids) for r in requests],
        "request_headers": [
            {k.lower(): ids(v) for k, v in r.headers.items() if k.lower() == "x-litellm-session-id"}
            for r in requests
        ],
        "conversations": conversations,
    }
