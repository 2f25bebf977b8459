"""The SDK's ``context.condenser`` path."""

from trajkit.sdk.condenser import (
    LLMSummarizingCondenser,
    NoCondensationAvailable,
    NoCondensationAvailableException,
    NoOpCondenser,
    PipelineCondenser,
)

__all__ = [
    "LLMSummarizingCondenser",
    "NoCondensationAvailable",
    "NoCondensationAvailableException",
    "NoOpCondenser",
    "PipelineCondenser",
]
