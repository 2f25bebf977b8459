"""Local security analyzers: rules that rate an action's risk without asking a model.

- `PatternSecurityAnalyzer`: regular expressions over the call's arguments, in two tiers
  (``HIGH``, ``MEDIUM``) for commands and for prompt-injection phrases; no match is ``LOW``.
- `PolicyRailSecurityAnalyzer`: a few rails that are ``HIGH`` whatever else is said (fetched
  code run by a shell, credential files read, system folders written); otherwise ``UNKNOWN``
  (it has no opinion).
- `EnsembleSecurityAnalyzer`: the highest risk its analyzers give; ``UNKNOWN`` ones are
  ignored unless ``propagate_unknown``.

Each rates an action from its arguments (``security_risk(arguments, read_only=...)``), as
`LLMSecurityAnalyzer` does; `ConfirmRisky` then decides whether the action waits.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, field_validator

from trajkit.sdk.security.confirmation_policy import risk_level

__all__ = [
    "EnsembleSecurityAnalyzer",
    "PatternSecurityAnalyzer",
    "PolicyRailSecurityAnalyzer",
    "SecurityAnalyzerBase",
]

Rule = tuple[str, str, str]
"""(regular expression, what it catches, rule id)."""


class SecurityAnalyzerBase(BaseModel):
    """Rates the risk of an action from its call's arguments."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    def security_risk(self, arguments: Mapping[str, Any], *, read_only: bool = False) -> str:
        """``LOW``, ``MEDIUM``, ``HIGH`` or ``UNKNOWN``."""
        raise NotImplementedError


def _text(arguments: Mapping[str, Any]) -> str:
    """The arguments as one text (the model's own ``security_risk``/``summary`` left out)."""
    rest = {k: v for k, v in arguments.items() if k not in ("security_risk", "summary")}
    return json.dumps(rest, ensure_ascii=False).replace("\\n", "\n").replace('\\"', '"')


def _matches(rules: list[Rule], text: str) -> bool:
    return any(re.search(pattern, text, re.IGNORECASE) for pattern, _, _ in rules)


class PatternSecurityAnalyzer(SecurityAnalyzerBase):
    """``HIGH`` or ``MEDIUM`` when a rule of that tier matches the arguments, else ``LOW``."""

    high_patterns: list[Rule] = Field(default_factory=lambda: [
        (r"\brm\s+-\w*r\w*f\w*\s|\brm\s+-\w*f\w*r\w*\s|\brm\s+--recursive\b", "recursive forced removal", "shell.rm_recursive"),
        (r"\bsudo\b", "command run as root", "shell.sudo"),
        (r"\bmkfs\b|\bdd\b[^\n]*\bof=/dev/", "disk overwritten", "shell.disk_write"),
        (r"\b(?:curl|wget)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b", "downloaded script run", "shell.pipe_to_shell"),
        (r"\b(?:eval|exec)\s*\(|\bos\.system\s*\(|\bsubprocess\.\w+\s*\(", "code executed from a string", "code.dynamic_exec"),
        (r"\bchmod\s+-R\s+777\b", "permissions opened to everyone", "shell.chmod_world"),
    ])  # fmt: skip
    medium_patterns: list[Rule] = Field(default_factory=lambda: [
        (r"\b(?:curl|wget)\b[^\n]*https?://", "network download", "shell.download"),
        (r"\bgit\s+push\b", "changes published", "git.push"),
        (r"\bpip\s+install\b|\bnpm\s+install\b|\bapt(?:-get)?\s+install\b", "software installed", "shell.install"),
    ])  # fmt: skip
    injection_high_patterns: list[Rule] = Field(default_factory=lambda: [
        (r"\b(?:ignore|disregard|forget)\b[^\n]{0,30}\b(?:previous|earlier|above|all)\b[^\n]{0,20}\b(?:instructions|rules)\b", "attempt to cancel the instructions", "injection.cancel"),
    ])  # fmt: skip
    injection_medium_patterns: list[Rule] = Field(default_factory=lambda: [
        (r"\byou\s+are\s+now\b|\bact\s+as\s+(?:an?\s+)?unrestricted\b", "attempt to change the agent's role", "injection.role"),
    ])  # fmt: skip
    kind: Literal["PatternSecurityAnalyzer"] = "PatternSecurityAnalyzer"

    def security_risk(self, arguments: Mapping[str, Any], *, read_only: bool = False) -> str:
        text = _text(arguments)
        if _matches(self.high_patterns + self.injection_high_patterns, text):
            return "HIGH"
        if _matches(self.medium_patterns + self.injection_medium_patterns, text):
            return "MEDIUM"
        return "LOW"


_RAILS: list[Rule] = [
    (r"\b(?:curl|wget|fetch)\b[^\n]*\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|\b(?:ba)?sh\s+<\(\s*(?:curl|wget)", "fetched code run by a shell", "rail.fetch_exec"),
    (r"(?:~|\$HOME|/root|/home/\w+)/\.(?:ssh|aws|gnupg)/|/etc/shadow\b|\.netrc\b", "credential files read", "rail.credentials"),
    (r"(?:>|\btee\b|\bcp\b|\bmv\b|\bsed\s+-i\b)[^\n]*\s/(?:etc|boot|usr|bin|sbin|lib)/", "system folders written", "rail.system_write"),
]  # fmt: skip


class PolicyRailSecurityAnalyzer(SecurityAnalyzerBase):
    """``HIGH`` when a rail is crossed, else ``UNKNOWN`` (no opinion)."""

    kind: Literal["PolicyRailSecurityAnalyzer"] = "PolicyRailSecurityAnalyzer"

    def security_risk(self, arguments: Mapping[str, Any], *, read_only: bool = False) -> str:
        return "HIGH" if _matches(_RAILS, _text(arguments)) else "UNKNOWN"


class EnsembleSecurityAnalyzer(SecurityAnalyzerBase):
    """The highest risk ``analyzers`` give (``UNKNOWN`` ones ignored unless ``propagate_unknown``)."""

    analyzers: list[SerializeAsAny[SecurityAnalyzerBase]]
    propagate_unknown: bool = False
    """An ``UNKNOWN`` from any analyzer makes the result ``UNKNOWN``."""
    kind: Literal["EnsembleSecurityAnalyzer"] = "EnsembleSecurityAnalyzer"

    @field_validator("analyzers", mode="before")
    @classmethod
    def _parsed(cls, v: Any) -> Any:
        from trajkit.sdk.security.llm_analyzer import parse_security_analyzer

        return [parse_security_analyzer(a) for a in v] if isinstance(v, list) else v

    def security_risk(self, arguments: Mapping[str, Any], *, read_only: bool = False) -> str:
        risks = [a.security_risk(arguments, read_only=read_only) for a in self.analyzers]
        known = [r for r in risks if risk_level(r) > 0]
        if not known or (self.propagate_unknown and len(known) < len(risks)):
            return "UNKNOWN"
        return max(known, key=risk_level)
