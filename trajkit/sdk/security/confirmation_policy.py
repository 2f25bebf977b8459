"""Confirmation policies and the security analyzer that feeds them.

Before executing the actions of one LLM response the agent asks the conversation's policy
whether any of them needs the user's confirmation (v1-format §2 ``confirmation_policy``):

- ``{"kind": "NeverConfirm"}``: run everything (the default);
- ``{"kind": "AlwaysConfirm"}``: stop before every action;
- ``{"kind": "ConfirmRisky", "threshold": "HIGH", "confirm_unknown": true}``: stop when an action's
  ``security_risk`` is at or above the threshold, or unknown and ``confirm_unknown``.

When it must confirm, the run stops with status ``waiting_for_confirmation`` and the actions stay
unanswered on disk. ``conversation.run()`` then executes them; ``reject_pending_actions(reason)``
answers each with a ``UserRejectObservation``. An action's ``security_risk`` is the LLM's own
prediction only when a security analyzer (``{"kind": "LLMSecurityAnalyzer"}``) is set, otherwise
``UNKNOWN``, as in the SDK.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

__all__ = [
    "AlwaysConfirm",
    "ConfirmRisky",
    "ConfirmationPolicy",
    "NeverConfirm",
    "SecurityRisk",
    "parse_confirmation_policy",
    "risk_level",
]


class SecurityRisk(StrEnum):
    """How risky an action is (the SDK's enum; written as its value)."""

    UNKNOWN = "UNKNOWN"
    LOW = "LOW"
    MEDIUM = "MEDIUM"
    HIGH = "HIGH"


_LEVELS = {"LOW": 1, "MEDIUM": 2, "HIGH": 3}


def risk_level(risk: str | None) -> int:
    """0 for unknown, then 1 (LOW) to 3 (HIGH)."""
    return _LEVELS.get(str(risk or "UNKNOWN").upper(), 0)


class _Policy(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", use_attribute_docstrings=True)

    def should_confirm(self, risk: str | None = "UNKNOWN") -> bool:  # pragma: no cover
        raise NotImplementedError


class NeverConfirm(_Policy):
    """Never stop for confirmation."""

    kind: Literal["NeverConfirm"] = "NeverConfirm"
    """Policy class name."""

    def should_confirm(self, risk: str | None = "UNKNOWN") -> bool:
        return False


class AlwaysConfirm(_Policy):
    """Stop before every action."""

    kind: Literal["AlwaysConfirm"] = "AlwaysConfirm"
    """Policy class name."""

    def should_confirm(self, risk: str | None = "UNKNOWN") -> bool:
        return True


class ConfirmRisky(_Policy):
    """Stop before actions at or above a risk threshold."""

    threshold: SecurityRisk = SecurityRisk.HIGH
    """Lowest risk that needs confirmation (LOW, MEDIUM or HIGH)."""
    confirm_unknown: bool = True
    """Whether an action of unknown risk needs confirmation."""
    kind: Literal["ConfirmRisky"] = "ConfirmRisky"
    """Policy class name."""

    @field_validator("threshold")
    @classmethod
    def _known_threshold(cls, value: SecurityRisk) -> SecurityRisk:
        if value == "UNKNOWN":
            raise ValueError("threshold cannot be UNKNOWN")
        return value

    def should_confirm(self, risk: str | None = "UNKNOWN") -> bool:
        level = risk_level(risk)
        if level == 0:
            return self.confirm_unknown
        return level >= risk_level(self.threshold)


ConfirmationPolicy = Annotated[
    NeverConfirm | AlwaysConfirm | ConfirmRisky, Field(discriminator="kind")
]
_POLICY: TypeAdapter[NeverConfirm | AlwaysConfirm | ConfirmRisky] = TypeAdapter(ConfirmationPolicy)


def parse_confirmation_policy(
    data: NeverConfirm | AlwaysConfirm | ConfirmRisky | Mapping[str, Any] | str | None,
) -> NeverConfirm | AlwaysConfirm | ConfirmRisky:
    """A policy from a model, its JSON object, or its kind name; None means NeverConfirm."""
    if data is None:
        return NeverConfirm()
    if isinstance(data, _Policy):
        return data
    if isinstance(data, str):
        data = {"kind": data}
    return _POLICY.validate_python(dict(data))
