"""The task tool (issue 27, SDK examples 25, 41, 42, 45): sub-agents run in conversations of
their own, persisted under the parent's ``subagents/`` folder, resumable, their usage counted in
the parent's stats; against the loopback LLM server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.sdk.helpers import make_llm
from tests.support.llm_server import ScriptedReply, ScriptedToolCall
from trajkit.events import TaskObservation
from trajkit.sdk import Agent, AgentContext, Conversation, Skill, Tool
from trajkit.sdk.subagent import AgentDefinition, agent_definition_to_factory, register_agent
from trajkit.sdk.subagent.registry import _reset_registry_for_tests
from trajkit.store import open_conversation
from trajkit.tools.delegate import DelegationVisualizer
from trajkit.tools.task import TaskToolSet


@pytest.fixture(autouse=True)
def _registry():
    _reset_registry_for_tests()
    yield
    _reset_registry_for_tests()


def _expert(llm):
    skill = Skill(name="zoology", content="You are a zoologist.", trigger=None)
    return Agent(llm=llm, tools=[], agent_context=AgentContext(skills=[skill]))


def _parent(server, tmp_path, **kw):
    agent = Agent(llm=make_llm(server), tools=[Tool(name=TaskToolSet.name)], **kw)
    return Conversation(
        agent=agent, workspace=tmp_path, persistence_dir=tmp_path / "c",
        visualizer=DelegationVisualizer(name="QuizHost"),
    )  # fmt: skip


def _kinds(folder: Path) -> list[str]:
    return [e.kind for e in open_conversation(folder).iter_events()]


def test_a_task_runs_persists_and_resumes(llm_server, tmp_path, capsys):
    register_agent("animal_expert", _expert, "Makes animal quiz questions.")
    ask = {
        "prompt": "One question about owls.",
        "subagent_type": "animal_expert",
        "description": "quiz",
    }
    llm_server.enqueue_tool_call("task", ask)
    llm_server.enqueue_text("Question: how far can an owl turn its head?")
    llm_server.enqueue_text("I asked the expert.")
    conv = _parent(llm_server, tmp_path)
    conv.send_message("quiz me")
    conv.run()
    first = llm_server.bodies("chat")
    assert (
        "animal_expert"
        in next(t for t in first[0]["tools"] if t["function"]["name"] == "task")["function"][
            "description"
        ]
    )
    assert "You are a zoologist." in json.dumps(
        first[1]["messages"][0]
    )  # the sub-agent's own prompt
    assert first[1]["messages"][-1]["content"] == [
        {"type": "text", "text": "One question about owls."}
    ]
    tool_message = first[2]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["content"] == [
        {
            "type": "text",
            "text": "Task ID: task_00000001\nSubagent: animal_expert\nStatus: completed",
        },
        {"type": "text", "text": "Question: how far can an owl turn its head?"},
    ]

    llm_server.enqueue_tool_call(
        "task", {**ask, "prompt": "Is 270 degrees right?", "resume": "task_00000001"}
    )
    llm_server.enqueue_text("Correct.")
    llm_server.enqueue_text("It was right.")
    conv.send_message("check my answer")
    conv.run()
    resumed = llm_server.bodies("chat")[4]["messages"]
    assert "Question: how far can an owl turn its head?" in json.dumps(resumed)  # it remembers
    folder = Path(conv.state.persistence_dir)
    subs = list((folder / "subagents").iterdir())
    assert len(subs) == 1
    assert _kinds(subs[0]) == [
        "SystemPromptEvent",
        "MessageEvent",
        "MessageEvent",
        "MessageEvent",
        "MessageEvent",
    ]
    stats = conv.conversation_stats.usage_to_metrics
    assert stats["task:task_00000001"].accumulated_token_usage.prompt_tokens == 200
    assert stats["agent"].accumulated_token_usage.prompt_tokens == 400  # the sub-agent's apart
    out = capsys.readouterr().out
    assert "Quiz Host Agent Action" in out and "Quiz Agent Message to Quiz Host Agent" in out
    conv.close()
    from trajkit.cli import main

    listed = CliRunner().invoke(main, ["ls", str(tmp_path / "c")])
    assert listed.exit_code == 0, listed.output
    assert subs[0].name[:8] in listed.output


def test_unknown_type_and_failures_are_observations(llm_server, tmp_path):
    llm_server.enqueue_tool_call("task", {"prompt": "x", "subagent_type": "nobody"})
    llm_server.enqueue_text("ok")
    conv = _parent(llm_server, tmp_path)
    conv.send_message("go")
    conv.run()
    obs = [e.observation for e in conv.state.events if e.kind == "ObservationEvent"]
    assert isinstance(obs[0], TaskObservation) and obs[0].is_error and obs[0].status == "error"
    assert "Unknown agent 'nobody'" in obs[0].text
    conv.close()


def test_definitions_and_parallel_tasks(llm_server, tmp_path):
    checker = AgentDefinition(name="grammar-checker", description="Checks grammar.", tools=["file_editor"],
                              system_prompt="You are a grammar expert.")  # fmt: skip
    register_agent(checker.name, agent_definition_to_factory(checker), checker)
    calls = [
        ScriptedToolCall("task", {"prompt": f"check {n}", "subagent_type": "grammar-checker"})
        for n in "ab"
    ]
    llm_server.enqueue(ScriptedReply(tool_calls=calls))
    llm_server.enqueue_text("fine")
    llm_server.enqueue_text("fine")
    llm_server.enqueue_text("both checked")
    conv = _parent(llm_server, tmp_path, tool_concurrency_limit=2)
    conv.send_message("check both")
    conv.run()
    bodies = llm_server.bodies("chat")
    sub_bodies = [b for b in bodies if "You are a grammar expert." in json.dumps(b["messages"][0])]
    assert len(sub_bodies) == 2
    assert all(
        [t["function"]["name"] for t in b["tools"]] == ["file_editor", "finish", "think"]
        for b in sub_bodies
    )
    obs = [e.observation for e in conv.state.events if e.kind == "ObservationEvent"]
    assert sorted(o.task_id for o in obs) == ["task_00000001", "task_00000002"]
    assert len(list((Path(conv.state.persistence_dir) / "subagents").iterdir())) == 2
    conv.close()


def run_interrupted(conv, prompt: str, after: float = 3.0) -> None:
    """Send ``prompt`` and run; ``interrupt()`` comes ``after`` seconds, and the run must end
    within 20 s (a sub-agent's ``sleep 60`` killed) with status ``paused``.
    """
    import threading
    import time

    conv.send_message(prompt)
    timer = threading.Timer(after, conv.interrupt)
    timer.start()
    started = time.monotonic()
    conv.run()
    timer.cancel()
    assert time.monotonic() - started < 20
    assert conv.state.execution_status == "paused"


def runner(llm):
    return Agent(llm=llm, tools=[Tool(name="terminal")])


def test_interrupting_the_parent_stops_a_running_sub_agent(llm_server, tmp_path):
    """``interrupt()`` reaches the task's sub-agent: its ``sleep 60`` is killed at once."""
    register_agent("runner", runner, "Runs.")
    llm_server.enqueue_tool_call("task", {"prompt": "wait", "subagent_type": "runner"})
    llm_server.enqueue_tool_call("terminal", {"command": "sleep 60"})
    conv = _parent(llm_server, tmp_path)
    run_interrupted(conv, "go")
    sub = next((Path(conv.state.persistence_dir) / "subagents").iterdir())
    assert "InterruptEvent" in _kinds(sub)
    conv.close()
