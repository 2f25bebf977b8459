"""`RouterLLM`: an LLM that hands each call to one of several LLMs, chosen per request.

The router is what the agent holds (``Agent(llm=router)``); `select_llm` picks a key of
``llms_for_routing`` from the request's messages and the call goes to that LLM, whose metrics
count the usage. Anything else asked of the router (a capability, the token count) is answered
by the LLM chosen last, else the first one.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator, model_validator

from trajkit.sdk.llm.llm import LLM, LLMResponse

if TYPE_CHECKING:
    from trajkit.events import Message
    from trajkit.sdk.tool import RuntimeTool

__all__ = ["RouterLLM"]


class RouterLLM(LLM):
    """Several LLMs behind one; subclasses say which answers each request."""

    router_name: str = "base_router"
    llms_for_routing: dict[str, LLM] = Field(default_factory=dict)
    """The LLMs to route to, by key."""
    active_llm: LLM | None = None
    """The LLM the last request went to."""

    @field_validator("llms_for_routing")
    @classmethod
    def _not_empty(cls, v: dict[str, LLM]) -> dict[str, LLM]:
        if not v:
            raise ValueError("llms_for_routing needs at least one LLM")
        return v

    @model_validator(mode="before")
    @classmethod
    def _model_name(cls, data: Any) -> Any:
        # a router has no model of its own; it is named after the router
        if isinstance(data, dict) and not data.get("model"):
            data = {
                **data,
                "model": data.get("router_name") or cls.model_fields["router_name"].default,
            }
        return data

    @abstractmethod
    def select_llm(self, messages: Sequence[Message]) -> str:
        """The key of ``llms_for_routing`` that answers ``messages``."""

    def _route(self, messages: Sequence[Message]) -> LLM:
        chosen = self.llms_for_routing[self.select_llm(messages)]
        self.active_llm = chosen
        return chosen

    def call(self, messages: Sequence[Message], tools: Sequence[RuntimeTool] = ()) -> LLMResponse:
        return self._route(messages).call(messages, tools)

    def completion(
        self, messages: Sequence[Message], tools: Sequence[RuntimeTool] = ()
    ) -> LLMResponse:
        return self._route(messages).completion(messages, tools)

    def responses(
        self, messages: Sequence[Message], tools: Sequence[RuntimeTool] = ()
    ) -> LLMResponse:
        return self._route(messages).responses(messages, tools)

    def uses_responses_api(self) -> bool:
        return self._current().uses_responses_api()

    def get_token_count(
        self, messages: Sequence[Message], tools: Sequence[Any] | None = None
    ) -> int:
        return self._current().get_token_count(messages, tools)

    @property
    def effective_max_input_tokens(self) -> int | None:
        return self._current().effective_max_input_tokens

    def _current(self) -> LLM:
        return self.active_llm or next(iter(self.llms_for_routing.values()))

    def __str__(self) -> str:
        return f"{type(self).__name__}(llms={list(self.llms_for_routing)})"
