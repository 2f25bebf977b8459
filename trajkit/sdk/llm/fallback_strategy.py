"""``FallbackStrategy``: other saved LLMs to try when the primary one fails (the SDK's class).

`FallbackStrategy(fallback_llms=[names], profile_store_dir=...)`: when the primary LLM fails for
a transient reason after its retries (service unavailable or unreachable, rate limit, timeout,
no response), each fallback profile (`LLMProfileStore`'s files) is tried in order with the
same request; the first answer is returned and its cost and tokens are added to the primary
LLM's metrics (the fallback is not listed in the conversation's stats). Each call starts with
the primary again. When every fallback fails the primary's error is raised.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from trajkit.sdk.llm._profile_files import read_profile, resolve_base
from trajkit.sdk.llm.exceptions import (
    LLMError,
    LLMNoResponseError,
    LLMRateLimitError,
    LLMServiceUnavailableError,
    LLMTimeoutError,
)
from trajkit.sdk.logger import get_logger

if TYPE_CHECKING:  # the LLM holds a FallbackStrategy: named for the type checker only
    from trajkit.sdk.llm.llm import LLM

__all__ = ["FallbackStrategy"]

_R = TypeVar("_R")
_TRANSIENT = (LLMServiceUnavailableError, LLMRateLimitError, LLMTimeoutError, LLMNoResponseError)


class FallbackStrategy(BaseModel):
    """Profiles to try, in order, when the primary LLM fails for a transient reason."""

    model_config = ConfigDict(extra="ignore", use_attribute_docstrings=True)

    fallback_llms: list[str] = Field(default_factory=list)
    """Profile names, tried in order."""
    profile_store_dir: str | None = None
    """Where the profiles are (default ``~/.openhands/profiles``)."""

    _loaded: dict[str, LLM] = PrivateAttr(default_factory=dict)

    def should_fallback(self, error: Exception) -> bool:
        """Whether ``error`` is a transient failure worth another model."""
        return isinstance(error, _TRANSIENT)

    def run(self, primary: LLM, error: LLMError, call: Callable[[LLM], _R]) -> _R:
        """``call`` on each fallback until one answers; re-raises ``error`` when none does."""
        if not self.should_fallback(error):
            raise error
        base = resolve_base(self.profile_store_dir)
        for name in self.fallback_llms:
            fallback = self._loaded.get(name)
            try:
                if fallback is None:
                    loaded = type(primary).model_validate_json(read_profile(base, name))
                    fallback = loaded.model_copy(update={"fallback_strategy": None})
                    self._loaded[name] = fallback
                before = len(fallback.metrics.token_usages), len(fallback.metrics.costs)
                result = call(fallback)
            except (LLMError, FileNotFoundError, ValueError) as e:
                get_logger(__name__).warning("fallback LLM %r failed: %s", name, e)
                continue
            _add_new_calls(primary, fallback, before)
            return result
        raise error


def _add_new_calls(primary: LLM, fallback: LLM, before: tuple[int, int]) -> None:
    m, f = primary.metrics, fallback.metrics
    for usage in f.token_usages[before[0] :]:
        m.add_token_usage(usage)
    for cost in f.costs[before[1] :]:
        m.add_cost(cost.cost)
    m.response_latencies.extend(f.response_latencies[-1:])
