"""Saved LLM configurations and fallback between them (the SDK's ``LLMProfileStore`` and
``FallbackStrategy``, as its fallback example uses them).

- `LLMProfileStore(base_dir)`: one ``<name>.json`` per profile (default
  ``~/.openhands/profiles``), written atomically with mode 0600; secrets are masked unless
  ``include_secrets=True`` (then in clear in that private file, as the SDK does). Names are
  plain file names: no separators, no leading dot.
- `FallbackStrategy(fallback_llms=[names], profile_store_dir=...)`: when the primary LLM fails
  for a transient reason after its retries (service unavailable or unreachable, rate limit,
  timeout, no response), each fallback profile is tried in order with the same request;
  the first answer is returned and its cost and tokens are added to the primary LLM's
  metrics (the fallback is not listed in the conversation's stats). Each call starts with
  the primary again. When every fallback fails the primary's error is raised.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from trajkit.sdk.llm.exceptions import (
    LLMError,
    LLMNoResponseError,
    LLMRateLimitError,
    LLMServiceUnavailableError,
    LLMTimeoutError,
)

if TYPE_CHECKING:
    from trajkit.sdk.llm.llm import LLM

__all__ = ["FallbackStrategy", "LLMProfileStore"]

_R = TypeVar("_R")
_TRANSIENT = (LLMServiceUnavailableError, LLMRateLimitError, LLMTimeoutError, LLMNoResponseError)


class LLMProfileStore:
    """LLM configurations saved by name as JSON files."""

    def __init__(self, base_dir: str | Path | None = None) -> None:
        self.base_dir = Path(base_dir) if base_dir else Path.home() / ".openhands" / "profiles"

    def _path(self, name: str) -> Path:
        stem = name.removesuffix(".json")
        if not stem or "/" in stem or "\\" in stem or stem.startswith("."):
            raise ValueError(f"profile name {name!r}: expected a plain name like 'backup'")
        return self.base_dir / f"{stem}.json"

    def save(self, name: str, llm: LLM, include_secrets: bool = False) -> None:
        """Write ``llm`` as profile ``name`` (replacing one of that name)."""
        from trajkit.store.atomic import atomic_write

        self.base_dir.mkdir(parents=True, exist_ok=True)
        data = llm.model_dump(mode="json", context={"expose_secrets": include_secrets})
        atomic_write(self._path(name), json.dumps(data, indent=2) + "\n", mode=0o600)

    def load(self, name: str) -> LLM:
        """The LLM saved as ``name``.

        Raises:
            FileNotFoundError: no such profile (the message lists the saved ones).
        """
        from trajkit.sdk.llm.llm import LLM

        path = self._path(name)
        if not path.is_file():
            raise FileNotFoundError(
                f"no LLM profile {name!r} in {self.base_dir} (saved: {', '.join(self.list())})"
            )
        return LLM.model_validate_json(path.read_text())

    def list(self) -> list[str]:
        """Saved profile file names (``backup.json``...)."""
        if not self.base_dir.is_dir():
            return []
        return sorted(p.name for p in self.base_dir.glob("*.json"))

    def delete(self, name: str) -> None:
        """Remove profile ``name`` (no error when absent)."""
        self._path(name).unlink(missing_ok=True)


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
        store = LLMProfileStore(self.profile_store_dir)
        for name in self.fallback_llms:
            fallback = self._loaded.get(name)
            try:
                if fallback is None:
                    fallback = store.load(name).model_copy(update={"fallback_strategy": None})
                    self._loaded[name] = fallback
                before = len(fallback.metrics.token_usages), len(fallback.metrics.costs)
                result = call(fallback)
            except (LLMError, FileNotFoundError, ValueError) as e:
                from trajkit.sdk.logger import get_logger

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
