"""``LLMRegistry``: LLMs of one program by ``usage_id`` (the SDK's registry example).

``add`` refuses a second LLM with a taken usage id (a typo would otherwise merge two LLMs'
costs); ``get`` returns the very instance added, so its metrics are the ones that count.
Subscribers hear of every LLM added (a conversation uses this to put each LLM's metrics in
``state.stats``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

from trajkit.sdk.llm.llm import LLM

__all__ = ["LLMRegistry", "RegistryEvent"]


@dataclass(frozen=True)
class RegistryEvent:
    """An LLM was added to the registry."""

    llm: LLM


class LLMRegistry:
    """LLM instances by usage id."""

    def __init__(self) -> None:
        self._llms: dict[str, LLM] = {}
        self._subscribers: list[Callable[[RegistryEvent], None]] = []

    @property
    def usage_to_llm(self) -> MappingProxyType[str, LLM]:
        """Read-only view of the LLMs by usage id."""
        return MappingProxyType(self._llms)

    def subscribe(self, callback: Callable[[RegistryEvent], None]) -> None:
        """Call ``callback`` for each LLM added from now on."""
        self._subscribers.append(callback)

    def add(self, llm: LLM) -> None:
        """Register ``llm`` under its usage id.

        Raises:
            ValueError: another LLM already has this usage id.
        """
        if llm.usage_id in self._llms:
            raise ValueError(
                f"usage_id {llm.usage_id!r} is already registered; give each LLM its own "
                "usage_id (its costs are kept under it)"
            )
        self._llms[llm.usage_id] = llm
        for callback in self._subscribers:
            callback(RegistryEvent(llm=llm))

    def get(self, usage_id: str) -> LLM:
        """The LLM added under ``usage_id``.

        Raises:
            KeyError: none was added under this id (the message lists the known ones).
        """
        try:
            return self._llms[usage_id]
        except KeyError:
            known = ", ".join(self._llms) or "none"
            raise KeyError(f"no LLM with usage_id {usage_id!r} (registered: {known})") from None

    def remove(self, usage_id: str) -> None:
        """Forget the LLM of ``usage_id`` (no error when absent)."""
        self._llms.pop(usage_id, None)

    def list_usage_ids(self) -> list[str]:
        """Usage ids in the order they were added."""
        return list(self._llms)
