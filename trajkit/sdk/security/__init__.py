"""Confirmation policies (`confirmation_policy`) and the LLM security analyzer (`llm_analyzer`),
at the SDK's ``security`` paths.
"""

from trajkit.sdk.security.confirmation_policy import (
    AlwaysConfirm,
    ConfirmationPolicy,
    ConfirmRisky,
    NeverConfirm,
    SecurityRisk,
    parse_confirmation_policy,
    risk_level,
)
from trajkit.sdk.security.llm_analyzer import LLMSecurityAnalyzer, parse_security_analyzer

__all__ = [
    "AlwaysConfirm",
    "ConfirmRisky",
    "ConfirmationPolicy",
    "LLMSecurityAnalyzer",
    "NeverConfirm",
    "SecurityRisk",
    "parse_confirmation_policy",
    "parse_security_analyzer",
    "risk_level",
]
