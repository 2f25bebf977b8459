"""The LLM: configuration, calls through litellm, errors by cause, and the registry.

Paths as in the SDK: ``trajkit.sdk.llm`` (`LLM`, `LLMRegistry`, the message types) and
``trajkit.sdk.llm.exceptions`` (the error classes).
"""

from trajkit.sdk.llm.exceptions import (
    LLMAuthenticationError,
    LLMBadRequestError,
    LLMContentPolicyViolationError,
    LLMContextWindowExceedError,
    LLMError,
    LLMMalformedConversationHistoryError,
    LLMNoResponseError,
    LLMRateLimitError,
    LLMServiceUnavailableError,
    LLMTimeoutError,
)
from trajkit.sdk.llm.fallback_strategy import FallbackStrategy
from trajkit.sdk.llm.llm import LLM, LLMResponse, llm_secret_values
from trajkit.sdk.llm.llm_profile_store import LLMProfileStore
from trajkit.sdk.llm.llm_registry import LLMRegistry, RegistryEvent
from trajkit.sdk.llm.message import (
    ImageContent,
    Message,
    MessageToolCall,
    TextContent,
    content_to_str,
)
from trajkit.sdk.metrics import Metrics, TokenUsage

__all__ = [
    "LLM",
    "FallbackStrategy",
    "LLMProfileStore",
    "ImageContent",
    "LLMAuthenticationError",
    "LLMBadRequestError",
    "LLMContentPolicyViolationError",
    "LLMContextWindowExceedError",
    "LLMError",
    "LLMMalformedConversationHistoryError",
    "LLMNoResponseError",
    "LLMRateLimitError",
    "LLMRegistry",
    "LLMResponse",
    "LLMServiceUnavailableError",
    "LLMTimeoutError",
    "Message",
    "MessageToolCall",
    "Metrics",
    "RegistryEvent",
    "TextContent",
    "TokenUsage",
    "content_to_str",
    "llm_secret_values",
]
