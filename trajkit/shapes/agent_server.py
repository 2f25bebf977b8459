"""The agent server's `meta.json`: a conversation's title, times, tags and metrics.

The OpenHands agent server keeps, beside each conversation's `base_state.json`, a `meta.json`
holding its `StoredConversation` record (`openhands/agent_server/models.py`): in the 2025-09
layout `<hex>/event_service/meta.json`, since 1.x `<hex>/meta.json`. The fields read here are
those a listing needs, as the server writes them:

- `title` (user-set or generated), `created_at`, `updated_at` (ISO 8601);
- `tags` (lowercase alphanumeric keys, string values; added in 2026-03);
- `metrics`: a `MetricsSnapshot` (`model_name`, `accumulated_cost`, `accumulated_token_usage`
  with `prompt_tokens`, `completion_tokens`, ...).

Nothing else is read: older servers also stored the agent (its LLM configuration, possibly an
API key) and the conversation's secrets in it, which never reach a listing or an export.

The file goes through the store's guard like `base_state.json`: a link leading outside the
folder is refused (`UnsafePath`), a FIFO or device is refused unread, and its size is limited.
A `meta.json` that cannot be used is a problem to report, never a reason to skip the
conversation: its events and base state are read as always.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from trajkit.errors import InputError

__all__ = ["META_FILE", "ServerMeta", "read_server_meta"]

META_FILE = "meta.json"
_MAX_META_BYTES = 16 * 2**20


@dataclass(frozen=True)
class ServerMeta:
    """What a listing shows from an agent server's `meta.json` (None: not in the file)."""

    title: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    model: str | None = None
    """`metrics.model_name` (the SDK writes `default` when unknown: kept out)."""
    cost: float | None = None
    """`metrics.accumulated_cost` in USD."""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able fields that are set."""
        return {k: v for k, v in self.__dict__.items() if v not in (None, {})}


def read_server_meta(folder: str | os.PathLike[str]) -> ServerMeta | None:
    """The `meta.json` of the conversation in `folder`, or None when there is none.

    Raises `InputError` (or `UnsafePath`) naming the file when it exists but cannot be used.
    """
    from trajkit.store.guard import outside_error
    from trajkit.store.layout import link_outside
    from trajkit.store.location import is_remote
    from trajkit.store.reader import read_file_bytes

    if is_remote(folder):
        return None  # object storage: listing only what the store reads
    path = Path(folder) / META_FILE
    if not os.path.lexists(path):
        return None
    if path.is_symlink() and (real := link_outside(path, folder)) is not None:
        raise outside_error(path, real)
    raw = read_file_bytes(path, max_bytes=_MAX_META_BYTES)
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError(path, "", f"not valid JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise InputError(path, "", "expected the agent server's conversation record (an object)")
    return _meta(doc)


def _meta(doc: dict[str, Any]) -> ServerMeta:
    metrics = doc.get("metrics") if isinstance(doc.get("metrics"), dict) else {}
    assert isinstance(metrics, dict)
    usage = metrics.get("accumulated_token_usage")
    usage = usage if isinstance(usage, dict) else {}
    model = _str(metrics.get("model_name"))
    tags = doc.get("tags")
    return ServerMeta(
        title=_str(doc.get("title")),
        created_at=_str(doc.get("created_at")),
        updated_at=_str(doc.get("updated_at")),
        tags={str(k): str(v) for k, v in tags.items()} if isinstance(tags, dict) else {},
        model=None if model == "default" else model,
        cost=_number(metrics.get("accumulated_cost")),
        prompt_tokens=_int(usage.get("prompt_tokens")),
        completion_tokens=_int(usage.get("completion_tokens")),
    )


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
