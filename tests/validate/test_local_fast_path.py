"""The store's tight pass over local event files (`scan_events`, issue 20) gives validate
what the whole ladder (`scan_event_file`) gives, file for file: the same problems (path,
pointer, message, severity), the same facts and the same parsed event."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from trajkit.store.scan import Listing, scan_event_file, scan_events
from trajkit.validate import validate_conversation
from trajkit.validate.files import check_scanned

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
FOLDERS = sorted(
    p.parent for group in ("sdk", "bad") for p in (FIXTURES / group).rglob("events") if p.is_dir()
)
TERMINAL = next((FIXTURES / "sdk" / "b_terminal").glob("*/events"))


def _facts(fact):
    return (fact.path, fact.index, fact.name_id, fact.id, fact.kind, fact.parent_id,
            fact.action_id, fact.tool_call_id)  # fmt: skip


def _tight(events: Path, name: str, max_bytes: int, name_id: str | None = "abc"):
    """`name` as the scan of a folder reads it (`events` stands in for the folder's events/)."""
    listing = Listing.of([(3, name, name_id, False)])  # type: ignore[list-item]
    return next(scan_events(events, listing, max_bytes=max_bytes))


def _same(events: Path, name: str, *, max_bytes: int = 1 << 20) -> list:
    fast_scan = _tight(events, name, max_bytes)
    full_scan = scan_event_file(events / name, index=3, event_id="abc", max_bytes=max_bytes)
    assert (fast_scan.event is None) == (full_scan.event is None)
    if fast_scan.event is not None:
        assert fast_scan.event == full_scan.event
    fast, fast_facts = check_scanned(fast_scan)
    full, full_facts = check_scanned(full_scan)
    assert fast.problems == full.problems
    assert [p.code for p in fast.problems] == [p.code for p in full.problems]
    assert _facts(fast_facts) == _facts(full_facts)
    assert fast.raw == full.raw and fast.upgrades == full.upgrades
    return fast.problems


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.relative_to(FIXTURES).as_posix())
def test_every_fixture_file_reads_the_same(folder: Path) -> None:
    events = folder / "events"
    for name in sorted(os.listdir(events)):
        _same(events, name)


def test_files_off_the_fast_path_read_the_same(tmp_path: Path) -> None:
    src = next(p for p in sorted(TERMINAL.iterdir()) if b'"ActionEvent"' in p.read_bytes())
    good = src.read_bytes()
    event = json.loads(good)
    action = dict(event, action={"kind": "NoSuchAction"}) if "action" in event else None
    cases = {
        "empty.json": b"",
        "spaces.json": b"   \n",
        "broken.json": good[:-5],
        "array.json": b"[1, 2]",
        "not-utf8.json": b'{"kind": "\xff"}',
        "big.json": good + b" " * 64,  # above the limit given below
        "other-id.json": good,  # the name says id "abc": a name-id problem, on the fast path
        "kind-first.json": json.dumps({"kind": event["kind"], **event}).encode(),
    }
    if action is not None:
        cases["unknown-payload.json"] = json.dumps(action).encode()
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "a-folder.json").mkdir()
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling.json")
    found = {}
    for name in [*cases, "a-folder.json", "dangling.json", "missing.json"]:
        found[name] = [p.code for p in _same(tmp_path, name, max_bytes=len(good) + 10)]
    assert found["empty.json"] == ["empty"] and found["big.json"] == ["too-large"]
    assert found["other-id.json"] == ["name-id"] and found["a-folder.json"] == ["not-a-file"]
    assert found["dangling.json"] == ["unreadable"] and found["missing.json"] == ["unreadable"]
    assert found["broken.json"] and found["array.json"] == ["not-an-object"]


def test_a_valid_file_makes_no_path_until_asked(tmp_path: Path) -> None:
    events = TERMINAL
    name = next(n for n in sorted(os.listdir(events)) if n.startswith("event-"))
    scanned = _tight(events, name, 1 << 20, name_id=None)
    check, facts = check_scanned(scanned)
    assert not check.problems and scanned.event is not None
    assert facts.file_name == name and facts.where == events  # not built yet
    assert facts.path == events / name and facts.file_name is None and facts.where == facts.path


def test_problems_name_the_files_as_before(tmp_path: Path) -> None:
    conv = tmp_path / "conv"
    shutil.copytree(FIXTURES / "bad" / "file_name_id_mismatch", conv)
    report = validate_conversation(conv)
    assert report.problems
    for problem in report.problems:
        assert isinstance(problem.path, Path)
        assert problem.path == conv or conv in problem.path.parents
