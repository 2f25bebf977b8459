"""The SDK's ``security`` path: confirmation policies and the LLM security analyzer."""

from trajkit.sdk.confirmation import AlwaysConfirm, ConfirmRisky, LLMSecurityAnalyzer, NeverConfirm

__all__ = ["AlwaysConfirm", "ConfirmRisky", "LLMSecurityAnalyzer", "NeverConfirm"]
