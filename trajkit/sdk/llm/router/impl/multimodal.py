"""`MultimodalRouter`: images go to the ``primary`` LLM, text to the ``secondary`` one (unless
the request is longer than the secondary's context window).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import model_validator

from trajkit.events import ImageContent, Message
from trajkit.sdk.llm.router.base import RouterLLM

__all__ = ["MultimodalRouter"]


class MultimodalRouter(RouterLLM):
    """Routes a request with an image, or too long for ``secondary``, to ``primary``."""

    router_name: str = "multimodal_router"
    PRIMARY_MODEL_KEY: ClassVar[str] = "primary"
    SECONDARY_MODEL_KEY: ClassVar[str] = "secondary"

    @model_validator(mode="after")
    def _both_keys(self) -> MultimodalRouter:
        for key in (self.PRIMARY_MODEL_KEY, self.SECONDARY_MODEL_KEY):
            if key not in self.llms_for_routing:
                raise ValueError(f"llms_for_routing needs a {key!r} LLM")
        return self

    def select_llm(self, messages: Sequence[Message]) -> str:
        if any(isinstance(c, ImageContent) for m in messages for c in m.content):
            return self.PRIMARY_MODEL_KEY
        secondary = self.llms_for_routing[self.SECONDARY_MODEL_KEY]
        limit = secondary.effective_max_input_tokens
        if limit and secondary.get_token_count(list(messages)) > limit:
            return self.PRIMARY_MODEL_KEY
        return self.SECONDARY_MODEL_KEY
