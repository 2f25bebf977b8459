"""The default agent: terminal, file editor and task tracker (``get_default_agent``).

As openhands-tools' ``preset.default``: the tools ``terminal``, ``file_editor``, ``task_tracker``
(``finish`` and ``think`` come from ``include_default_tools``), ``system_prompt_kwargs`` with
``cli_mode``, and the summarising condenser on a copy of the LLM with ``usage_id="condenser"``
(80 events, keeping the first 4). The SDK adds browser tools outside CLI mode; trajkit has no
browser tool, so ``enable_browser`` is accepted and has no effect.
"""

from __future__ import annotations

from typing import Any

from trajkit.sdk.agent import Agent
from trajkit.sdk.llm import LLM
from trajkit.sdk.tool import Tool

__all__ = ["get_default_agent", "get_default_condenser", "get_default_tools"]


def get_default_tools(enable_browser: bool = True) -> list[Tool]:
    """Specs of the default tools, in the SDK's order."""
    del enable_browser  # no browser tool in trajkit
    return [Tool(name="terminal"), Tool(name="file_editor"), Tool(name="task_tracker")]


def get_default_condenser(llm: LLM) -> dict[str, Any]:
    """The SDK's default condenser configuration for ``llm``."""
    return {"kind": "LLMSummarizingCondenser", "llm": llm, "max_size": 80, "keep_first": 4}


def get_default_agent(llm: LLM, cli_mode: bool = False) -> Agent:
    """The default coding agent; ``cli_mode`` for running on the user's machine."""
    return Agent(
        llm=llm,
        tools=get_default_tools(enable_browser=not cli_mode),
        system_prompt_kwargs={"cli_mode": cli_mode},
        condenser=get_default_condenser(llm.model_copy(update={"usage_id": "condenser"})),
    )
