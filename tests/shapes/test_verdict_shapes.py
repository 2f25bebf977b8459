"""One verdict on invalid conversations, whatever their shape (issue 16: export, convert and
validate agree): an evaluation record, an events array, JSONL, a baseState document, a folder of
bare event files, an archive folder, and a V0 input through its migration.

Each invalid sample holds an observation answering an action it does not hold (validate:
"names no event of this conversation"). Export skips it with validate's first error, or keeps it
with `--keep-invalid` and the errors in the row's `problems`; convert does the same.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.support import fixtures as fx
from tests.support.cli import run_trajkit
from trajkit.shapes.memory import MemoryConversation
from trajkit.validate.verdict import conversation_errors, verdict_errors

SHAPES = fx.FIXTURES / "shapes"
REPO = Path(__file__).resolve().parents[2]
MISSING = "a" * 8 + "-0000-4000-8000-" + "0" * 12
REASON = f"names no event of this conversation ('{MISSING}')"


def _events() -> list[dict[str, object]]:
    events: list[dict[str, object]] = json.loads((SHAPES / "events.json").read_text())
    return events


def _broken(events: list[dict[str, object]]) -> list[dict[str, object]]:
    """The events with the first observation answering an action that is not there."""
    out = [dict(e) for e in events]
    first = next(e for e in out if e["kind"] == "ObservationEvent")
    first["action_id"] = MISSING
    return out


def _eval(tmp: Path) -> Path:
    path = tmp / "output.jsonl"
    lines = (SHAPES / "eval_output.jsonl").read_text().splitlines()
    record = json.loads(lines[1])
    record["history"] = _broken(record["history"])
    path.write_text(lines[0] + "\n" + json.dumps(record) + "\n")
    return path


def _array(tmp: Path) -> Path:
    path = tmp / "events.json"
    path.write_text(json.dumps(_broken(_events())))
    return path


def _jsonl(tmp: Path) -> Path:
    path = tmp / "events.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in _broken(_events())))
    return path


def _state_doc(tmp: Path) -> Path:
    doc = json.loads((SHAPES / "state_doc.json").read_text())
    doc["events"] = _broken(doc["events"])
    path = tmp / "state_doc.json"
    path.write_text(json.dumps(doc))
    return path


def _bare(tmp: Path) -> Path:
    folder = tmp / "bare"
    folder.mkdir()
    for i, e in enumerate(_broken(_events())):
        (folder / f"event-{i:05d}-{e['id']}.json").write_text(json.dumps(e))
    return folder


def _archive(tmp: Path) -> Path:
    path = tmp / "download.zip"
    hexname = "5a3e0c8d2f1b4e6a9c7d1e2f3a4b5c6d"
    source = SHAPES / "old_sdk" / hexname
    with zipfile.ZipFile(path, "w") as zf:
        zf.write(source / "base_state.json", f"{hexname}/base_state.json")
        files = sorted((source / "events").iterdir())
        events = _broken([json.loads(f.read_text()) for f in files])
        for f, e in zip(files, events, strict=True):
            zf.writestr(f"{hexname}/events/{f.name}", json.dumps(e))
    return path


MAKERS: dict[str, Callable[[Path], Path]] = {
    "eval-v1": _eval,
    "events-json": _array,
    "events-jsonl": _jsonl,
    "state-doc": _state_doc,
    "bare-events": _bare,
    "archive": _archive,
}


@pytest.mark.parametrize("shape", sorted(MAKERS))
def test_the_shared_verdict_sees_the_error(shape: str, tmp_path: Path) -> None:
    from trajkit.shapes import shape_refs

    path = MAKERS[shape](tmp_path)
    refs = list(shape_refs(path) or [])
    assert refs and refs[-1].shape == shape
    errors = conversation_errors(refs[-1])
    assert len(errors) == 1 and REASON in errors[0], errors
    validate = run_trajkit("validate", path)
    assert validate.returncode == 1 and REASON in validate.stdout + validate.stderr


@pytest.mark.parametrize("shape", sorted(MAKERS))
def test_export_skips_it_with_the_reason_or_keeps_it_with_its_problems(
    shape: str, tmp_path: Path
) -> None:
    path = MAKERS[shape](tmp_path)
    skipped = run_trajkit("export", path, "-o", tmp_path / "ds")
    assert skipped.returncode == 1
    assert f"{REASON}; invalid, skipped (--keep-invalid keeps it)" in skipped.stderr
    assert "Traceback" not in skipped.stderr
    kept = run_trajkit("export", path, "-o", tmp_path / "kept", "--keep-invalid")
    assert kept.returncode == 0, kept.stderr
    rows = pq.read_table(tmp_path / "kept" / "conversations").to_pylist()
    invalid = [r for r in rows if any(REASON in p for p in r["problems"])]
    assert len(invalid) == 1
    assert len(rows) == (2 if shape == "eval-v1" else 1)  # the valid record is exported as ever


@pytest.mark.parametrize("shape", sorted(MAKERS))
def test_convert_skips_it_with_the_reason_or_keeps_it(shape: str, tmp_path: Path) -> None:
    path = MAKERS[shape](tmp_path)
    out = tmp_path / "out.jsonl"
    skipped = run_trajkit("convert", path, "-o", out)
    assert skipped.returncode == 1
    assert f"{REASON}; invalid, skipped (--keep-invalid keeps it)" in skipped.stderr
    kept = run_trajkit("convert", path, "-o", tmp_path / "kept.jsonl", "--keep-invalid")
    assert kept.returncode == 0, kept.stderr
    assert f"{REASON} (kept: --keep-invalid)" in kept.stderr


def test_a_v0_input_is_judged_by_its_migration() -> None:
    from trajkit.shapes import ShapeRef, resolve_inputs

    (v0,) = resolve_inputs([fx.FIXTURES / "v0" / "cli_edit_and_finish.json"])
    assert isinstance(v0, ShapeRef) and v0.shape == "v0-json"
    assert conversation_errors(v0) == []  # migrates to a valid conversation
    # a migrated conversation that is not valid (the check runs on the migration's events)
    events = _broken(_events())
    state = json.loads((SHAPES / "state_doc.json").read_text())["baseState"]
    conv = MemoryConversation(
        "old.json", conversation_id=str(state["id"]), state=state, events=events
    )
    from trajkit.validate.conversation import ConversationReport
    from trajkit.validate.shapes import opened_problems

    where = Path("old.json")
    report = ConversationReport(where)
    errors = verdict_errors(opened_problems(conv, report, where, Path("old.json#/baseState")))
    assert len(errors) == 1 and REASON in errors[0]
