"""The SDK's ``security.llm_analyzer`` path."""

from trajkit.sdk.confirmation import LLMSecurityAnalyzer

__all__ = ["LLMSecurityAnalyzer"]
