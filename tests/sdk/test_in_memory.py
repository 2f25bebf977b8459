"""Issue 27: without a ``persistence_dir`` a conversation is kept in memory and writes nothing,
as the SDK's (``ConversationState.create`` then uses an in-memory file store)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.sdk.helpers import make_agent
from tests.support.llm_server import ScriptedLLMServer
from trajkit.events import ObservationEvent, TaskTrackerObservation
from trajkit.sdk import Conversation


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize("persistence_dir", [None, ""])
def test_no_persistence_dir_writes_nothing(
    llm_server: ScriptedLLMServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    persistence_dir: str | None,
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "seed.txt").write_text("seed\n")
    monkeypatch.chdir(tmp_path)
    llm_server.enqueue_tool_call("terminal", {"command": "ls -a", "summary": "list"})
    llm_server.enqueue_tool_call(
        "task_tracker", {"command": "plan", "task_list": [{"title": "look", "status": "done"}]}
    )
    llm_server.enqueue_tool_call("finish", {"message": "done"})
    before = _tree(tmp_path)
    conversation = Conversation(
        agent=make_agent(llm_server, tools=("terminal", "task_tracker")),
        workspace=ws,
        persistence_dir=persistence_dir,
        visualizer=None,
    )
    conversation.send_message("What is here?")
    conversation.run()
    fork = conversation.fork()  # a fork of an in-memory conversation stays in memory
    conversation.close()
    fork.close()

    assert fork.state.persistence_dir is None
    assert [e.id for e in fork.state.events] == [e.id for e in conversation.state.events]

    assert conversation.state.execution_status == "finished"
    assert conversation.state.persistence_dir is None
    kinds = [e.kind for e in conversation.state.events]
    assert kinds == [
        "SystemPromptEvent", "MessageEvent", "ActionEvent", "ObservationEvent", "ActionEvent",
        "ObservationEvent", "ActionEvent", "ObservationEvent",
    ]  # fmt: skip
    listing = conversation.state.events[3]
    assert isinstance(listing, ObservationEvent)
    # the agent's own `ls -a` shows the workspace as the user left it
    names = {n.strip() for n in listing.observation.text.split()}
    assert "seed.txt" in names and "conversations" not in names
    tasks = conversation.state.events[5]
    assert isinstance(tasks, ObservationEvent)
    assert isinstance(tasks.observation, TaskTrackerObservation)
    assert [t.title for t in tasks.observation.task_list] == ["look"]
    # not one file or folder more, in the workspace or the current directory
    assert _tree(tmp_path) == before
    assert os.listdir(ws) == ["seed.txt"]
    # the conversation went on: every request carried the history so far
    assert len(llm_server.bodies("chat")) == 3
