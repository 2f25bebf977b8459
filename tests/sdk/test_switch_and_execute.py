"""``Conversation.switch_llm`` and ``execute_tool`` (SDK 1.58.2 methods)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.sdk.helpers import make_agent, make_llm
from tests.support.llm_server import ScriptedLLMServer
from trajkit.sdk import Agent, Conversation
from trajkit.sdk.context.condenser import LLMSummarizingCondenser


def _conversation(agent: Agent, tmp_path: Path) -> Conversation:
    return Conversation(
        agent=agent, workspace=tmp_path / "ws", persistence_dir=tmp_path / "c", visualizer=None
    )


def test_a_condenser_on_the_agents_llm_follows_the_switch(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        same = LLMSummarizingCondenser(llm=make_llm(server, usage_id="condenser"), max_size=50)
        agent = Agent(llm=make_llm(server), tools=[], condenser=same)
        conversation = _conversation(agent, tmp_path)
        conversation.switch_llm(make_llm(server, model="openai/gpt-4.1"))
        condenser = conversation.agent.condenser
        assert isinstance(condenser, LLMSummarizingCondenser)
        assert (condenser.llm.model, condenser.llm.usage_id) == ("openai/gpt-4.1", "condenser")

        own = LLMSummarizingCondenser(
            llm=make_llm(server, usage_id="condenser", model="openai/gpt-4o-mini"), max_size=50
        )
        other = _conversation(Agent(llm=make_llm(server), tools=[], condenser=own), tmp_path / "2")
        other.switch_llm(make_llm(server, model="openai/gpt-4.1"))
        kept = other.agent.condenser
        assert isinstance(kept, LLMSummarizingCondenser)
        assert kept.llm.model == "openai/gpt-4o-mini"  # its own configuration: left alone
    saved = json.loads(
        (Path(str(conversation.state.persistence_dir)) / "base_state.json").read_text()
    )
    assert saved["agent"]["llm"]["model"] == "openai/gpt-4.1"
    assert saved["agent"]["condenser"]["llm"]["model"] == "openai/gpt-4.1"


def test_execute_tool_runs_a_tool_outside_the_loop(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        conversation = _conversation(make_agent(server, tools=("terminal",)), tmp_path)
        terminal = conversation.tools["terminal"]
        action = terminal.action_from_arguments({"command": "echo direct > out.txt; echo ok"})
        observation = conversation.execute_tool("terminal", action)
        assert "ok" in observation.text
        assert (tmp_path / "ws" / "out.txt").read_text() == "direct\n"
        # the agent started first (as before a run), the call itself not recorded
        assert [e.kind for e in conversation.state.events] == ["SystemPromptEvent"]
        assert server.requests == []  # no model call
        with pytest.raises(KeyError, match="Available tools"):
            conversation.execute_tool("no_such_tool", action)
        conversation.close()
