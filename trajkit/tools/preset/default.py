"""The default agent: terminal, file editor and task tracker (``get_default_agent``).

As openhands-tools' ``preset.default``: the tools ``terminal``, ``file_editor``, ``task_tracker``
(``finish`` and ``think`` come from ``include_default_tools``), ``system_prompt_kwargs`` with
``cli_mode``, and the summarising condenser on a copy of the LLM with ``usage_id="condenser"``
(80 events, keeping the first 4); outside CLI mode the browser tools too
(`trajkit.tools.browser_use`, which need a system Chromium to do anything).
"""

from __future__ import annotations

from typing import Any

from trajkit.sdk.agent import Agent
from trajkit.sdk.llm import LLM
from trajkit.sdk.subagent import (
    AgentDefinition,
    agent_definition_to_factory,
    register_agent_if_absent,
)
from trajkit.sdk.tool import Tool

__all__ = [
    "BUILTIN_AGENTS",
    "get_default_agent",
    "get_default_condenser",
    "get_default_tools",
    "register_builtins_agents",
]


def get_default_tools(enable_browser: bool = True) -> list[Tool]:
    """Specs of the default tools, in the SDK's order (the browser tools last)."""
    tools = [Tool(name="terminal"), Tool(name="file_editor"), Tool(name="task_tracker")]
    return [*tools, Tool(name="browser_tool_set")] if enable_browser else tools


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


BUILTIN_AGENTS = [
    AgentDefinition(
        name="general-purpose",
        description=(
            "Does any self-contained piece of work: reads and edits files, runs commands and "
            "keeps a task list. Use it when no more specific type fits."
        ),
        tools=["terminal", "file_editor", "task_tracker"],
    ),
    AgentDefinition(
        name="code-explorer",
        description=(
            "Finds out how code works without changing it, and reports the files, line "
            "numbers and snippets that answer the question."
        ),
        tools=["terminal"],
        system_prompt=(
            "You investigate a codebase and change nothing. Search with grep, find and git; "
            "read files with cat, sed -n or head. Answer the question you were given with "
            "file paths, line numbers and the short snippets that prove it."
        ),
    ),
    AgentDefinition(
        name="bash-runner",
        description=(
            "Runs shell commands (tests, builds, linters, git) and reports what matters in "
            "their output: counts, failures and their causes."
        ),
        tools=["terminal"],
        system_prompt=(
            "You run the commands you are asked to run and report their outcome briefly: "
            "whether they succeeded, the numbers that matter, and for each failure its name "
            "and cause. Leave out progress output and full stack traces."
        ),
    ),
]
"""The sub-agent types openhands-tools ships (its web researcher needs a browser tool)."""


def register_builtins_agents(enable_browser: bool = True) -> list[str]:
    """Register `BUILTIN_AGENTS` where their names are free; the names registered."""
    del enable_browser  # the browser-based type is not among them
    return [
        d.name
        for d in BUILTIN_AGENTS
        if register_agent_if_absent(d.name, agent_definition_to_factory(d), d)
    ]
