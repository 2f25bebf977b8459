"""Event kinds of newer SDKs that trajkit knows by their shape, used as the newer SDK uses them.

- `SystemPromptUpdateEvent` (seen in 2026-01 SDK branches; not in openhands-sdk 1.58.2): it
  carries a new `system_prompt` (and `tools`) for the rest of the conversation. A newer SDK
  sends the latest one as the system message, so the conversion does the same: the
  `SystemPromptEvent` of the branch takes the last update's prompt and tools, and the update
  itself is not a message. Said once per conversation in `problems`.

An update whose content does not have that shape stays an unknown event (left out, with the
usual warning).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trajkit.events import Event, SystemPromptEvent, UnknownEvent

__all__ = ["apply_newer_kinds"]

_UPDATE = "SystemPromptUpdateEvent"


def apply_newer_kinds(branch: Sequence[Event]) -> tuple[list[Event], list[str]]:
    """`branch` with known newer kinds applied, and one note per kind used."""
    updates = [e for e in branch if isinstance(e, UnknownEvent) and e.kind == _UPDATE]
    if not updates:
        return list(branch), []
    prompt = next((e for e in branch if isinstance(e, SystemPromptEvent)), None)
    new = _updated(prompt, updates) if prompt is not None else None
    if new is None:
        return list(branch), []
    out = [e for e in branch if not (isinstance(e, UnknownEvent) and e.kind == _UPDATE)]
    out[out.index(prompt)] = new  # type: ignore[arg-type]
    note = (
        f"{_UPDATE} (a newer SDK's kind, {len(updates)}x) used as the newer SDK uses it: "
        "the last update's system prompt and tools are the system message"
    )
    return out, [note]


def _updated(prompt: SystemPromptEvent, updates: list[UnknownEvent]) -> SystemPromptEvent | None:
    raw: dict[str, Any] = dict(getattr(updates[-1], "raw", None) or {})
    text = raw.get("system_prompt")
    if not isinstance(text, dict) or not isinstance(text.get("text"), str):
        return None
    data = prompt.model_dump(mode="json", exclude_none=True)
    data["system_prompt"] = {k: v for k, v in text.items() if k in ("cache_prompt", "type", "text")}
    if isinstance(raw.get("tools"), list):
        data["tools"] = raw["tools"]
    try:
        event: SystemPromptEvent = SystemPromptEvent.model_validate(data)
    except ValueError:
        return None
    return event
