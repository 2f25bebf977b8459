"""The LLM security analyzer: the risk the model predicts for each action it calls.

With an analyzer set (``{"kind": "LLMSecurityAnalyzer"}`` in ``base_state.json``), an action's
``security_risk`` is the LLM's own prediction, which `ConfirmRisky` compares with its threshold;
without one every action's risk is ``UNKNOWN``, as in the SDK.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ConfigDict

from trajkit.sdk.security.analyzers import (
    EnsembleSecurityAnalyzer,
    PatternSecurityAnalyzer,
    PolicyRailSecurityAnalyzer,
    SecurityAnalyzerBase,
)

__all__ = ["LLMSecurityAnalyzer", "parse_security_analyzer"]


class LLMSecurityAnalyzer(SecurityAnalyzerBase):
    """Trust the risk the LLM predicts in each call's ``security_risk`` argument."""

    model_config = ConfigDict(frozen=True, extra="ignore", use_attribute_docstrings=True)

    kind: Literal["LLMSecurityAnalyzer"] = "LLMSecurityAnalyzer"
    """Analyzer class name."""

    def security_risk(self, arguments: Mapping[str, Any], *, read_only: bool = False) -> str:
        """The action's risk: the LLM's prediction (UNKNOWN for read-only tools or none given)."""
        predicted = str(arguments.get("security_risk") or "UNKNOWN").upper()
        if read_only or predicted not in ("LOW", "MEDIUM", "HIGH"):
            return "UNKNOWN"
        return predicted


_KINDS: dict[str, type[SecurityAnalyzerBase]] = {
    c.__name__: c
    for c in (
        LLMSecurityAnalyzer,
        PatternSecurityAnalyzer,
        PolicyRailSecurityAnalyzer,
        EnsembleSecurityAnalyzer,
    )
}


def parse_security_analyzer(data: Any) -> SecurityAnalyzerBase | None:
    """The analyzer for a persisted ``security_analyzer`` (None when absent or unknown kind)."""
    if data is None or isinstance(data, SecurityAnalyzerBase):
        return data
    kind = data.get("kind") if isinstance(data, Mapping) else getattr(data, "kind", None)
    known = _KINDS.get(str(kind))
    return known.model_validate(data) if known is not None and isinstance(data, Mapping) else None
