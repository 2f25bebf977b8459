"""Issue 13 point 4: one crash-recovery module (`trajkit.recovery`) for the runtime's restore and
`trajkit repair`. The same crash (a tool call left without a result, the head lagging behind
the event written after the last base-state save) is recovered both ways, on two copies of one
real folder: the same call is answered, with the same text, and the head lands on it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from tests.sdk.helpers import make_agent
from tests.support.llm_server import ScriptedLLMServer
from trajkit import recovery, repair
from trajkit.cli import main
from trajkit.events import ActionEvent, AgentErrorEvent
from trajkit.sdk import Conversation
from trajkit.sdk.conversation import local as sdk_conversation
from trajkit.store import ConversationWriter, open_conversation


def _crashed_folder(tmp_path: Path, server: ScriptedLLMServer) -> tuple[Path, str]:
    server.enqueue_tool_call("terminal", {"command": "echo hi"}, call_id="call_one")
    server.enqueue_text("done")
    conv = Conversation(
        agent=make_agent(server), workspace=tmp_path / "ws", persistence_dir=tmp_path / "p"
    )
    conv.send_message("say hi")
    conv.run()
    conv.close()
    folder = tmp_path / "p" / conv.id.hex
    events = list(open_conversation(folder).iter_events())
    action = next(e for e in events if isinstance(e, ActionEvent))
    leaf = json.loads((folder / "base_state.json").read_text())["leaf_event_id"]
    # The crash: the next step's action is on disk, its result and the base-state save are not.
    crashed = action.model_copy(
        update={
            "id": "c0ffee00-0000-4000-8000-000000000001",
            "tool_call_id": "call_two",
            "parent_id": leaf,
        }
    )
    ConversationWriter(folder).append(crashed)
    state = json.loads((folder / "base_state.json").read_text())
    state["execution_status"] = "running"
    (folder / "base_state.json").write_text(json.dumps(state))
    return folder, crashed.id


def _recovered(folder: Path) -> tuple[list[tuple[str, str, str | None]], str]:
    events = list(open_conversation(folder).iter_events())
    errors = [
        (e.tool_call_id, e.error, e.parent_id) for e in events if isinstance(e, AgentErrorEvent)
    ]
    head = json.loads((folder / "base_state.json").read_text())["leaf_event_id"]
    assert head == next(e.id for e in events if isinstance(e, AgentErrorEvent))
    return errors, head


def test_restore_and_repair_recover_one_crash_the_same_way(tmp_path: Path) -> None:
    assert sdk_conversation.RESTART_ERROR is recovery.RESTART_ERROR
    assert repair.RESTART_ERROR is recovery.RESTART_ERROR
    with ScriptedLLMServer() as server:
        folder, crashed_id = _crashed_folder(tmp_path, server)
        by_repair = tmp_path / "repaired" / folder.name
        shutil.copytree(folder, by_repair)

        r = CliRunner().invoke(main, ["repair", str(by_repair)])
        assert "did set head" in r.output and "did close call" in r.output, r.output

        restored = Conversation(
            agent=make_agent(server),
            workspace=tmp_path / "ws",
            persistence_dir=tmp_path / "p",
            conversation_id=folder.name,
        )
        assert restored.state.execution_status == "error"
        restored.close()

    repaired_errors, _ = _recovered(by_repair)
    restored_errors, _ = _recovered(folder)
    assert repaired_errors == restored_errors == [("call_two", recovery.RESTART_ERROR, crashed_id)]
    # The LLM is sent that one text for the interrupted action.
    restored_events = list(open_conversation(folder).iter_events())
    assert [
        e.classification.kind
        for e in restored_events
        if isinstance(e, AgentErrorEvent) and e.classification
    ] == ["internal"]
