"""Writing migrated folders: layout, validate, convert, determinism, overwrite, no partial folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.migrate._helpers import SYN, V0, V0_FILES, migrate
from trajkit.convert import convert_conversation
from trajkit.convert.options import ConversionOptions
from trajkit.engine import LocalEngine
from trajkit.migrate import Migrated, SkippedInput, migrate_paths, write_conversation
from trajkit.store import open_conversation
from trajkit.validate import validate_conversation

ALL_INPUTS = [*V0_FILES, SYN]


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> tuple[Path, list[Migrated | SkippedInput]]:
    out = tmp_path_factory.mktemp("migrated")
    outcomes = list(
        migrate_paths(
            [V0, SYN / "every_type.json", SYN / "multi_call_response.json"],
            out,
            engine=LocalEngine(2),
        )
    )
    return out, outcomes


def test_every_fixture_migrates(written):
    out, outcomes = written
    assert all(isinstance(o, Migrated) for o in outcomes), outcomes
    assert len(outcomes) == 8
    for o in outcomes:
        folder = Path(o.folder)
        assert folder.parent == out and len(folder.name) == 32
        names = sorted(p.name for p in folder.iterdir())
        assert names == ["base_state.json", "events", "migration_report.json", "v0_sidecar.json"]
        report = json.loads((folder / "migration_report.json").read_text())
        assert report == o.report and report["conversation_id"] == o.conversation_id


def test_every_output_folder_passes_validate(written):
    out, _ = written
    for folder in sorted(out.iterdir()):
        report = validate_conversation(folder, thorough=True)
        errors = [str(p) for p in report.problems if p.severity == "error"]
        assert errors == [], folder
        assert report.events == len(list((folder / "events").iterdir()))


def test_folders_read_back_through_the_store(written):
    out, outcomes = written
    for o in outcomes:
        conv = open_conversation(o.folder)
        assert conv.id == o.conversation_id
        state = conv.base_state()
        assert state.persistence_dir == str(Path(o.folder).resolve())
        assert len(list(conv.iter_events())) == o.events
        assert state.leaf_event_id is not None


def _v0_calls(path: Path) -> list[str]:
    """Tool-call ids of V0 actions that had tool-call metadata (source: agent)."""
    if path.is_dir():
        events = [json.loads(p.read_text()) for p in (path / "events").iterdir()]
    else:
        events = json.loads(path.read_text())
    return [
        e["tool_call_metadata"]["tool_call_id"]
        for e in events
        if "action" in e and "tool_call_metadata" in e
    ]


@pytest.mark.parametrize(
    "path",
    [*V0_FILES, SYN / "every_type.json", SYN / "multi_call_response.json"],
    ids=lambda p: p.name,
)
def test_chat_conversion_answers_one_call_per_v0_action(written, path):
    out, outcomes = written
    (o,) = [x for x in outcomes if isinstance(x, Migrated) and Path(x.source) == path]
    chat = convert_conversation(o.folder, options=ConversionOptions(view="full"))
    messages = chat["messages"]
    calls = [c for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    v0_calls = _v0_calls(path)
    hidden_or_delegated = {"every_type.json": 1}.get(path.name, 0)  # V0 id 40 is hidden
    assert len(calls) == len(v0_calls) - hidden_or_delegated + _synthesized_calls(o)
    # Each call is answered by the tool message right after its assistant turn.
    for i, m in enumerate(messages):
        if m["role"] != "assistant" or not m.get("tool_calls"):
            continue
        wanted = [c["id"] for c in m["tool_calls"]]
        answers = [x["tool_call_id"] for x in messages[i + 1 : i + 1 + len(wanted)]]
        assert answers == wanted
    assert [p for p in chat["problems"] if "dangling" in p or "unanswered" in p] == []
    # Original ids survive (repeated ones get a suffix).
    assert all(
        c["id"].split("_v0_")[0] in v0_calls or c["id"].startswith("v0-call-") for c in calls
    )


def _synthesized_calls(o: Migrated) -> int:
    text = " ".join(o.report["warnings"])
    if "tool call synthesized" not in text:
        return 0
    w = next(w for w in o.report["warnings"] if w.startswith("tool call synthesized"))
    return int(w.rsplit("(x", 1)[1].rstrip(")")) if "(x" in w else 1


def test_migrating_twice_gives_identical_bytes(tmp_path):
    first = list(
        migrate_paths([V0 / "tls_scanner__trajectory.json"], tmp_path, engine=LocalEngine(1))
    )
    before = _tree(tmp_path)
    again = list(
        migrate_paths(
            [V0 / "tls_scanner__trajectory.json"], tmp_path, overwrite=True, engine=LocalEngine(1)
        )
    )
    assert [o.folder for o in first] == [o.folder for o in again]
    assert _tree(tmp_path) == before


def test_existing_folder_is_kept_without_overwrite(tmp_path):
    (o,) = migrate_paths([V0 / "basic.json"], tmp_path)
    marker = Path(o.folder) / "events" / "user-note.txt"
    marker.write_text("keep me")
    (skip,) = migrate_paths([V0 / "basic.json"], tmp_path)
    assert isinstance(skip, SkippedInput)
    assert skip.message == f"already migrated to {o.folder}; pass --overwrite to replace it"
    assert marker.read_text() == "keep me"
    (again,) = migrate_paths([V0 / "basic.json"], tmp_path, overwrite=True)
    assert isinstance(again, Migrated) and not marker.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [Path(o.folder).name]


def test_a_failed_write_leaves_no_partial_folder(tmp_path, monkeypatch):
    import trajkit.migrate.run as run

    conv = migrate(V0 / "wrong_initial_state.json")
    calls = {"n": 0}
    real = run.write_new_file

    def failing(path, data):
        calls["n"] += 1
        if calls["n"] == 4:
            raise OSError(28, "No space left on device")
        return real(path, data)

    monkeypatch.setattr(run, "write_new_file", failing)
    with pytest.raises(OSError):
        write_conversation(conv, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_overwrite_keeps_the_old_folder(tmp_path, monkeypatch):
    import trajkit.migrate.run as run

    conv = migrate(V0 / "wrong_initial_state.json")
    folder = write_conversation(conv, tmp_path)
    before = _tree(folder)

    def failing(path, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(run, "write_new_file", failing)
    with pytest.raises(OSError):
        write_conversation(conv, tmp_path, overwrite=True)
    assert _tree(folder) == before
    assert [p.name for p in tmp_path.iterdir()] == [folder.name]


def test_output_path_that_is_a_file_is_refused(tmp_path):
    from trajkit.errors import InputError

    target = tmp_path / "out"
    target.write_text("x")
    with pytest.raises(InputError, match="not a folder"):
        list(migrate_paths([V0 / "basic.json"], target))


def test_parallel_jsonl_results_come_in_input_order(tmp_path):
    src = tmp_path / "output.jsonl"
    lines = (SYN / "eval_output.jsonl").read_text().splitlines()
    records = []
    for n in range(6):
        for line in lines:
            record = json.loads(line)
            record["instance_id"] = f"{record['instance_id']}-{n}"
            records.append(json.dumps(record))
    src.write_text("\n".join(records) + "\n")
    outcomes = list(migrate_paths([src], tmp_path / "out", engine=LocalEngine(2)))
    assert [o.name for o in outcomes] == [json.loads(r)["instance_id"] for r in records]
    assert len({o.folder for o in outcomes}) == 12
