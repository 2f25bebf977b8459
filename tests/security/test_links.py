"""Issue 14 item 1: repair and the runtime's restore never read or write through a link that
leads outside the conversation folder (real symlinks, real files)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.security.conftest import invoke, tree
from trajkit.errors import UnsafePath

MARKER = "OUTSIDE-STATE-MARKER-51c2"


@pytest.mark.parametrize("dry_run", [False, True], ids=["repair", "dry-run"])
def test_repair_refuses_events_folder_linked_outside(
    tmp_path: Path, conv: Path, dry_run: bool
) -> None:
    outside = tmp_path / "outside-events"
    shutil.move(conv / "events", outside)
    (conv / "events").symlink_to(outside)
    # damage that repair would otherwise "fix" by moving files
    first = sorted(outside.glob("event-*.json"))[-1]
    first.write_bytes(first.read_bytes()[:20])
    before_out, before_conv = tree(outside), tree(conv)
    r = invoke("repair", *(["--dry-run"] if dry_run else []), str(conv))
    assert r.exit_code == 1, r.output
    assert "outside the conversation" in r.output
    assert tree(outside) == before_out
    assert tree(conv) == before_conv
    assert not (conv / "quarantine").exists()


def _state_link(tmp_path: Path, conv: Path) -> Path:
    outside = tmp_path / "outside-state.json"
    state = json.loads((conv / "base_state.json").read_text())
    state["tags"] = {"note": MARKER}
    state["execution_status"] = "finished"
    outside.write_text(json.dumps(state))
    (conv / "base_state.json").unlink()
    (conv / "base_state.json").symlink_to(outside)
    return outside


def test_repair_never_reads_base_state_linked_outside(tmp_path: Path, conv: Path) -> None:
    outside = _state_link(tmp_path, conv)
    # a lagging head and an unanswered call would make repair rewrite base_state.json
    events = sorted((conv / "events").glob("event-*.json"))
    events[-1].unlink()
    before_out, before_conv = outside.read_bytes(), tree(conv)
    r = invoke("repair", str(conv))
    assert r.exit_code == 1
    assert "outside the conversation" in r.output
    assert outside.read_bytes() == before_out
    assert tree(conv) == before_conv
    for p in conv.rglob("*"):
        if p.is_file() and not p.is_symlink():
            assert MARKER.encode() not in p.read_bytes(), p


def test_restore_never_reads_base_state_linked_outside(tmp_path: Path) -> None:
    from trajkit.sdk import LLM, Agent, Conversation

    agent = Agent(llm=LLM(model="openai/gpt-4o", base_url="http://127.0.0.1:9"), tools=[])
    persist = tmp_path / "p"
    first = Conversation(agent=agent, workspace=tmp_path / "ws", persistence_dir=persist)
    first.close()
    folder = persist / first.id.hex
    outside = _state_link(tmp_path, folder)
    before_out, before_conv = outside.read_bytes(), tree(folder)
    with pytest.raises(UnsafePath, match="outside the conversation"):
        Conversation(
            agent=agent,
            workspace=tmp_path / "ws",
            persistence_dir=persist,
            conversation_id=first.id,
        )
    assert outside.read_bytes() == before_out
    assert tree(folder) == before_conv
