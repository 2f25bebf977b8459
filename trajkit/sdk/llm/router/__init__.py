"""LLM routers: one LLM to the agent, several behind it (the SDK's ``llm.router``)."""

from trajkit.sdk.llm.router.base import RouterLLM
from trajkit.sdk.llm.router.impl.multimodal import MultimodalRouter

__all__ = ["MultimodalRouter", "RouterLLM"]
