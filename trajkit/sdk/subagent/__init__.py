"""Sub-agents: types the task tool (`trajkit.tools.task`) starts in conversations of their own.

Register a type with `register_agent` (a factory taking the LLM) or describe it as an
`AgentDefinition` (inline, or a Markdown file under ``.agents/agents/``) and turn it into a
factory with `agent_definition_to_factory`. Module paths are the SDK's (``subagent.schema``,
``subagent.registry``, ``subagent.load``).
"""

from trajkit.sdk.subagent.load import load_agents_from_dir, load_project_agents, load_user_agents
from trajkit.sdk.subagent.registry import (
    AgentFactory,
    agent_definition_to_factory,
    get_agent_factory,
    get_factory_info,
    get_registered_agent_definitions,
    register_agent,
    register_agent_if_absent,
    register_file_agents,
)
from trajkit.sdk.subagent.schema import AgentDefinition, AgentDefinitionLevel

__all__ = [
    "AgentDefinition",
    "AgentDefinitionLevel",
    "AgentFactory",
    "agent_definition_to_factory",
    "get_agent_factory",
    "get_factory_info",
    "get_registered_agent_definitions",
    "load_agents_from_dir",
    "load_project_agents",
    "load_user_agents",
    "register_agent",
    "register_agent_if_absent",
    "register_file_agents",
]
