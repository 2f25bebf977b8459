"""`trajkit repair` on folders damaged the way crashes damage them."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from trajkit.cli import main
from trajkit.repair import QUARANTINE_DIR, RESTART_ERROR, plan_repair
from trajkit.store import open_conversation
from trajkit.validate import validate_conversation

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sdk"


@pytest.fixture
def conv(tmp_path: Path) -> Path:
    src = next((FIXTURES / "b_terminal").glob("[0-9a-f]" * 32))
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst


def _files(conv: Path) -> list[Path]:
    return [ef.path for ef in open_conversation(conv).event_files()]


def _errors(conv: Path) -> list[str]:
    return [p.format() for p in validate_conversation(conv).problems if p.severity == "error"]


def _tree_hash(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        h.update(str(p.relative_to(root)).encode())
        if p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


def _set_leaf(conv: Path, leaf: str) -> None:
    state = json.loads((conv / "base_state.json").read_text())
    state["leaf_event_id"] = leaf
    (conv / "base_state.json").write_text(json.dumps(state))


def test_torn_tail_is_quarantined_and_head_moved(conv: Path):
    last = _files(conv)[-1]
    last.write_bytes(last.read_bytes()[:40])  # torn write
    assert _errors(conv)
    result = CliRunner().invoke(main, ["repair", str(conv)])
    assert result.exit_code == 0, result.output
    assert "did quarantine" in result.output
    assert not last.exists()
    moved = conv / QUARANTINE_DIR / last.name
    assert moved.read_bytes()[:10] == b'{"id":"cc5'  # kept, not deleted
    reasons = json.loads((conv / QUARANTINE_DIR / "reasons.json").read_text())
    assert reasons[last.name]["from"] == f"events/{last.name}"
    # The finish call lost its result: repair closed it and moved the head to that result.
    events = list(open_conversation(conv).iter_events())
    assert events[-1].kind == "AgentErrorEvent" and events[-1].error == RESTART_ERROR
    assert json.loads((conv / "base_state.json").read_text())["leaf_event_id"] == events[-1].id
    assert _errors(conv) == []


def test_dangling_call_gets_error_result(conv: Path):
    files = _files(conv)
    for f in files[3:]:
        f.unlink()  # crash after the terminal action was written, before its observation
    _set_leaf(conv, json.loads(files[2].read_text())["id"])
    fixes = plan_repair(conv)
    assert [f.kind for f in fixes] == ["close_call"]
    assert CliRunner().invoke(main, ["repair", str(conv)]).exit_code == 0
    events = list(open_conversation(conv).iter_events())
    assert [e.kind for e in events][-2:] == ["ActionEvent", "AgentErrorEvent"]
    assert events[-1].tool_call_id == events[-2].tool_call_id
    assert events[-1].parent_id == events[-2].id
    assert _errors(conv) == []


def test_lagging_head_moves_forward(conv: Path):
    files = _files(conv)
    _set_leaf(conv, json.loads(files[1].read_text())["id"])
    fixes = plan_repair(conv)
    assert [f.kind for f in fixes] == ["set_head"]
    assert "lags behind" in fixes[0].message
    CliRunner().invoke(main, ["repair", str(conv)])
    leaf = json.loads((conv / "base_state.json").read_text())["leaf_event_id"]
    assert leaf == json.loads(files[-1].read_text())["id"]


def test_leftover_temp_file_is_quarantined(conv: Path):
    tmp = conv / "events" / ".event-00006-abc.json.x1y2.tmp"
    tmp.write_bytes(b'{"id": "half')
    result = CliRunner().invoke(main, ["repair", str(conv)])
    assert result.exit_code == 0
    assert not tmp.exists()
    assert (conv / QUARANTINE_DIR / tmp.name.lstrip(".")).exists()


def test_dry_run_changes_nothing(conv: Path):
    last = _files(conv)[-1]
    last.write_bytes(b"")
    before = _tree_hash(conv)
    result = CliRunner().invoke(main, ["repair", "--dry-run", str(conv)])
    assert "would quarantine" in result.output
    assert _tree_hash(conv) == before


def test_hole_in_the_middle_is_explained_not_renumbered(conv: Path):
    files = _files(conv)
    files[2].write_bytes(b"{not json")
    result = CliRunner().invoke(main, ["repair", str(conv)])
    assert result.exit_code == 1
    assert "cannot fix" in result.output and "index gap" in result.output
    assert [p.name for p in _files(conv)] == [p.name for p in files if p != files[2]]


def test_truncated_base_state_is_reported(conv: Path):
    (conv / "base_state.json").write_bytes(b'{"id": "4a35')
    result = CliRunner().invoke(main, ["repair", "--json", str(conv)])
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["ok"] is False
    assert any("cannot be rebuilt" in f["message"] for f in data["conversations"][0]["fixes"])
    assert (conv / "base_state.json").read_bytes() == b'{"id": "4a35'


def test_clean_fixture_needs_nothing(conv: Path):
    before = _tree_hash(conv)
    result = CliRunner().invoke(main, ["repair", str(conv)])
    assert result.exit_code == 0 and "nothing to repair" in result.output
    assert _tree_hash(conv) == before
