"""Shared builders for runtime tests: an LLM aimed at the scripted server, fast retries."""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr

from tests.support.llm_server import ScriptedLLMServer
from trajkit.sdk import LLM, Agent, Tool


def make_llm(server: ScriptedLLMServer, **kw: Any) -> LLM:
    opts: dict[str, Any] = {
        "model": "openai/gpt-4o",
        "api_key": SecretStr("sk-test-secret-value"),
        "base_url": server.base_url,
        "usage_id": "agent",
        "num_retries": 3,
        "retry_multiplier": 0.01,
        "retry_min_wait": 0,
        "retry_max_wait": 0,
        "timeout": 30,
    }
    opts.update(kw)
    return LLM(**opts)


def make_agent(
    server: ScriptedLLMServer, tools: tuple[str, ...] = ("terminal", "file_editor"), **llm_kw: Any
) -> Agent:
    return Agent(llm=make_llm(server, **llm_kw), tools=[Tool(name=n) for n in tools])
