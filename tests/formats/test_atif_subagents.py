"""V1 sub-conversations (the task tool's `subagents/<hex>/`) as embedded ATIF subagent
trajectories on `convert --to atif`, validated by the `atif` models and read back (issue 28).

The conversation is recorded by trajkit's runtime against the loopback LLM server: a parent
that runs one task, then resumes it, then runs a second task.
"""

from __future__ import annotations

import json
from pathlib import Path

import atif
import pytest
from click.testing import CliRunner

from tests.sdk.helpers import make_llm
from tests.support.llm_server import llm_server  # noqa: F401  (pytest fixture)
from trajkit.cli import main
from trajkit.convert import convert_conversation
from trajkit.events import dump_event
from trajkit.sdk import Agent, AgentContext, Conversation, Skill, Tool
from trajkit.sdk.subagent import register_agent
from trajkit.sdk.subagent.registry import _reset_registry_for_tests
from trajkit.shapes import shape_refs
from trajkit.store import open_conversation
from trajkit.tools.task import TaskToolSet


@pytest.fixture(autouse=True)
def _registry():  # type: ignore[no-untyped-def]
    _reset_registry_for_tests()
    yield
    _reset_registry_for_tests()


@pytest.fixture
def parent(llm_server, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]  # noqa: F811
    def expert(llm):  # type: ignore[no-untyped-def]
        skill = Skill(name="zoology", content="You are a zoologist.", trigger=None)
        return Agent(llm=llm, tools=[], agent_context=AgentContext(skills=[skill]))

    register_agent("animal_expert", expert, "Makes animal quiz questions.")
    ask = {"prompt": "One question about owls.", "subagent_type": "animal_expert"}
    llm_server.enqueue_tool_call("task", ask)
    llm_server.enqueue_text("How far can an owl turn its head?")
    llm_server.enqueue_tool_call("task", {**ask, "prompt": "Harder.", "resume": "task_00000001"})
    llm_server.enqueue_text("Why do owls have asymmetric ears?")
    llm_server.enqueue_tool_call("task", {**ask, "prompt": "One about bats."})
    llm_server.enqueue_text("How do bats see in the dark?")
    llm_server.enqueue_text("Three questions asked.")
    agent = Agent(llm=make_llm(llm_server), tools=[Tool(name=TaskToolSet.name)])
    conv = Conversation(agent=agent, workspace=tmp_path, persistence_dir=tmp_path / "c")
    conv.send_message("quiz me")
    conv.run()
    conv.close()
    return Path(conv.state.persistence_dir)  # type: ignore[arg-type]


def _subs(folder: Path) -> list[Path]:
    return sorted((folder / "subagents").iterdir())


def test_sub_conversations_are_embedded_and_referred_to(parent: Path, tmp_path: Path) -> None:
    out = tmp_path / "trajectory.json"
    result = CliRunner().invoke(main, ["convert", str(parent), "--to", "atif", "-o", str(out)])
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    trajectory = atif.Trajectory.model_validate(document)  # ids unique, refs well formed
    subs = {open_conversation(f).id: f for f in _subs(parent)}
    embedded = trajectory.subagent_trajectories or []
    assert sorted(s.trajectory_id or "" for s in embedded) == sorted(subs) and len(subs) == 2
    for sub in embedded:  # each written by the same rules as the conversation itself
        alone = json.loads(json.dumps(convert_conversation(subs[sub.trajectory_id], to="atif")))  # type: ignore[index]
        assert [s.model_dump(mode="json", exclude_none=True)["message"] for s in sub.steps] == [
            s["message"] for s in alone["steps"]
        ]
    refs = [
        (r.source_call_id, [x.trajectory_id for x in r.subagent_trajectory_ref or []])
        for s in trajectory.steps
        for r in (s.observation.results if s.observation else [])
        if r.subagent_trajectory_ref
    ]
    assert len(refs) == 3  # each task call's result, the resumed one to the same trajectory
    owls, again, bats = (ids[0] for _, ids in refs)
    assert owls == again != bats
    first_user = {
        sub.trajectory_id: next(s.message for s in sub.steps if s.source == "user")
        for sub in embedded
    }
    assert first_user[owls] == "One question about owls."
    assert first_user[bats] == "One about bats."


def test_embedded_sub_conversations_read_back_as_themselves(parent: Path, tmp_path: Path) -> None:
    out = tmp_path / "trajectory.json"
    assert CliRunner().invoke(main, ["convert", str(parent), "--to", "atif", "-o", str(out)]).exit_code == 0  # fmt: skip
    refs = list(shape_refs(out) or [])
    assert len(refs) == 3  # the parent, then each embedded trajectory (`file.json#<id>`)
    for ref, folder in zip(refs, [parent, *_subs_in_order(out, parent)], strict=True):
        original, back = open_conversation(folder), ref.open_conversation()
        assert back.id == original.id
        assert sorted(map(dump_event, back.iter_events())) == sorted(
            map(dump_event, original.iter_events())
        )
        assert convert_conversation(ref) == convert_conversation(folder)
    listed = CliRunner().invoke(main, ["ls", str(out)])
    assert listed.exit_code == 0 and listed.output.count("\n") >= 3, listed.output


def _subs_in_order(out: Path, parent: Path) -> list[Path]:
    ids = [s["trajectory_id"] for s in json.loads(out.read_text())["subagent_trajectories"]]
    by_id = {open_conversation(f).id: f for f in _subs(parent)}
    return [by_id[i] for i in ids]


def test_a_conversation_without_sub_conversations_embeds_none() -> None:
    from tests.support import fixtures as fx

    document = convert_conversation(fx.sdk_conversation("b_terminal"), to="atif")
    assert "subagent_trajectories" not in document
