"""LLM errors by cause, with the SDK's class names (``LLMBadRequestError``, ...).

`LLM` raises one of these after its retries; `Conversation.run` records the class name as
the ``ConversationErrorEvent`` code and chains the error into ``ConversationRunError``.
``kind`` keeps the provider library's (litellm's) class name for logs.

How a litellm error maps (first match): a context-window overflow, a history the provider
calls malformed (a tool call and its result do not pair up), an authentication
failure (401/403 or an invalid-key message), a rate limit, a timeout, a connection or
5xx/service failure, a content-policy refusal, any other 4xx; anything else stays `LLMError`.
"""

from __future__ import annotations

from trajkit.errors import TrajkitError

__all__ = [
    "LLMAuthenticationError",
    "LLMBadRequestError",
    "LLMContentPolicyViolationError",
    "LLMContextWindowExceedError",
    "LLMError",
    "LLMMalformedConversationHistoryError",
    "LLMNoResponseError",
    "LLMRateLimitError",
    "LLMServiceUnavailableError",
    "LLMTimeoutError",
    "llm_error_class",
]


class LLMError(TrajkitError):
    """An LLM call failed for good (after retries, or at once for non-retryable errors)."""

    def __init__(self, message: str, *, kind: str = "", status_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind or type(self).__name__
        """The provider library's exception class name, e.g. ``AuthenticationError``."""
        self.status_code = status_code


class LLMAuthenticationError(LLMError):
    """The provider refused the credentials."""


class LLMRateLimitError(LLMError):
    """Too many requests (after the retries)."""


class LLMTimeoutError(LLMError):
    """The request timed out (after the retries)."""


class LLMServiceUnavailableError(LLMError):
    """The provider could not be reached or failed on its side (after the retries)."""


class LLMBadRequestError(LLMError):
    """The provider rejected the request (a 4xx other than the ones above)."""


class LLMContentPolicyViolationError(LLMBadRequestError):
    """The provider refused the content."""


class LLMContextWindowExceedError(LLMError):
    """The request is longer than the model's context window."""


class LLMMalformedConversationHistoryError(LLMBadRequestError):
    """The provider rejected the history's shape (a tool call without its result, a result
    twice or without its call); `Agent.step` recovers by condensing a rebuilt view.
    """


class LLMNoResponseError(LLMError):
    """The provider answered without a usable message."""


_CONTEXT = ("context length", "context window", "maximum context", "too many tokens")
_MALFORMED = (
    # provider messages for a broken tool call/result pairing, lowercased
    "ids were found without `tool_result` blocks",
    "ids were found without tool_result blocks",
    "must have a corresponding `tool_result` block",
    "must have a corresponding `tool_use` block",
    "each tool_use must have a single result",
    "found multiple `tool_result` blocks",
    "unexpected `tool_use_id` found",
    "must be followed by tool messages responding to each 'tool_call_id'",
    "failed to parse tool call arguments as json",
)
_CONTENT_POLICY = ("content_policy", "content filtering policy", "blocked by content filtering")
_AUTH = ("invalid api key", "incorrect api key", "invalid_api_key", "unauthorized")


def llm_error_class(kind: str, status_code: int | None, text: str) -> type[LLMError]:
    """The class for a provider error of class name ``kind`` (see the module docstring)."""
    lowered = text.lower()
    if kind == "ContextWindowExceededError" or any(s in lowered for s in _CONTEXT):
        return LLMContextWindowExceedError
    if status_code in (None, 400, 422, 500) and any(s in lowered for s in _MALFORMED):
        return LLMMalformedConversationHistoryError
    if kind in ("AuthenticationError", "PermissionDeniedError") or status_code in (401, 403):
        return LLMAuthenticationError
    if any(s in lowered for s in _AUTH):
        return LLMAuthenticationError
    if kind == "RateLimitError" or status_code == 429:
        return LLMRateLimitError
    if kind in ("Timeout", "APITimeoutError"):
        return LLMTimeoutError
    if kind in (
        "APIConnectionError",
        "ServiceUnavailableError",
        "InternalServerError",
        "BadGatewayError",
    ) or (status_code is not None and status_code >= 500):
        return LLMServiceUnavailableError
    if kind == "ContentPolicyViolationError" or (
        status_code in (None, 400) and any(s in lowered for s in _CONTENT_POLICY)
    ):
        return LLMContentPolicyViolationError
    if kind in ("BadRequestError", "NotFoundError", "UnprocessableEntityError") or (
        status_code is not None and 400 <= status_code < 500
    ):
        return LLMBadRequestError
    return LLMError
