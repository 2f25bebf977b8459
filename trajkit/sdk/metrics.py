"""LLM usage metrics with the SDK's field names (``stats.usage_to_metrics`` in base_state.json).

One `Metrics` per LLM ``usage_id``: accumulated cost and tokens, plus the per-call lists
(costs, latencies, token usages) the SDK persists in full.
"""

from __future__ import annotations

import time

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ConversationStats", "Cost", "Metrics", "ResponseLatency", "TokenUsage"]


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="ignore", use_attribute_docstrings=True, validate_assignment=False
    )


class TokenUsage(_Model):
    """Token counts of one response (or accumulated)."""

    model: str = ""
    """Model name."""
    prompt_tokens: int = 0
    """Prompt (input) tokens."""
    completion_tokens: int = 0
    """Completion (output) tokens."""
    cache_read_tokens: int = 0
    """Prompt tokens served from the provider's cache."""
    cache_write_tokens: int = 0
    """Prompt tokens written to the cache."""
    reasoning_tokens: int = 0
    """Reasoning tokens (part of completion tokens)."""
    context_window: int = 0
    """The model's context window."""
    per_turn_token: int = 0
    """Prompt plus completion tokens of the call."""
    response_id: str = ""
    """Response id."""


class Cost(_Model):
    """Cost of one call."""

    model: str
    """Model name."""
    cost: float = Field(ge=0)
    """USD."""
    timestamp: float = Field(default_factory=time.time)
    """Epoch seconds."""


class ResponseLatency(_Model):
    """Latency of one call."""

    model: str
    """Model name."""
    latency: float = Field(ge=0)
    """Seconds from request to response."""
    response_id: str = ""
    """Response id."""


class Metrics(_Model):
    """Usage of one LLM, accumulated over a conversation (and across restores)."""

    model_name: str = "default"
    """Model name."""
    accumulated_cost: float = Field(default=0.0, ge=0)
    """Total cost in USD (from litellm's cost map)."""
    max_budget_per_task: float | None = None
    """Budget cap, if any."""
    accumulated_token_usage: TokenUsage | None = None
    """Sum of all token usages."""
    costs: list[Cost] = Field(default_factory=list)
    """Per-call costs (only positive costs are recorded)."""
    response_latencies: list[ResponseLatency] = Field(default_factory=list)
    """Per-call latencies."""
    token_usages: list[TokenUsage] = Field(default_factory=list)
    """Per-call token usages."""

    def add_cost(self, cost: float) -> None:
        if cost <= 0:
            return
        self.accumulated_cost += cost
        self.costs.append(Cost(model=self.model_name, cost=cost))

    def add_response_latency(self, latency: float, response_id: str) -> None:
        self.response_latencies.append(
            ResponseLatency(
                model=self.model_name, latency=max(0.0, latency), response_id=response_id
            )
        )

    def add_token_usage(self, usage: TokenUsage) -> None:
        self.token_usages.append(usage)
        acc = self.accumulated_token_usage or TokenUsage(model=self.model_name)
        self.accumulated_token_usage = TokenUsage(
            model=self.model_name,
            prompt_tokens=acc.prompt_tokens + usage.prompt_tokens,
            completion_tokens=acc.completion_tokens + usage.completion_tokens,
            cache_read_tokens=acc.cache_read_tokens + usage.cache_read_tokens,
            cache_write_tokens=acc.cache_write_tokens + usage.cache_write_tokens,
            reasoning_tokens=acc.reasoning_tokens + usage.reasoning_tokens,
            context_window=max(acc.context_window, usage.context_window),
            per_turn_token=usage.per_turn_token,
            response_id="",
        )

    def merge(self, other: Metrics) -> None:
        """Add the calls of ``other`` this object does not already hold (restore after a
        restart, or into an LLM object that was reused and already counted some of them).
        """
        known_costs = {(c.model, c.cost, c.timestamp) for c in self.costs}
        new_costs = [c for c in other.costs if (c.model, c.cost, c.timestamp) not in known_costs]
        known_ids = {u.response_id for u in self.token_usages}
        new_usages = [u for u in other.token_usages if u.response_id not in known_ids]
        known_lat = {(r.response_id, r.latency) for r in self.response_latencies}
        new_lat = [
            r for r in other.response_latencies if (r.response_id, r.latency) not in known_lat
        ]
        self.accumulated_cost += sum(c.cost for c in new_costs)
        self.costs = sorted([*new_costs, *self.costs], key=lambda c: c.timestamp)
        self.response_latencies = [*new_lat, *self.response_latencies]
        usages = [*new_usages, *self.token_usages]
        self.token_usages = []
        self.accumulated_token_usage = None
        for u in usages:
            self.add_token_usage(u)
        if other.max_budget_per_task is not None and self.max_budget_per_task is None:
            self.max_budget_per_task = other.max_budget_per_task


class ConversationStats(_Model):
    """Metrics keyed by LLM ``usage_id``."""

    usage_to_metrics: dict[str, Metrics] = Field(default_factory=dict)
    """One entry per LLM usage id."""

    def get_combined_metrics(self) -> Metrics:
        """All LLMs' usage summed (cost, tokens, calls), as the SDK's method of this name."""
        combined = Metrics(model_name="combined")
        for metrics in self.usage_to_metrics.values():
            combined.accumulated_cost += metrics.accumulated_cost
            combined.costs.extend(metrics.costs)
            combined.response_latencies.extend(metrics.response_latencies)
            for usage in metrics.token_usages:
                combined.add_token_usage(usage)
        return combined

    def get_metrics_for_usage(self, usage_id: str) -> Metrics:
        """The metrics of one LLM.

        Raises:
            KeyError: no LLM with this usage id has been used.
        """
        try:
            return self.usage_to_metrics[usage_id]
        except KeyError:
            known = ", ".join(self.usage_to_metrics) or "none"
            raise KeyError(f"no metrics for usage_id {usage_id!r} (known: {known})") from None
