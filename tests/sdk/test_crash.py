"""SIGKILL in the middle of run(): a restore continues and no completed event is lost.

A child process runs a conversation against the loopback server in this process; the test kills
it with SIGKILL (no cleanup, no atexit), then restores the conversation here and continues it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

from tests.sdk.helpers import make_agent
from tests.support.llm_server import ScriptedLLMServer
from trajkit.convert import find_dangling
from trajkit.events import ActionEvent, AgentErrorEvent, ObservationEvent
from trajkit.sdk import Conversation
from trajkit.sdk.conversation.local import RESTART_ERROR
from trajkit.store import open_conversation
from trajkit.validate import validate_conversation

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import sys, uuid
    from pydantic import SecretStr
    from trajkit.sdk import LLM, Agent, Conversation, Tool

    base_url, persist, workspace, cid, pidfile = sys.argv[1:6]
    llm = LLM(model="openai/gpt-4o", api_key=SecretStr("k"), base_url=base_url, usage_id="agent",
              num_retries=1)
    agent = Agent(llm=llm, tools=[Tool(name="terminal"), Tool(name="file_editor")])
    conv = Conversation(agent=agent, workspace=workspace, persistence_dir=persist,
                        conversation_id=uuid.UUID(cid), visualizer=None)

    def note_shell(event):
        session = conv.tools["terminal"]._session
        if session is not None:
            with open(pidfile, "w") as f:
                f.write(str(session.pid))

    conv._callbacks.append(note_shell)
    conv.send_message("Count for a long time.")
    conv.run()
    """
)


def _start_child(server: ScriptedLLMServer, tmp_path: Path, cid: uuid.UUID) -> subprocess.Popen:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, str(script), server.base_url, str(tmp_path / "persist"),
         str(tmp_path / "ws"), str(cid), str(tmp_path / "shell.pid")],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip


def _event_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (folder / "events").glob("event-*.json")}


def _wait(predicate, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached")
        time.sleep(0.02)


def _kill(child: subprocess.Popen, tmp_path: Path) -> None:
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=10)
    assert child.returncode == -signal.SIGKILL
    pidfile = tmp_path / "shell.pid"
    if pidfile.exists():  # the orphaned bash (own session) and whatever it runs
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.killpg(int(pidfile.read_text()), signal.SIGKILL)


def _restore_and_finish(server: ScriptedLLMServer, tmp_path: Path, cid: uuid.UUID) -> Conversation:
    server._queue.clear()
    server.default = None
    server.enqueue_tool_call("finish", {"message": "resumed and finished"})
    conv = Conversation(
        agent=make_agent(server),
        workspace=tmp_path / "ws",
        persistence_dir=tmp_path / "persist",
        conversation_id=cid,
    )
    return conv


def _check_folder(folder: Path, killed: dict[str, bytes]) -> list:
    after = _event_files(folder)
    assert {k: after[k] for k in killed} == killed, "an event written before the kill changed"
    problems = [
        p for p in validate_conversation(folder).problems if str(p.severity).endswith("error")
    ]
    assert not problems, problems
    events = list(open_conversation(folder).iter_events())
    assert len(events) == len(after)
    return events


def test_sigkill_between_steps_loses_nothing(tmp_path: Path) -> None:
    cid = uuid.uuid4()
    folder = tmp_path / "persist" / cid.hex
    with ScriptedLLMServer() as server:
        for i in range(400):
            server.enqueue_tool_call("terminal", {"command": f"echo step-{i}"})
        child = _start_child(server, tmp_path, cid)
        try:
            _wait(lambda: len(list((folder / "events").glob("event-*.json"))) >= 25)
        finally:
            _kill(child, tmp_path)
        killed = _event_files(folder)
        n_requests = len(server.requests)

        conv = _restore_and_finish(server, tmp_path, cid)
        conv.run()
        assert conv.state.execution_status == "finished"
        events = _check_folder(folder, killed)

    assert len(killed) >= 25
    # every event that was on disk is on the active branch the restored run continued from
    branch_ids = {e.id for e in conv._branch()}
    for e in events[: len(killed)]:
        if e.kind != "ConversationStateUpdateEvent":  # never on the branch (SDK rule)
            assert e.id in branch_ids
    # the first request after the restore carried the whole history
    first_after = server.bodies("chat")[n_requests]["messages"]
    assert sum(m["role"] == "tool" for m in first_after) >= 10
    assert not find_dangling(_messages(folder))
    assert any(isinstance(e, ObservationEvent) for e in events)


def test_sigkill_during_a_tool_call_gets_an_error_observation(tmp_path: Path) -> None:
    cid = uuid.uuid4()
    folder = tmp_path / "persist" / cid.hex
    with ScriptedLLMServer() as server:
        server.enqueue_tool_call("terminal", {"command": "echo before"})
        server.enqueue_tool_call("terminal", {"command": "sleep 60"}, call_id="call_sleep")
        child = _start_child(server, tmp_path, cid)

        def sleeping() -> bool:
            return (
                any(
                    b"call_sleep" in p.read_bytes()
                    for p in (folder / "events").glob("event-*.json")
                )
                if (folder / "events").is_dir()
                else False
            )

        try:
            _wait(sleeping)
            time.sleep(0.3)  # the command is running in bash now
        finally:
            _kill(child, tmp_path)
        killed = _event_files(folder)
        state = json.loads((folder / "base_state.json").read_text())
        assert state["execution_status"] == "running"

        conv = _restore_and_finish(server, tmp_path, cid)
        assert conv.state.execution_status == "error"  # it was interrupted
        errors = [e for e in conv.state.events if isinstance(e, AgentErrorEvent)]
        assert [(e.tool_call_id, e.error) for e in errors] == [("call_sleep", RESTART_ERROR)]
        conv.run()
        assert conv.state.execution_status == "finished"
        _check_folder(folder, killed)
        # the model was told about the interrupted call
        first_after = server.bodies("chat")[-1]["messages"]
        tool_msgs = [m for m in first_after if m["role"] == "tool"]
        assert tool_msgs[-1]["tool_call_id"] == "call_sleep"
        assert tool_msgs[-1]["content"][0]["text"] == RESTART_ERROR
    action = next(
        e
        for e in conv.state.events
        if isinstance(e, ActionEvent) and e.tool_call_id == "call_sleep"
    )
    assert action.action is not None
    assert not find_dangling(_messages(folder))


def _messages(folder: Path):
    from trajkit.convert import condensed_view, events_to_messages
    from trajkit.convert.view import active_branch

    state = json.loads((folder / "base_state.json").read_text())
    events = list(open_conversation(folder).iter_events())
    return events_to_messages(
        condensed_view(active_branch(events, leaf_event_id=state["leaf_event_id"]))
    )
