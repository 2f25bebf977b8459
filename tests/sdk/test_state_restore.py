"""Each persisted part of a conversation's state survives deleting the Conversation and
restoring it from disk: execution state, stuck verdicts, confirmation, statistics, agent
state, workspace, state-update events. Every written folder passes ``trajkit validate --strict``.
(MCP, skills and secrets have their own files.)"""

from __future__ import annotations

import gc
import json
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.sdk.helpers import make_agent
from tests.support.llm_server import ScriptedLLMServer
from trajkit.events import (
    ActionEvent,
    ConversationStateUpdateEvent,
    ObservationEvent,
    UserRejectObservation,
)
from trajkit.sdk import Conversation
from trajkit.sdk.security import AlwaysConfirm, ConfirmRisky, LLMSecurityAnalyzer
from trajkit.store import open_conversation


def strict_validate(folder: Path) -> None:
    """``trajkit validate --strict <folder>`` exits 0."""
    from trajkit.cli import main

    result = CliRunner().invoke(main, ["validate", "--strict", str(folder)])
    assert result.exit_code == 0, result.output


def _open(server: ScriptedLLMServer, tmp_path: Path, cid: uuid.UUID, **kw) -> Conversation:
    return Conversation(
        agent=kw.pop("agent", None) or make_agent(server),
        workspace=kw.pop("workspace", tmp_path / "ws"),
        persistence_dir=tmp_path / "convs",
        conversation_id=cid,
        **kw,
    )


def _base_state(conv: Conversation) -> dict:
    return json.loads((Path(conv.state.persistence_dir) / "base_state.json").read_text())


def _drop(conv: Conversation) -> Path:
    folder = Path(conv.state.persistence_dir)
    conv.close()
    del conv
    gc.collect()
    return folder


def test_execution_state_and_status_updates(llm_server: ScriptedLLMServer, tmp_path: Path):
    llm_server.enqueue_tool_call("terminal", {"command": "echo one"})
    llm_server.enqueue_text("done")
    cid = uuid.uuid4()
    conv = _open(llm_server, tmp_path, cid, max_iterations=7, stuck_detection=False)
    conv.send_message("go")
    conv.run()
    assert conv.state.execution_status == "finished"
    assert conv.state.iteration == 2
    folder = _drop(conv)

    state = json.loads((folder / "base_state.json").read_text())
    assert (state["max_iterations"], state["stuck_detection"]) == (7, False)
    assert state["execution_status"] == "finished"
    updates = [
        (e.key, e.value)
        for e in open_conversation(folder).iter_events()
        if isinstance(e, ConversationStateUpdateEvent)
    ]
    # as the SDK: status changes live in base_state.json, no state-update event files
    assert updates == []

    restored = _open(llm_server, tmp_path, cid, max_iterations=9)
    assert restored.state.execution_status == "finished"
    assert restored.state.stuck_detection is False  # persisted setting kept
    assert restored.state.max_iterations == 9  # overwritten on resume, as in the SDK
    assert restored.state.iteration == 2  # steps since the last user message
    strict_validate(folder)


def test_stuck_verdict_persists(llm_server: ScriptedLLMServer, tmp_path: Path):
    for _ in range(4):
        llm_server.enqueue_tool_call("terminal", {"command": "echo same"})
    cid = uuid.uuid4()
    conv = _open(llm_server, tmp_path, cid)
    conv.send_message("loop forever")
    conv.run()
    assert conv.state.execution_status == "stuck"
    assert llm_server.pending == 0
    folder = _drop(conv)
    kinds = [e.kind for e in open_conversation(folder).iter_events()]
    assert "ConversationStateUpdateEvent" not in kinds  # SDK: the status is in base_state only
    assert json.loads((folder / "base_state.json").read_text())["execution_status"] == "stuck"

    restored = _open(llm_server, tmp_path, cid)
    assert restored.state.execution_status == "stuck"
    restored.run()  # a stuck conversation does not run again by itself...
    assert llm_server.pending == 0
    llm_server.enqueue_text("ok, stopping")
    restored.send_message("try something else")  # ...a user message gives it a fresh start
    restored.run()
    assert restored.state.execution_status == "finished"
    strict_validate(folder)


def test_confirmation_waits_survives_restore_then_runs_or_rejects(
    llm_server: ScriptedLLMServer, tmp_path: Path
):
    llm_server.enqueue_tool_call("terminal", {"command": "echo confirmed > c.txt"})
    cid = uuid.uuid4()
    conv = _open(llm_server, tmp_path, cid)
    conv.set_confirmation_policy(AlwaysConfirm())
    conv.send_message("write c.txt")
    conv.run()
    assert conv.state.execution_status == "waiting_for_confirmation"
    assert len(conv.pending_actions()) == 1
    assert not (tmp_path / "ws" / "c.txt").exists()
    folder = _drop(conv)
    assert json.loads((folder / "base_state.json").read_text())["confirmation_policy"] == {
        "kind": "AlwaysConfirm"
    }

    # restored while waiting: the pending action is neither lost nor answered with an error
    restored = _open(llm_server, tmp_path, cid)
    assert restored.state.execution_status == "waiting_for_confirmation"
    assert isinstance(restored.state.confirmation_policy, AlwaysConfirm)
    (pending,) = restored.pending_actions()
    llm_server.enqueue_tool_call("terminal", {"command": "rm -rf /tmp/nothing-here"})
    restored.run()  # running again confirms
    assert (tmp_path / "ws" / "c.txt").read_text().strip() == "confirmed"
    obs = [e for e in restored.state.events if isinstance(e, ObservationEvent)]
    assert obs[-1].action_id == pending.id
    assert restored.state.execution_status == "waiting_for_confirmation"  # second action

    restored.reject_pending_actions("not this one")
    assert restored.state.execution_status == "idle"
    rejection = restored.state.events[-1]
    assert isinstance(rejection, UserRejectObservation)
    assert rejection.rejection_reason == "not this one"
    llm_server.enqueue_text("understood")
    restored.run()
    assert restored.state.execution_status == "finished"
    # the LLM saw the rejection as the tool result
    tool_msgs = [m for m in llm_server.bodies()[-1]["messages"] if m["role"] == "tool"]
    assert "Action rejected: not this one" in json.dumps(tool_msgs[-1])
    strict_validate(folder)


def test_confirm_risky_with_llm_analyzer(llm_server: ScriptedLLMServer, tmp_path: Path):
    llm_server.enqueue_tool_call("terminal", {"command": "ls", "security_risk": "LOW"})
    llm_server.enqueue_tool_call("terminal", {"command": "rm -rf build", "security_risk": "HIGH"})
    cid = uuid.uuid4()
    conv = _open(llm_server, tmp_path, cid)
    conv.set_confirmation_policy(ConfirmRisky(threshold="HIGH"))
    conv.set_security_analyzer(LLMSecurityAnalyzer())
    conv.send_message("clean")
    conv.run()
    assert conv.state.execution_status == "waiting_for_confirmation"
    actions = [e for e in conv.state.events if isinstance(e, ActionEvent)]
    assert [a.security_risk for a in actions] == ["LOW", "HIGH"]
    assert conv.pending_actions() == [actions[1]]
    folder = _drop(conv)
    state = json.loads((folder / "base_state.json").read_text())
    assert state["confirmation_policy"] == {
        "threshold": "HIGH",
        "confirm_unknown": True,
        "kind": "ConfirmRisky",
    }
    assert state["security_analyzer"] == {"kind": "LLMSecurityAnalyzer"}
    restored = _open(llm_server, tmp_path, cid)
    assert isinstance(restored.state.security_analyzer, LLMSecurityAnalyzer)
    assert restored.state.confirmation_policy == ConfirmRisky(threshold="HIGH")
    strict_validate(folder)


def test_stats_keep_counting_after_restore(llm_server: ScriptedLLMServer, tmp_path: Path):
    llm_server.enqueue_text("first", prompt_tokens=1000, completion_tokens=100)
    cid = uuid.uuid4()
    conv = _open(llm_server, tmp_path, cid)
    conv.send_message("hi")
    conv.run()
    cost = conv.agent.llm.metrics.accumulated_cost
    assert cost > 0
    folder = _drop(conv)
    stats = json.loads((folder / "base_state.json").read_text())["stats"]["usage_to_metrics"]
    agent_metrics = stats["agent"]
    assert agent_metrics["accumulated_cost"] == pytest.approx(cost)
    assert agent_metrics["accumulated_token_usage"]["prompt_tokens"] == 1000
    assert len(agent_metrics["costs"]) == len(agent_metrics["token_usages"]) == 1

    agent = make_agent(llm_server)  # a new LLM object, metrics empty
    assert agent.llm.metrics.accumulated_cost == 0
    restored = _open(llm_server, tmp_path, cid, agent=agent)
    assert agent.llm.metrics.accumulated_cost == pytest.approx(cost)
    llm_server.enqueue_text("second", prompt_tokens=1000, completion_tokens=100)
    restored.send_message("again")
    restored.run()
    assert agent.llm.metrics.accumulated_cost == pytest.approx(2 * cost)
    saved = json.loads((folder / "base_state.json").read_text())["stats"]["usage_to_metrics"]
    assert saved["agent"]["accumulated_token_usage"]["prompt_tokens"] == 2000
    strict_validate(folder)


def test_agent_state_and_workspace(llm_server: ScriptedLLMServer, tmp_path: Path):
    cid = uuid.uuid4()
    conv = _open(llm_server, tmp_path, cid)
    conv.state.agent_state = {**conv.state.agent_state, "refinements": 2, "notes": ["a"]}
    assert _base_state(conv)["agent_state"] == {"refinements": 2, "notes": ["a"]}
    assert _base_state(conv)["workspace"] == {
        "working_dir": str((tmp_path / "ws").resolve()),
        "kind": "LocalWorkspace",
    }
    folder = _drop(conv)
    updates = [
        e
        for e in open_conversation(folder).iter_events()
        if isinstance(e, ConversationStateUpdateEvent)
    ]
    assert updates == []  # the change is in base_state.json (above), as the SDK keeps it

    restored = _open(llm_server, tmp_path, cid)
    assert restored.state.agent_state == {"refinements": 2, "notes": ["a"]}
    assert restored.state.workspace.working_dir == str((tmp_path / "ws").resolve())
    _drop(restored)
    # the SDK overwrites the workspace with the one passed in; trajkit does the same
    moved = _open(llm_server, tmp_path, cid, workspace=tmp_path / "ws2")
    assert _base_state(moved)["workspace"]["working_dir"] == str((tmp_path / "ws2").resolve())
    strict_validate(folder)


CHILD = """
import os, signal, sys, uuid
from pydantic import SecretStr
sys.path.insert(0, sys.argv[6])
from tests.support.mcp_server import server_config
from trajkit.sdk import (LLM, Agent, AgentContext, AlwaysConfirm, Cipher, Conversation,
                         KeywordTrigger, Skill, Tool)

base_url, persist, workspace, cid, secret = sys.argv[1:6]
llm = LLM(model="openai/gpt-4o", api_key=SecretStr("sk-child-key-123456"), base_url=base_url,
          usage_id="agent", num_retries=1)
context = AgentContext(skills=[Skill(name="math", content="Use the add tool.",
                                     trigger=KeywordTrigger(keywords=["sum"]))])
agent = Agent(llm=llm, tools=[Tool(name="terminal")], agent_context=context,
              mcp_config={"mcpServers": {"test": server_config()}})
conv = Conversation(agent=agent, workspace=workspace, persistence_dir=persist,
                    conversation_id=uuid.UUID(cid), cipher=Cipher("child-key"))
conv.update_secrets({"API_TOKEN": secret})
conv.state.agent_state = {"phase": "adding"}
conv.set_confirmation_policy(AlwaysConfirm())
conv.send_message("What is the sum of 2 and 3?")
conv.run()
assert conv.state.execution_status == "waiting_for_confirmation"
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_everything_survives_sigkill(llm_server: ScriptedLLMServer, tmp_path: Path):
    """A process sets every part of the state, stops waiting for confirmation and is killed
    with SIGKILL; a new process restores all of it and continues."""
    import os
    import signal
    import subprocess
    import sys

    from tests.sdk.helpers import make_llm
    from tests.support.mcp_server import server_config
    from trajkit.events import MCPToolObservation, MessageEvent
    from trajkit.sdk import Agent, AgentContext, Cipher, KeywordTrigger, Skill, Tool

    root = Path(__file__).resolve().parents[2]
    secret = "tok-" + uuid.uuid4().hex
    cid = uuid.uuid4()
    llm_server.enqueue_tool_call("add", {"a": 2, "b": 3})
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    child = subprocess.run(
        [sys.executable, str(script), llm_server.base_url, str(tmp_path / "convs"),
         str(tmp_path / "ws"), str(cid), secret, str(root)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert child.returncode == -signal.SIGKILL, child.stderr[-3000:]
    folder = tmp_path / "convs" / cid.hex

    context = AgentContext(
        skills=[
            Skill(
                name="math", content="Use the add tool.", trigger=KeywordTrigger(keywords=["sum"])
            )
        ]
    )
    agent = Agent(
        llm=make_llm(llm_server),
        tools=[Tool(name="terminal")],
        agent_context=context,
        mcp_config={"mcpServers": {"test": server_config()}},
    )
    conv = _open(llm_server, tmp_path, cid, agent=agent, cipher=Cipher("child-key"))
    state = conv.state
    assert state.execution_status == "waiting_for_confirmation"
    assert isinstance(state.confirmation_policy, AlwaysConfirm)
    assert state.agent_state == {"phase": "adding"}
    assert state.activated_knowledge_skills == ["math"]
    assert state.secret_registry.get_value("API_TOKEN") == secret
    assert agent.llm.metrics.accumulated_cost > 0
    user = next(e for e in state.events if isinstance(e, MessageEvent) and e.source == "user")
    assert user.activated_skills == ["math"]

    llm_server.enqueue_tool_call("terminal", {"command": "echo ${#API_TOKEN} $API_TOKEN"})
    conv.run()  # confirms the MCP call; the next action waits again
    mcp_obs = [
        e.observation
        for e in conv.state.events
        if isinstance(e, ObservationEvent) and isinstance(e.observation, MCPToolObservation)
    ]
    assert [c.text for c in mcp_obs[0].content] == ["[Tool 'add' executed.]", "5"]
    assert conv.state.execution_status == "waiting_for_confirmation"
    llm_server.enqueue_text("The sum is 5.")
    conv.run()
    terminal = [e for e in conv.state.events if isinstance(e, ObservationEvent)][-1]
    assert f"{len(secret)} <secret-hidden>" in terminal.observation.text
    assert conv.state.execution_status == "finished"
    conv.close()
    for path in (tmp_path / "convs").rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    strict_validate(folder)
    assert os.path.isdir(folder / "events")
