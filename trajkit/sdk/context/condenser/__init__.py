"""The SDK's ``context.condenser`` path."""

from trajkit.sdk.condenser import LLMSummarizingCondenser, NoCondensationAvailable

__all__ = ["LLMSummarizingCondenser", "NoCondensationAvailable"]
