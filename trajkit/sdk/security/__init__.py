"""Confirmation policies (`confirmation_policy`), the LLM security analyzer (`llm_analyzer`) and
the local rule-based ones (`analyzers`), at the SDK's ``security`` paths.
"""

from trajkit.sdk.security.analyzers import (
    EnsembleSecurityAnalyzer,
    PatternSecurityAnalyzer,
    PolicyRailSecurityAnalyzer,
    SecurityAnalyzerBase,
)
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
    "EnsembleSecurityAnalyzer",
    "LLMSecurityAnalyzer",
    "NeverConfirm",
    "PatternSecurityAnalyzer",
    "PolicyRailSecurityAnalyzer",
    "SecurityAnalyzerBase",
    "SecurityRisk",
    "parse_confirmation_policy",
    "parse_security_analyzer",
    "risk_level",
]
