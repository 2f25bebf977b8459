"""Several tool calls of one response run at once up to tool_concurrency_limit; results are
persisted in call order."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

from pydantic import Field

from tests.sdk.helpers import make_llm
from tests.support.llm_server import ScriptedLLMServer
from trajkit.convert import convert_conversation
from trajkit.events import ObservationEvent
from trajkit.sdk import Action, Agent, Conversation, Observation, ToolDefinition, ToolExecutor
from trajkit.sdk.tool import Tool, register_tool
from trajkit.store import open_conversation


class NapAction(Action):
    seconds: float = Field(description="how long to sleep")
    label: str = Field(description="what to answer")


class NapObservation(Observation):
    pass


class NapExecutor(ToolExecutor[NapAction, NapObservation]):
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.peak = 0
        self.finished: list[str] = []

    def __call__(self, action, conversation=None):
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
        time.sleep(action.seconds)
        with self.lock:
            self.running -= 1
            self.finished.append(action.label)
        return NapObservation.from_text(f"slept {action.seconds}s: {action.label}")


class NapTool(ToolDefinition[NapAction, NapObservation]):
    @classmethod
    def create(cls, conv_state, **params) -> Sequence[ToolDefinition]:
        return [
            cls(
                description="Sleeps, then answers.",
                action_type=NapAction,
                observation_type=NapObservation,
                executor=NapExecutor(),
            )
        ]


register_tool("NapTool", NapTool)


def _run(server: ScriptedLLMServer, tmp_path: Path, limit: int, naps: list[tuple[float, str]]):
    calls = [("nap", {"seconds": s, "label": label}) for s, label in naps]
    server.enqueue_tool_calls(calls)
    server.enqueue_text("rested")
    agent = Agent(llm=make_llm(server), tools=[Tool(name="NapTool")], tool_concurrency_limit=limit)
    conv = Conversation(agent=agent, workspace=tmp_path, persistence_dir=tmp_path / f"c{limit}")
    conv.send_message("nap")
    conv.run()
    return conv


def test_calls_run_concurrently_and_persist_in_call_order(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    naps = [(1.5, "first"), (1.0, "second"), (0.2, "third")]
    conv = _run(llm_server, tmp_path, 3, naps)
    executor = conv.tools["nap"].executor
    assert executor.peak == 3
    assert executor.finished == ["third", "second", "first"]  # completion order differs ...
    folder = Path(conv.state.persistence_dir)
    events = list(open_conversation(folder).iter_events())
    texts = [e.observation.text for e in events if isinstance(e, ObservationEvent)]
    # ... the persisted order is the call order, each answering its own call
    assert texts == ["slept 1.5s: first", "slept 1.0s: second", "slept 0.2s: third"]
    calls = llm_server.bodies("chat")[1]["messages"][2]["tool_calls"]
    answers = llm_server.bodies("chat")[1]["messages"][3:6]
    assert [a["tool_call_id"] for a in answers] == [c["id"] for c in calls]
    converted = convert_conversation(folder, to="chat")
    assert converted["messages"][:6] == llm_server.bodies("chat")[1]["messages"]


def test_limit_bounds_concurrency_and_default_is_sequential(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    naps = [(0.4, f"n{i}") for i in range(5)]
    conv = _run(llm_server, tmp_path, 2, naps)
    assert conv.tools["nap"].executor.peak == 2
    conv1 = _run(llm_server, tmp_path, 1, naps[:3])
    assert conv1.tools["nap"].executor.peak == 1
    assert conv1.tools["nap"].executor.finished == ["n0", "n1", "n2"]


def test_terminal_calls_take_turns_when_run_in_parallel(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    llm_server.enqueue_tool_calls(
        [
            ("terminal", {"command": "sleep 0.5; echo one"}),
            ("terminal", {"command": "echo two"}),
            ("file_editor", {"command": "create", "path": f"{ws}/a.txt", "file_text": "a\n"}),
            ("file_editor", {"command": "create", "path": f"{ws}/b.txt", "file_text": "b\n"}),
        ]
    )
    llm_server.enqueue_text("done")
    agent = Agent(
        llm=make_llm(llm_server),
        tools=[Tool(name="terminal"), Tool(name="file_editor")],
        tool_concurrency_limit=4,
    )
    conv = Conversation(agent=agent, workspace=ws, persistence_dir=tmp_path / "c")
    conv.send_message("go")
    conv.run()
    events = list(open_conversation(Path(conv.state.persistence_dir)).iter_events())
    obs = [e.observation for e in events if isinstance(e, ObservationEvent)]
    assert [o.text for o in obs[:2]] == ["one", "two"]
    assert not any(o.is_error for o in obs)
    assert (ws / "a.txt").read_text() == "a\n" and (ws / "b.txt").read_text() == "b\n"
