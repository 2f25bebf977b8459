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


# -- migrate: embedded trajectories written below their parent, as the runtime keeps them ----


def _step(n: int, source: str, message: str, **more: object) -> dict:
    return {"step_id": n, "source": source, "message": message, **more}


def _doc(steps: list[dict], **more: object) -> dict:
    return {"schema_version": "ATIF-v1.7", "agent": {"name": "harness", "version": "2"},
            "steps": steps, **more}  # fmt: skip


def _harbor_run(folder: Path) -> Path:
    """A foreign ATIF run: a parent whose tool result refers to an embedded `helper` (which
    embeds `deep`), continued after a context reset in a file that embeds `later`.
    """
    deep = _doc([_step(1, "user", "nested question")], trajectory_id="deep")
    helper = _doc([_step(1, "user", "look it up"), _step(2, "agent", "found it")],
                  trajectory_id="helper", subagent_trajectories=[deep])  # fmt: skip
    call = {"tool_call_id": "c1", "function_name": "delegate", "arguments": {"to": "helper"}}
    result = {"source_call_id": "c1", "content": "found it",
              "subagent_trajectory_ref": [{"trajectory_id": "helper"}]}  # fmt: skip
    first = _doc(
        [_step(1, "user", "main task"),
         _step(2, "agent", "asking", tool_calls=[call], observation={"results": [result]})],
        subagent_trajectories=[helper], continued_trajectory_ref="trajectory.cont-1.json",
    )  # fmt: skip
    later = _doc([_step(1, "user", "after the reset")], trajectory_id="later")
    cont = _doc([_step(1, "user", "go on"), _step(2, "agent", "done")],
                subagent_trajectories=[later])  # fmt: skip
    (folder / "trajectory.json").write_text(json.dumps(first))
    (folder / "trajectory.cont-1.json").write_text(json.dumps(cont))
    return folder / "trajectory.json"


def _steps_by_trajectory(doc: dict, key: str = "") -> dict[str, list[dict]]:
    """Each trajectory's steps (trajkit's `extra.openhands` and step numbers left out), by
    `trajectory_id`, embedded ones included (depth first).
    """
    from tests.formats.test_atif_write import _strip

    out = {key: [{k: v for k, v in _strip(s).items() if k != "step_id"} for s in doc["steps"]]}
    for sub in doc.get("subagent_trajectories") or []:
        out.update(_steps_by_trajectory(sub, sub["trajectory_id"]))
    return out


def test_migrate_writes_embedded_trajectories_below_their_parent(tmp_path: Path) -> None:
    from tests.support.cli import run_trajkit

    source = tmp_path / "job"
    source.mkdir()
    path = _harbor_run(source)
    before = {p: p.read_bytes() for p in source.iterdir()}
    out = tmp_path / "out"
    done = run_trajkit("migrate", path, "-o", out)
    assert done.returncode == 0, done.stderr
    assert "migrated 4 conversation(s)" in done.stdout
    assert {p: p.read_bytes() for p in source.iterdir()} == before  # the input untouched
    (parent,) = out.iterdir()  # one conversation folder at the top: the children are inside
    helper, later = (open_conversation(p) for p in _by_first_message(parent, "look it up", "after the reset"))  # fmt: skip
    (deep,) = (helper.path / "subagents").iterdir()  # type: ignore[operator]
    assert open_conversation(deep).id and (deep / "events").is_dir()
    assert json.loads((deep / "base_state.json").read_text())["persistence_dir"] == str(deep)
    listed = run_trajkit("ls", out)
    assert listed.returncode == 0 and len(listed.stdout.splitlines()) == 4, listed.stdout
    back = tmp_path / "back.json"
    converted = run_trajkit("convert", parent, "--to", "atif", "-o", back)
    assert converted.returncode == 0, converted.stderr
    document = json.loads(back.read_text())
    atif.Trajectory.model_validate(document)  # refs point at embedded trajectories
    first, cont = (json.loads(p.read_text()) for p in (path, source / "trajectory.cont-1.json"))
    original = _steps_by_trajectory(first)
    original[""] += _steps_by_trajectory(cont)[""]
    original.update({k: v for k, v in _steps_by_trajectory(cont).items() if k})
    assert _steps_by_trajectory(document) == original  # every step of every trajectory
    again = run_trajkit("migrate", path, "-o", out)  # a re-run keeps what is there
    assert again.returncode == 0 and "1 already migrated" in again.stdout, again.stdout


def test_a_bad_embedded_trajectory_is_one_line_and_the_rest_is_written(tmp_path: Path) -> None:
    from tests.support.cli import run_trajkit

    bad = _doc(7, trajectory_id="bad", subagent_trajectories=[_doc([], trajectory_id="kid")])  # type: ignore[arg-type]
    good = _doc([_step(1, "user", "fine")], trajectory_id="good")
    path = tmp_path / "run.json"
    path.write_text(json.dumps(_doc([_step(1, "user", "main")], subagent_trajectories=[bad, good])))
    done = run_trajkit("migrate", path, "-o", tmp_path / "out")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert (
        f"skipped {path}#bad:/subagent_trajectories/0/steps: expected a list of steps"
        in done.stderr
    )
    assert f"skipped {path}#bad/kid: the trajectory it is embedded in was not read" in done.stderr
    (parent,) = (tmp_path / "out").iterdir()
    assert len(list(parent.glob("subagents/*/events"))) == 1  # `good`, below its parent


def _by_first_message(parent: Path, *texts: str) -> list[Path]:
    """The parent's sub-conversation folders, in the order of their first messages."""
    found = {}
    for folder in (parent / "subagents").iterdir():
        event = next(iter(open_conversation(folder).iter_events()))
        found[event.llm_message.content[0].text] = folder  # type: ignore[attr-defined]
    return [found[t] for t in texts]


def test_trajkits_own_atif_migrates_back_to_the_runtimes_layout(
    parent: Path, tmp_path: Path
) -> None:
    from tests.formats.test_atif_write import _strip
    from tests.support.cli import run_trajkit

    first = tmp_path / "first.json"
    assert run_trajkit("convert", parent, "--to", "atif", "-o", first).returncode == 0
    out = tmp_path / "out"
    done = run_trajkit("migrate", first, "-o", out)
    assert done.returncode == 0, done.stderr
    (migrated,) = out.iterdir()
    assert migrated.name == parent.name
    assert sorted(p.name for p in (migrated / "subagents").iterdir()) == sorted(
        p.name for p in _subs(parent)
    )  # the sub-conversations, by their own ids, where the runtime put them
    again = tmp_path / "again.json"
    assert run_trajkit("convert", migrated, "--to", "atif", "-o", again).returncode == 0
    a, b = (json.loads(p.read_text()) for p in (first, again))
    assert _strip(a["steps"]) == _strip(b["steps"])
    assert _strip(a["subagent_trajectories"]) == _strip(b["subagent_trajectories"])
