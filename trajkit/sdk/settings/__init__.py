"""Agent settings: an agent described as data (`OpenHandsAgentSettings`), serialisable to JSON
and back, and turned into an `Agent` by ``create_agent()`` (the SDK's ``settings`` path).

The settings hold the LLM, the tool specs, MCP servers, the agent context and the condenser's
settings (`LLMSummarizingCondenserSettings`: on by default, 240 events, the first 2 kept; when
no token limit is set the condenser gets the LLM's context window).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from trajkit.sdk.agent import Agent
from trajkit.sdk.context.condenser import LLMSummarizingCondenser
from trajkit.sdk.context.skills import AgentContext
from trajkit.sdk.llm import LLM
from trajkit.sdk.tool import Tool
from trajkit.sdk.tool.builtins import BUILT_IN_TOOLS, BUILTIN_TOOL_NAMES

__all__ = [
    "AGENT_SETTINGS_SCHEMA_VERSION",
    "LLMSummarizingCondenserSettings",
    "OpenHandsAgentSettings",
]

AGENT_SETTINGS_SCHEMA_VERSION = 9
"""The settings format the SDK 1.58.2 writes."""


class LLMSummarizingCondenserSettings(BaseModel):
    """Whether and how the history is summarised when it grows."""

    condenser_kind: Literal["llm_summarizing"] = "llm_summarizing"
    enabled: bool = True
    max_size: int = Field(default=240, ge=20)
    max_tokens: int | None = Field(default=None, gt=0)
    keep_first: int = Field(default=2, ge=0)

    def build_condenser(self, llm: LLM) -> LLMSummarizingCondenser | None:
        """The condenser these settings describe (on a copy of ``llm``), None when off."""
        if not self.enabled:
            return None
        tokens = (
            self.max_tokens
            if "max_tokens" in self.model_fields_set
            else llm.effective_max_input_tokens
        )
        return LLMSummarizingCondenser(
            llm=llm.copy_for("condenser"),
            max_size=self.max_size,
            max_tokens=tokens,
            keep_first=self.keep_first,
        )


class OpenHandsAgentSettings(BaseModel):
    """An OpenHands agent as data."""

    schema_version: int = Field(default=AGENT_SETTINGS_SCHEMA_VERSION, ge=1)
    agent_kind: Literal["openhands"] = "openhands"
    agent: str = "CodeActAgent"
    llm: LLM = Field(default_factory=LLM)
    tools: list[Tool] | None = None
    """Tool specs; None gives none but the built-ins."""
    mcp_config: dict[str, Any] = Field(default_factory=dict)
    agent_context: AgentContext | None = None
    condenser: LLMSummarizingCondenserSettings = Field(
        default_factory=LLMSummarizingCondenserSettings
    )
    tool_concurrency_limit: int = Field(default=1, ge=1)

    def build_condenser(self, llm: LLM) -> LLMSummarizingCondenser | None:
        return self.condenser.build_condenser(llm)

    def create_agent(self) -> Agent:
        """The `Agent` these settings describe (built-in tools named in ``tools`` are kept as
        built-ins).
        """
        defaults = [t.__name__ for t in BUILT_IN_TOOLS]
        builtin_of = {name: cls for cls, name in BUILTIN_TOOL_NAMES.items()} | {
            c: c for c in BUILTIN_TOOL_NAMES
        }
        tools = []
        for spec in self.tools or []:
            builtin = builtin_of.get(spec.name)
            if builtin is None:
                tools.append(spec)
            elif builtin not in defaults:
                defaults.append(builtin)
        return Agent(
            llm=self.llm,
            tools=tools,
            mcp_config=self.mcp_config,
            include_default_tools=defaults,
            agent_context=self.agent_context,
            condenser=self.build_condenser(self.llm),
            tool_concurrency_limit=self.tool_concurrency_limit,
        )
