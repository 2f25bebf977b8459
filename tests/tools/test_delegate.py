"""The ``delegate`` tool (issue 27): named sub-agents spawned, then given tasks in parallel,
persisted under the parent's ``subagents/``, remembering earlier tasks; against the loopback
LLM server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.sdk.helpers import make_llm
from trajkit.sdk import Agent, AgentContext, Conversation, Skill, Tool
from trajkit.sdk.subagent import register_agent
from trajkit.sdk.subagent.registry import _reset_registry_for_tests
from trajkit.tools.delegate import DelegateTool, DelegationVisualizer


@pytest.fixture(autouse=True)
def _registry():
    _reset_registry_for_tests()

    def planner(llm):
        skill = Skill(name="plans", content="You plan trips.", trigger=None)
        return Agent(llm=llm, tools=[], agent_context=AgentContext(skills=[skill]))

    register_agent("planner", planner, "Plans trips.")
    register_agent("general-purpose", lambda llm: Agent(llm=llm, tools=[]), "Anything.")
    yield
    _reset_registry_for_tests()


def _observations(conv):
    return [e.observation for e in conv.state.events if e.kind == "ObservationEvent"]


def test_spawn_then_delegate_in_parallel_and_again(llm_server, tmp_path):
    spawn = {"command": "spawn", "ids": ["hotels", "sights"], "agent_types": ["planner"]}
    tasks = {"hotels": "Find a hotel.", "sights": "List three sights."}
    llm_server.enqueue_tool_call("delegate", spawn)
    llm_server.enqueue_tool_call("delegate", {"command": "delegate", "tasks": tasks})
    llm_server.enqueue_text("noted")  # both sub-agents, in either order
    llm_server.enqueue_text("noted")
    llm_server.enqueue_tool_call("delegate", {"command": "delegate", "tasks": {"hotels": "Why?"}})
    llm_server.enqueue_text("Because it is central.")
    llm_server.enqueue_text("All planned.")
    agent = Agent(llm=make_llm(llm_server), tools=[Tool(name=DelegateTool.name)])
    conv = Conversation(agent=agent, workspace=tmp_path, persistence_dir=tmp_path / "c",
                        visualizer=DelegationVisualizer(name="Travel"))  # fmt: skip
    conv.send_message("plan a trip")
    conv.run()
    offered = llm_server.bodies("chat")[0]["tools"][0]["function"]
    assert offered["name"] == "delegate" and "**planner**: Plans trips." in offered["description"]
    spawned, delegated, again = _observations(conv)
    assert spawned.content[0].text == "Spawned 2 sub-agents: hotels (planner), sights (default)"
    assert delegated.content[0].text == (
        "Delegated 2 tasks.\n\nResults:\n1. hotels: noted\n2. sights: noted"
    )
    assert again.content[0].text.endswith("1. hotels: Because it is central.")
    bodies = llm_server.bodies("chat")
    subs_asked = [b for b in bodies if "delegate" not in json.dumps(b.get("tools"))]
    last_hotels = next(b for b in reversed(subs_asked) if "Why?" in json.dumps(b["messages"]))
    assert "Find a hotel." in json.dumps(last_hotels["messages"])  # it remembers its first task
    assert "You plan trips." in json.dumps(last_hotels["messages"][0])
    subs = list((Path(conv.state.persistence_dir) / "subagents").iterdir())
    assert len(subs) == 2
    stats = conv.conversation_stats.usage_to_metrics
    assert stats["delegate:hotels"].accumulated_token_usage.prompt_tokens == 200
    conv.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"command": "delegate", "tasks": {"x": "go"}}, "No sub-agent named x; known: none"),
        ({"command": "spawn", "ids": ["a"], "agent_types": ["nobody"]}, "Unknown agent 'nobody'"),
        ({"command": "spawn", "ids": [str(i) for i in range(6)]}, "at most 5 may"),
        ({"command": "spawn"}, "`spawn` needs at least one name"),
    ],
)
def test_bad_commands_are_error_observations(llm_server, tmp_path, args, message):
    llm_server.enqueue_tool_call("delegate", args)
    llm_server.enqueue_text("ok")
    agent = Agent(llm=make_llm(llm_server), tools=[Tool(name="DelegateTool")])
    conv = Conversation(agent=agent, workspace=tmp_path, visualizer=None)
    conv.send_message("go")
    conv.run()
    (obs,) = _observations(conv)
    assert obs.is_error and message in obs.content[0].text
    conv.close()
