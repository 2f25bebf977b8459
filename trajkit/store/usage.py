"""The one usage sum: cost, tokens and LLM calls of a conversation, from ``base_state.json``.

Pure (no pydantic import: ``StoredConversation.header()`` uses it for ``trajkit ls``), and
called by ``ls``, ``stats``, ``export`` and the reports alike, so they report the same totals.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trajkit.events.state import BaseState

__all__ = ["USAGE_TOKEN_FIELDS", "Usage", "usage_totals"]


USAGE_TOKEN_FIELDS = (
    "prompt_tokens",
    "completion_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)
"""Token counts summed by ``usage_totals``."""


@dataclass(frozen=True)
class Usage:
    """Cost, tokens and LLM calls summed over every LLM (usage id) of a conversation.

    A field is None when no LLM recorded a number for it.
    """

    cost: float | None = None
    """``accumulated_cost`` summed, USD."""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None
    n_llm_calls: int = 0
    """LLM calls recorded (``response_latencies`` entries)."""


def usage_totals(state: BaseState | Mapping[str, Any] | None) -> Usage:
    """Sum ``stats.usage_to_metrics.*`` of a ``base_state.json`` (parsed, or its JSON object).

    The one usage sum: ``trajkit ls``, ``stats``, ``export`` and the reports all call it, so
    they agree. Only numbers count (a hand-edited string or boolean is left out).
    """
    if isinstance(state, Mapping):
        stats = state.get("stats")
    elif state is not None and state.stats is not None:  # a parsed BaseState
        stats = state.stats.model_dump(exclude_none=True)
    else:
        stats = None
    metrics = (
        stats.get("usage_to_metrics", stats.get("service_to_metrics"))  # before SDK 1.0: service_
        if isinstance(stats, Mapping)
        else None
    )
    if not isinstance(metrics, Mapping):
        return Usage()
    cost: float | None = None
    tokens: dict[str, int | None] = dict.fromkeys(USAGE_TOKEN_FIELDS)
    calls = 0
    for m in metrics.values():
        if not isinstance(m, Mapping):
            continue
        value = m.get("accumulated_cost")
        if isinstance(value, int | float) and not isinstance(value, bool):
            cost = (cost or 0.0) + float(value)
        latencies = m.get("response_latencies")
        calls += len(latencies) if isinstance(latencies, list) else 0
        usage = m.get("accumulated_token_usage")
        if isinstance(usage, Mapping):
            for key in USAGE_TOKEN_FIELDS:
                n = usage.get(key)
                if isinstance(n, int) and not isinstance(n, bool):
                    tokens[key] = (tokens[key] or 0) + n
    return Usage(cost, n_llm_calls=calls, **tokens)
