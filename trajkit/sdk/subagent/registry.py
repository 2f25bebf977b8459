"""The process-wide registry of sub-agent types the task tool can start.

``register_agent(name, factory_func, description)`` adds a type: the factory takes the
delegating agent's LLM (a copy with its own metrics) and returns the `Agent`; the description
(or a full `AgentDefinition`) is what the delegating model reads about it. A registered name
is never replaced (``register_agent`` raises, ``register_agent_if_absent`` skips), so agents
registered by code win over files and built-ins registered later.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from trajkit.sdk.subagent.schema import AgentDefinition

if TYPE_CHECKING:
    from trajkit.sdk.agent import Agent
    from trajkit.sdk.llm import LLM

__all__ = [
    "AgentFactory",
    "agent_definition_to_factory",
    "get_agent_factory",
    "get_factory_info",
    "get_registered_agent_definitions",
    "register_agent",
    "register_agent_if_absent",
    "register_file_agents",
]

AgentFactoryFunc = Callable[["LLM"], "Agent"]
_OLD_NAMES = {"default": "general-purpose", "default cli mode": "general-purpose",
              "explore": "code-explorer", "bash": "bash-runner"}  # fmt: skip


class AgentFactory(NamedTuple):
    """A registered sub-agent type."""

    factory_func: AgentFactoryFunc
    definition: AgentDefinition


_factories: dict[str, AgentFactory] = {}
_lock = threading.RLock()


def _definition(name: str, description: str | AgentDefinition) -> AgentDefinition:
    return (
        description
        if isinstance(description, AgentDefinition)
        else AgentDefinition(name=name, description=description)
    )


def register_agent(
    name: str, factory_func: AgentFactoryFunc, description: str | AgentDefinition
) -> None:
    """Add a sub-agent type.

    Raises:
        ValueError: ``name`` is already registered.
    """
    if not register_agent_if_absent(name, factory_func, description):
        raise ValueError(f"Agent '{name}' already registered")


def register_agent_if_absent(
    name: str, factory_func: AgentFactoryFunc, description: str | AgentDefinition
) -> bool:
    """Add a sub-agent type unless ``name`` is taken; whether it was added."""
    with _lock:
        if name in _factories:
            return False
        _factories[name] = AgentFactory(factory_func, _definition(name, description))
        return True


def get_agent_factory(name: str | None) -> AgentFactory:
    """The type registered as ``name`` (empty: ``general-purpose``; the SDK's old names map to
    their new ones).

    Raises:
        ValueError: no such type (the message lists the registered ones).
    """
    key = _OLD_NAMES.get(name or "", name or "general-purpose")
    with _lock:
        factory = _factories.get(key)
        known = ", ".join(sorted(_factories)) or "none registered"
    if factory is None:
        raise ValueError(
            f"Unknown agent '{name}'. Available types: {known}. Use register_agent() to add custom agent types."
        )
    return factory


def get_registered_agent_definitions() -> list[AgentDefinition]:
    with _lock:
        return [f.definition for f in _factories.values()]


def get_factory_info(include: Callable[[AgentDefinition], bool] | None = None) -> str:
    """One Markdown line per registered type: name, description and tools."""
    with _lock:
        chosen = sorted(
            (n, f.definition)
            for n, f in _factories.items()
            if include is None or include(f.definition)
        )
    if not chosen:
        return "- No agent types are registered (register_agent adds one)."
    return "\n".join(
        f"- **{name}**: {d.description}" + (f" (tools: {', '.join(d.tools)})" if d.tools else "")
        for name, d in chosen
    )


def agent_definition_to_factory(
    agent_def: AgentDefinition, work_dir: str | Path | None = None
) -> AgentFactoryFunc:
    """A factory building the `Agent` ``agent_def`` describes: its tools, its skills (found in
    the project's and the user's skill folders), its prompt as the system-message suffix, the
    parent's LLM (or the saved profile ``model`` names), and the default summarising condenser.

    Raises:
        ValueError: a skill it names does not exist.
    """
    skills = _find_skills(agent_def, work_dir)

    def factory(llm: LLM) -> Agent:
        from trajkit.sdk.agent import Agent
        from trajkit.sdk.context.condenser import LLMSummarizingCondenser
        from trajkit.sdk.context.skills import AgentContext
        from trajkit.sdk.tool import Tool

        if agent_def.model != "inherit":
            from trajkit.sdk.llm import LLMProfileStore

            llm = LLMProfileStore(agent_def.profile_store_dir).load(
                agent_def.model.removesuffix(".json")
            )
        context = (
            AgentContext(system_message_suffix=agent_def.system_prompt or None, skills=skills)
            if agent_def.system_prompt or skills
            else None
        )
        return Agent(
            llm=llm,
            tools=[Tool(name=t) for t in agent_def.tools],
            agent_context=context,
            mcp_config=agent_def.mcp_config or {},
            condenser=LLMSummarizingCondenser(
                llm=llm.model_copy(update={"usage_id": "condenser"}), max_size=80, keep_first=4
            ),
        )

    return factory


def _find_skills(agent_def: AgentDefinition, work_dir: str | Path | None) -> list[object]:
    if not agent_def.skills:
        return []
    from trajkit.sdk.context.skills import load_skills_from_dir

    found: dict[str, object] = {}
    roots = [Path.home() / ".openhands" / "skills", Path.home() / ".agents" / "skills"]
    if work_dir is not None:
        roots += [Path(work_dir) / ".openhands" / "skills", Path(work_dir) / ".agents" / "skills"]
    for root in roots:  # later roots (the project's) win
        if root.is_dir():
            for group in load_skills_from_dir(root):
                found.update(group)
    missing = [s for s in agent_def.skills if s not in found]
    if missing:
        raise ValueError(
            f"Skill '{missing[0]}' not found but was given to agent '{agent_def.name}'."
        )
    return [found[s] for s in agent_def.skills]


def register_file_agents(work_dir: str | Path) -> list[str]:
    """Register the agents of ``.agents/agents`` and ``.openhands/agents`` in ``work_dir``, then
    in the user's home (the first definition of a name wins); the names registered.
    """
    from trajkit.sdk.subagent.load import load_project_agents, load_user_agents

    registered, seen = [], set()
    for agent_def in [*load_project_agents(work_dir), *load_user_agents()]:
        if agent_def.name in seen:
            continue
        seen.add(agent_def.name)
        try:
            factory = agent_definition_to_factory(agent_def, work_dir=work_dir)
        except ValueError:
            continue
        if register_agent_if_absent(agent_def.name, factory, agent_def):
            registered.append(agent_def.name)
    return registered


def _reset_registry_for_tests() -> None:
    with _lock:
        _factories.clear()
