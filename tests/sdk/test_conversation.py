"""Conversation runs against the scripted server over real HTTP (litellm) with a real bash."""

from __future__ import annotations

import json
import threading
import uuid
from pathlib import Path

import pytest

from tests.sdk.helpers import make_agent, make_llm
from tests.support.llm_server import ScriptedLLMServer
from trajkit.convert import convert_conversation
from trajkit.errors import UnsafePath
from trajkit.events import (
    ActionEvent,
    AgentErrorEvent,
    ConversationErrorEvent,
    MessageEvent,
    ObservationEvent,
    PauseEvent,
    SystemPromptEvent,
)
from trajkit.sdk import Agent, Conversation, Tool
from trajkit.sdk.conversation import ConversationRunError
from trajkit.store import open_conversation
from trajkit.validate import validate_conversation


def _without_updates(events):
    """The events without ConversationStateUpdateEvents (status changes are tested apart)."""
    return [e for e in events if e.kind != "ConversationStateUpdateEvent"]


def _history(conv):
    return _without_updates(conv.state.events)


def _errors(folder: Path) -> list:
    return [p for p in validate_conversation(folder).problems if str(p.severity).endswith("error")]


def _conv(agent: Agent, tmp_path: Path, **kw) -> Conversation:
    kw.setdefault("persistence_dir", tmp_path / "convs")
    return Conversation(agent=agent, workspace=tmp_path / "ws", **kw)


def test_run_persists_every_event_and_converts_to_what_was_sent(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    llm_server.enqueue_tool_calls(
        [
            ("terminal", {"command": "echo hi > a.txt && cat a.txt", "summary": "write a.txt"}),
            ("file_editor", {"command": "view", "path": str(ws / "a.txt")}),
        ],
        text="Two things at once.",
        reasoning_content="plan",
    )
    llm_server.enqueue_tool_call("think", {"thought": "all good"})
    llm_server.enqueue_tool_call("finish", {"message": "done"})
    seen: list[str] = []
    conv = _conv(make_agent(llm_server), tmp_path, callbacks=[lambda e: seen.append(e.kind)])
    conv.send_message("Write a.txt and show it.")
    conv.run()

    assert conv.state.execution_status == "finished"
    folder = Path(conv.state.persistence_dir)
    assert folder == tmp_path / "convs" / conv.id.hex
    kinds = [e.kind for e in _without_updates(open_conversation(folder).iter_events())]
    seen = [k for k in seen if k != "ConversationStateUpdateEvent"]
    assert kinds == seen == [
        "SystemPromptEvent", "MessageEvent", "ActionEvent", "ActionEvent", "ObservationEvent",
        "ObservationEvent", "ActionEvent", "ObservationEvent", "ActionEvent", "ObservationEvent",
    ]  # fmt: skip
    events = _without_updates(open_conversation(folder).iter_events())
    first, second = events[2], events[3]
    assert isinstance(first, ActionEvent) and isinstance(second, ActionEvent)
    assert first.thought[0].text == "Two things at once." and first.reasoning_content == "plan"
    assert second.thought == [] and second.reasoning_content is None
    assert first.summary == "write a.txt"
    assert second.summary.startswith("file_editor: {")
    assert first.llm_response_id == second.llm_response_id == "chatcmpl-scripted-0"
    assert [e.parent_id for e in events[1:]] == [e.id for e in events[:-1]]
    assert (ws / "a.txt").read_text() == "hi\n"
    assert not _errors(folder)

    # What trajkit convert rebuilds from the files is exactly what the server received.
    converted = convert_conversation(folder, to="chat")
    bodies = llm_server.bodies("chat")
    assert len(bodies) == 3
    for body in bodies:
        n = len(body["messages"])
        assert converted["messages"][:n] == body["messages"]
        assert converted["tools"] == body["tools"]
    assert [t["function"]["name"] for t in bodies[0]["tools"]] == [
        "terminal", "file_editor", "finish", "think",
    ]  # fmt: skip

    state = json.loads((folder / "base_state.json").read_text())
    assert state["leaf_event_id"] == events[-1].id
    assert state["execution_status"] == "finished"
    usage = state["stats"]["usage_to_metrics"]["agent"]
    assert len(usage["token_usages"]) == 3 and usage["accumulated_cost"] > 0
    assert state["agent"]["llm"]["api_key"] == "**********"
    raw = b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())
    assert b"sk-test-secret-value" not in raw


def test_responses_api_conversation_converts_to_what_was_sent(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm_server.enqueue_tool_call("terminal", {"command": "echo r"}, reasoning_content="why")
    llm_server.enqueue_text("All done.")
    agent = Agent(llm=make_llm(llm_server, api_mode="responses"), tools=[Tool(name="terminal")])
    conv = _conv(agent, tmp_path)
    conv.send_message("go")
    conv.run()
    assert conv.state.execution_status == "finished"
    bodies = llm_server.bodies("responses")
    assert len(bodies) == 2 and not llm_server.bodies("chat")
    folder = Path(conv.state.persistence_dir)
    events = _without_updates(open_conversation(folder).iter_events())
    action = next(e for e in events if isinstance(e, ActionEvent))
    assert action.tool_call.origin == "responses"
    assert action.responses_reasoning_item is not None
    assert action.responses_reasoning_item.summary == ["why"]
    converted = convert_conversation(folder, to="responses")
    assert converted["instructions"] == bodies[1]["instructions"]
    assert converted["input"][: len(bodies[1]["input"])] == bodies[1]["input"]
    assert converted["tools"] == bodies[1]["tools"]
    assert not _errors(folder)


def test_malformed_arguments_give_an_error_event_and_the_run_continues(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    bad = '{"command": "ls", '
    llm_server.enqueue_tool_call("terminal", bad)
    llm_server.enqueue_tool_call("terminal", {"command": 42, "timeout": "soon"})
    llm_server.enqueue_tool_call("no_such_tool", {"x": 1})
    llm_server.enqueue_tool_call("finish", {"message": "recovered"})
    conv = _conv(make_agent(llm_server), tmp_path)
    conv.send_message("go")
    conv.run()
    assert conv.state.execution_status == "finished"
    events = _history(conv)
    actions = [e for e in events if isinstance(e, ActionEvent)]
    errors = [e for e in events if isinstance(e, AgentErrorEvent)]
    assert [a.action is None for a in actions] == [True, True, True, False]
    assert actions[0].tool_call.arguments == bad
    assert len(errors) == 3
    assert bad in errors[0].error and errors[0].tool_call_id == actions[0].tool_call_id
    assert "command" in errors[1].error
    assert "no_such_tool" in errors[2].error and "terminal" in errors[2].error
    # the model saw the error text as the tool result
    second = llm_server.bodies("chat")[1]["messages"]
    assert second[-1]["role"] == "tool" and bad in second[-1]["content"][0]["text"]
    assert not _errors(Path(conv.state.persistence_dir))


@pytest.mark.parametrize("status", [401, 404])
def test_wrong_key_is_an_error_event_and_error_status(
    llm_server: ScriptedLLMServer, tmp_path: Path, status: int
) -> None:
    llm_server.enqueue_error(status, "Incorrect API key provided")
    conv = _conv(make_agent(llm_server), tmp_path)
    conv.send_message("hello")
    with pytest.raises(ConversationRunError) as info:  # as the SDK: persisted, then raised
        conv.run()
    assert type(info.value.original_exception).__name__ == (
        "LLMAuthenticationError"  # by status (401) or by the "Incorrect API key" text (404)
    )
    assert conv.state.execution_status == "error"
    assert len(llm_server.requests) == 1  # not retried
    err = _history(conv)[-1]
    assert isinstance(err, ConversationErrorEvent)
    assert "Incorrect API key provided" in err.detail
    on_disk = json.loads((Path(conv.state.persistence_dir) / "base_state.json").read_text())
    assert on_disk["execution_status"] == "error"
    # a later run (e.g. after fixing the key) continues
    llm_server.enqueue_text("hi")
    conv.run()
    assert conv.state.execution_status == "finished"


def test_rate_limits_and_5xx_are_retried(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    llm_server.enqueue_error(429)
    llm_server.enqueue_error(500)
    llm_server.enqueue_text("finally")
    conv = _conv(make_agent(llm_server), tmp_path)
    conv.send_message("hello")
    conv.run()
    assert conv.state.execution_status == "finished"
    assert len(llm_server.requests) == 3


def test_retries_give_up_after_num_retries(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    llm_server.enqueue_error(503, times=5)
    conv = _conv(make_agent(llm_server, num_retries=2), tmp_path)
    conv.send_message("hello")
    with pytest.raises(ConversationRunError):
        conv.run()
    assert conv.state.execution_status == "error" and len(llm_server.requests) == 2
    assert "after 2 attempts" in _history(conv)[-1].detail


def test_unreachable_base_url(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        agent = make_agent(server, num_retries=2)
    # the server is stopped: nothing listens on that port any more
    conv = _conv(agent, tmp_path)
    conv.send_message("hello")
    with pytest.raises(ConversationRunError):
        conv.run()
    assert conv.state.execution_status == "error"
    err = _history(conv)[-1]
    assert isinstance(err, ConversationErrorEvent)
    assert err.code == "LLMServiceUnavailableError"  # the SDK's name for a connection error
    assert "could not connect to http://127.0.0.1:" in err.detail
    assert err.classification is not None and err.classification.kind == "transient"


def test_restore_continues_with_history(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    llm_server.enqueue_tool_call("terminal", {"command": "export X=1; echo one"})
    llm_server.enqueue_text("first done")
    agent = make_agent(llm_server)
    conv = _conv(agent, tmp_path)
    cid = conv.id
    conv.send_message("step one")
    conv.run()
    first_count = len(_history(conv))
    conv.close()
    del conv

    llm_server.enqueue_text("second done")
    restored = _conv(
        make_agent(llm_server, tools=("terminal", "file_editor")), tmp_path, conversation_id=cid
    )
    assert len(_history(restored)) == first_count  # no second system prompt
    restored.send_message("step two")
    restored.run()
    bodies = llm_server.bodies("chat")
    before, after = bodies[1]["messages"], bodies[2]["messages"]
    assert after[: len(before)] == before
    assert after[len(before)]["content"][0]["text"] == "first done"
    assert after[-1]["content"][0]["text"] == "step two"
    assert restored.agent.llm.metrics.accumulated_cost == pytest.approx(3 * 0.00045)
    kinds = [e.kind for e in _history(restored)]
    assert kinds.count("SystemPromptEvent") == 1


def test_restore_refuses_other_agent_class_and_removed_tools(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    conv = _conv(make_agent(llm_server), tmp_path)
    cid = conv.id
    conv.close()
    with pytest.raises(ValueError, match="tools were removed"):
        _conv(make_agent(llm_server, tools=("terminal",)), tmp_path, conversation_id=cid)
    state_file = tmp_path / "convs" / cid.hex / "base_state.json"
    data = json.loads(state_file.read_text())
    data["agent"]["kind"] = "ACPAgent"
    state_file.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="ACPAgent"):
        _conv(make_agent(llm_server), tmp_path, conversation_id=cid)


@pytest.mark.parametrize("bad_id", ["../../etc", "not-a-uuid", "a/b", ""])
def test_conversation_id_that_is_not_a_uuid_is_refused(tmp_path: Path, bad_id: str) -> None:
    with ScriptedLLMServer() as server, pytest.raises(UnsafePath, match="not a UUID"):
        _conv(make_agent(server), tmp_path, conversation_id=bad_id)
    assert not (tmp_path / "convs").exists() or not any((tmp_path / "convs").iterdir())


def test_persistence_dir_escapes_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with ScriptedLLMServer() as server:
        agent = make_agent(server)
        with pytest.raises(UnsafePath, match="climbs out"):
            Conversation(agent=agent, workspace=tmp_path / "ws", persistence_dir="../outside")
        with pytest.raises(UnsafePath, match="climbs out"):
            Conversation(agent=agent, workspace=tmp_path / "ws", persistence_dir="a/../../x")
        # a conversation folder that is a link leading elsewhere
        cid = uuid.uuid4()
        (tmp_path / "elsewhere").mkdir()
        (tmp_path / "convs").mkdir()
        (tmp_path / "convs" / cid.hex).symlink_to(tmp_path / "elsewhere")
        with pytest.raises(UnsafePath, match="leads outside"):
            Conversation(
                agent=agent, workspace=tmp_path / "ws", persistence_dir="convs", conversation_id=cid
            )
        assert not any((tmp_path / "elsewhere").iterdir())
        # relative inside the current directory is fine; none: in memory (test_in_memory.py)
        conv = Conversation(
            agent=agent, workspace=tmp_path / "ws", persistence_dir="./.conversations"
        )
        assert Path(conv.state.persistence_dir).parent == tmp_path / ".conversations"
        conv2 = Conversation(agent=agent, workspace=tmp_path / "ws")
        assert conv2.state.persistence_dir is None
        assert not (tmp_path / "ws" / "conversations").exists()


def test_pause_from_another_thread(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    for i in range(20):
        llm_server.enqueue_tool_call("terminal", {"command": f"echo {i}"}, delay=0.2)
    conv = _conv(make_agent(llm_server), tmp_path)
    conv.send_message("loop")
    t = threading.Thread(target=conv.run)
    t.start()
    llm_server.wait_for_requests(2)
    conv.pause()
    t.join(timeout=30)
    assert not t.is_alive()
    assert conv.state.execution_status == "paused"
    assert any(isinstance(e, PauseEvent) for e in _history(conv))
    assert len(llm_server.requests) < 20
    # resume: run continues from where it stopped
    llm_server._queue.clear()
    llm_server.enqueue_tool_call("finish", {"message": "ok"})
    conv.run()
    assert conv.state.execution_status == "finished"


def test_max_iterations(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    for i in range(5):
        llm_server.enqueue_tool_call("terminal", {"command": f"echo {i}"})
    conv = _conv(make_agent(llm_server), tmp_path, max_iterations=3, stuck_detection=False)
    conv.send_message("loop")
    conv.run()
    assert conv.state.execution_status == "error"
    assert len(llm_server.requests) == 3
    last = _history(conv)[-1]
    assert isinstance(last, ConversationErrorEvent) and last.code == "MaxIterationsReached"


def test_state_assignment_saves_at_once(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    conv = _conv(make_agent(llm_server), tmp_path)
    path = Path(conv.state.persistence_dir) / "base_state.json"
    conv.state.max_iterations = 77
    assert json.loads(path.read_text())["max_iterations"] == 77
    conv.state.agent_state = {"k": "v"}
    assert json.loads(path.read_text())["agent_state"] == {"k": "v"}
    with conv.state:
        conv.state.tags = {"title": "x"}
        assert "title" not in json.loads(path.read_text())["tags"]
    assert json.loads(path.read_text())["tags"] == {"title": "x"}
    conv.send_message("start")  # the system prompt is written with the first message (SDK)
    events = _history(conv)
    assert isinstance(events[0], SystemPromptEvent)
    assert [t.kind for t in events[0].tools] == [
        "TerminalTool",
        "FileEditorTool",
        "FinishTool",
        "ThinkTool",
    ]


def test_text_reply_finishes(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    llm_server.enqueue_text("Hello!")
    conv = _conv(make_agent(llm_server), tmp_path)
    conv.send_message("Say hello.")
    conv.run()
    last = _history(conv)[-1]
    assert isinstance(last, MessageEvent) and last.source == "agent"
    assert last.llm_response_id == "chatcmpl-scripted-0"
    assert conv.state.execution_status == "finished"
    conv.run()  # finished: nothing to do, no request
    assert len(llm_server.requests) == 1
    conv.send_message("Again?")
    assert conv.state.execution_status == "idle"


def test_observation_for_each_call_in_order(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    llm_server.enqueue_tool_calls([("terminal", {"command": f"echo {i}"}) for i in range(3)])
    llm_server.enqueue_tool_call("finish", {"message": "ok"})
    conv = _conv(make_agent(llm_server), tmp_path)
    conv.send_message("three")
    conv.run()
    obs = [e for e in _history(conv) if isinstance(e, ObservationEvent)][:3]
    assert [o.observation.text for o in obs] == ["0", "1", "2"]
    assert [o.tool_call_id for o in obs] == ["call_0_0", "call_0_1", "call_0_2"]


def test_restore_with_an_added_tool_and_tool_params(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    first = _conv(make_agent(llm_server, tools=("terminal",)), tmp_path)
    cid = first.id
    first.close()
    agent = Agent(
        llm=make_llm(llm_server),
        tools=[
            Tool(name="terminal", params={"no_change_timeout_seconds": 7}),
            Tool(name="file_editor"),
        ],
    )
    llm_server.enqueue_text("ok")
    conv = _conv(agent, tmp_path, conversation_id=cid)
    conv.send_message("hi")
    conv.run()
    assert conv.state.execution_status == "finished"
    sent = [t["function"]["name"] for t in llm_server.bodies("chat")[0]["tools"]]
    assert sent == ["terminal", "file_editor", "finish", "think"]
    assert "no new output for 7 seconds" in conv.tools["terminal"].description
    state = json.loads((Path(conv.state.persistence_dir) / "base_state.json").read_text())
    assert state["agent"]["tools"] == [
        {"name": "terminal", "params": {"no_change_timeout_seconds": 7}},
        {"name": "file_editor", "params": {}},
    ]


def test_a_condenser_copied_from_the_agents_llm_counts_apart(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    # get_default_agent makes its condenser's LLM with model_copy, which shares the metrics;
    # as the SDK's registry, the conversation gives it its own, so nothing is counted twice
    from trajkit.tools.preset.default import get_default_agent

    llm_server.enqueue_text("Hello!")
    llm = make_llm(llm_server)
    llm.reset_metrics()  # metrics made before the copy (as SDK example 51 does), so shared
    agent = get_default_agent(llm=llm, cli_mode=True)
    conv = _conv(agent, tmp_path, visualizer=None)
    conv.send_message("Say hello.")
    conv.run()
    stats = conv.conversation_stats
    assert stats.usage_to_metrics["condenser"].accumulated_cost == 0
    agent_cost = stats.usage_to_metrics["agent"].accumulated_cost
    assert agent_cost > 0 and stats.get_combined_metrics().accumulated_cost == agent_cost
    conv.close()
