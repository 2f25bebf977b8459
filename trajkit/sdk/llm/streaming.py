"""Token streaming: ``LLM(stream=True)`` with ``Conversation(token_callbacks=[...])``.

A streaming call asks litellm for the response as a stream, hands each chunk (litellm's
``ModelResponseStream``) to the token callbacks as it arrives, then rebuilds the whole response
from the chunks (``litellm.stream_chunk_builder``), so what is recorded is what a plain call
gives. Without a callback the call is not streamed (as the SDK falls back).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Sequence
from typing import Any

__all__ = ["TokenCallbackType", "current_token_callbacks", "token_callbacks"]

TokenCallbackType = Callable[[Any], None]
"""Called with each chunk (``litellm.types.utils.ModelResponseStream``)."""

_CALLBACKS: contextvars.ContextVar[tuple[TokenCallbackType, ...]] = contextvars.ContextVar(
    "trajkit_token_callbacks", default=()
)


@contextlib.contextmanager
def token_callbacks(callbacks: Sequence[TokenCallbackType]) -> Iterator[None]:
    """Streaming calls made inside this block hand their chunks to ``callbacks``."""
    token = _CALLBACKS.set(tuple(callbacks))
    try:
        yield
    finally:
        _CALLBACKS.reset(token)


def current_token_callbacks() -> tuple[TokenCallbackType, ...]:
    return _CALLBACKS.get()


def __getattr__(name: str) -> Any:
    # litellm is heavy: its chunk type (``ModelResponseStream``, the SDK's ``LLMStreamChunk``)
    # is imported when first asked for
    if name in ("ModelResponseStream", "LLMStreamChunk"):
        from litellm.types.utils import ModelResponseStream

        return ModelResponseStream
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
