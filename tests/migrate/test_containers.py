"""Container detection: every V0 container the spec lists, and bad input as skip records."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.migrate._helpers import SYN, V0, migrate, migrate_all
from trajkit.migrate import SkippedInput
from trajkit.shapes import ShapeRef, shape_of, shape_refs


def test_cli_trajectory_list_is_a_json_list():
    conv = migrate(V0 / "basic.json")
    assert conv.report.container == "json-list"
    assert conv.report.shape == "flat"
    assert conv.name == "basic"
    assert sum(conv.report.source_types.values()) == 4


def test_gui_download_list_with_environment_events():
    conv = migrate(V0 / "basic_gui_mode.json")
    assert conv.report.container == "json-list"
    assert conv.report.source_types["observation:agent_state_changed"] == 4


def test_api_response_object_is_unwrapped():
    conv = migrate(SYN / "api_response.json")
    assert conv.report.container == "api-response"
    assert [e.kind for e in conv.events][:2] == ["MessageEvent", "ActionEvent"]


def test_session_folder_reads_events_in_numeric_order():
    conv = migrate(SYN / "sessions" / "0123456789abcdef0123456789abcdef")
    assert conv.report.container == "session-folder"
    v0_ids = [e["v0_id"] for e in conv.sidecar["events"]]
    assert v0_ids == list(range(12))  # 10.json and 11.json after 9.json, not after 1.json
    # The V0 session id becomes the V1 conversation id.
    assert conv.id == "01234567-89ab-cdef-0123-456789abcdef"
    assert conv.base_state.tags == {"title": "Count to four"}
    assert conv.sidecar["metadata"]["llm_model"] == "anthropic/claude-3-7-sonnet-20250219"


def test_real_session_folder_single_line_files():
    conv = migrate(V0 / "sessions" / "63b4315947a049e2b7a51249b3d4fcc3")
    assert conv.id == "63b43159-47a0-49e2-b7a5-1249b3d4fcc3"
    assert [e["v0_id"] for e in conv.sidecar["events"]] == list(range(14))
    assert conv.base_state.agent.llm.model == "anthropic/claude-3-7-sonnet-20250219"


def test_agent_state_pickle_is_skipped_with_a_warning_and_never_opened(monkeypatch):
    import pickle

    def refuse(*args, **kwargs):
        raise AssertionError("migrate must never unpickle")

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    opened: list[str] = []
    real_open = Path.open

    def spy_open(self: Path, *args, **kwargs):
        opened.append(self.name)
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", spy_open)
    real_read = Path.read_bytes
    monkeypatch.setattr(
        Path, "read_bytes", lambda self: (opened.append(self.name), real_read(self))[1]
    )
    conv = migrate(SYN / "sessions" / "0123456789abcdef0123456789abcdef")
    assert "agent_state.pkl" not in opened
    assert any("agent_state.pkl skipped" in w for w in conv.report.warnings)


def test_event_cache_pages_are_ignored():
    conv = migrate(SYN / "sessions" / "0123456789abcdef0123456789abcdef")
    assert "note" not in json.dumps(conv.sidecar["events"])  # the cache page holds {"note": ...}


def test_multi_user_layout_is_found_by_walking(tmp_path):
    target = tmp_path / "users" / "u1" / "conversations" / "0123456789abcdef0123456789abcdef"
    shutil.copytree(SYN / "sessions" / "0123456789abcdef0123456789abcdef", target)
    out = migrate_all(tmp_path)
    assert len(out) == 1 and not isinstance(out[0], SkippedInput)


def test_eval_jsonl_one_conversation_per_line_named_after_instance_id():
    out = migrate_all(SYN / "eval_output.jsonl")
    assert [c.name for c in out] == ["django__django-11099", "astropy__astropy-12907"]
    pairs, flat = out
    assert pairs.report.container == "eval-jsonl" and pairs.report.shape == "pairs"
    assert flat.report.shape == "flat"
    assert pairs.source.endswith("eval_output.jsonl#django__django-11099")  # its address
    assert pairs.base_state.tags == {"title": "django__django-11099"}
    assert pairs.base_state.agent.llm.model == "openai/gpt-4o"
    assert pairs.base_state.max_iterations == 30


def test_jsonl_is_read_line_by_line(tmp_path):
    # Handles carry one line's place each (no bytes) and come before the rest is read; a
    # repeated instance_id gives the later records their line number as key.
    src = tmp_path / "output.jsonl"
    line = (SYN / "eval_output.jsonl").read_bytes().splitlines(keepends=True)[1]
    src.write_bytes(line * 5)
    it = shape_refs(src)
    assert it is not None
    first = next(it)
    assert isinstance(first, ShapeRef) and first.line == 1 and first.span == (0, len(line))
    assert first.label == f"{src}#astropy__astropy-12907"
    assert [(i.line, i.key) for i in it] == [(2, "2"), (3, "3"), (4, "4"), (5, "5")]


def test_resolver_records_are_detected_as_lossy():
    conv = migrate(SYN / "resolver_output.jsonl")
    assert conv.report.shape == "resolver"
    assert conv.name == "42"
    assert any("lossy resolver records" in w for w in conv.report.warnings)


def test_single_eval_record_json_file(tmp_path):
    record = json.loads((SYN / "eval_output.jsonl").read_text().splitlines()[1])
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record, indent=2))
    conv = migrate(path)
    assert conv.report.container == "eval-record"
    assert conv.name == "astropy__astropy-12907"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (V0 / "basic.json", "v0-json"),
        (SYN / "eval_output.jsonl", "v0-jsonl"),
        (SYN / "sessions" / "0123456789abcdef0123456789abcdef", "v0-session"),
        (SYN / "sessions", None),
    ],
)
def test_registry_picks_the_container(path, expected):
    assert shape_of(path) == expected


# -- bad input ----------------------------------------------------------------------------


def _skip(path: Path) -> SkippedInput:
    out = migrate_all(path)
    assert len(out) == 1 and isinstance(out[0], SkippedInput), out
    return out[0]


def test_not_json_is_skipped_naming_the_file():
    skip = _skip(SYN / "bad" / "not_json.json")
    assert skip.path.endswith("not_json.json")
    assert "not valid JSON" in skip.message and "expected a JSON list of V0 events" in skip.message


def test_json_that_is_no_trajectory_is_skipped():
    skip = _skip(SYN / "bad" / "not_a_trajectory.json")
    assert "not a V0 trajectory" in skip.message
    assert "object with keys name, version" in skip.message


def test_truncated_file_is_reported_as_truncated():
    skip = _skip(SYN / "bad" / "truncated.json")
    assert "looks truncated" in skip.message


def test_broken_jsonl_line_is_reported_and_the_others_migrate():
    out = migrate_all(SYN / "bad" / "broken_line.jsonl")
    assert [type(o).__name__ for o in out] == [
        "MigratedConversation",
        "SkippedInput",
        "MigratedConversation",
        "SkippedInput",
    ]
    # each record's address: its instance_id (the line number for the repeat on line 3)
    assert out[1].path.endswith("broken_line.jsonl#astropy__astropy-12907")
    assert "not valid JSON" in out[1].message
    assert out[2].source.endswith("broken_line.jsonl#3")
    assert out[3].path.endswith("broken_line.jsonl#no-history") and "'history'" in out[3].message


def test_empty_file_missing_path_and_empty_folder(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("")
    assert "empty" in _skip(empty).message
    assert _skip(tmp_path / "nope.json").message == "no such file or folder"
    folder = tmp_path / "nothing"
    folder.mkdir()
    assert "no conversation found here" in _skip(folder).message


def test_empty_list_is_no_trajectory(tmp_path):
    path = tmp_path / "t.json"
    path.write_text("[]")
    assert "found an empty list" in _skip(path).message


def test_items_that_are_not_events_are_reported_not_fatal(tmp_path):
    events = json.loads((V0 / "basic.json").read_text())
    path = tmp_path / "t.json"
    path.write_text(json.dumps([*events, 42, {"foo": 1}]))
    conv = migrate(path)
    assert conv.report.dropped_by_reason == {"not an event": 2}
    assert any("/4: skipped an item" in w for w in conv.report.warnings)


def test_a_v1_conversation_folder_is_not_migrated(tmp_path):
    from tests.support.fixtures import sdk_conversation
    from trajkit.migrate import migrate_paths

    folder = sdk_conversation("b_terminal")
    assert migrate_all(folder) == []  # no V0 in it
    (skip,) = migrate_paths([folder], tmp_path / "out")
    assert isinstance(skip, SkippedInput)
    assert (
        skip.message == "already a V1 conversation folder in the current format; nothing to migrate"
    )


def test_symlink_loops_end_and_the_output_folder_is_not_walked(tmp_path):
    from trajkit.migrate import Migrated, migrate_paths

    shutil.copy(V0 / "basic.json", tmp_path / "basic.json")
    (tmp_path / "loop").symlink_to(tmp_path)
    out = tmp_path / "out"
    first = list(migrate_paths([tmp_path], out))
    assert [type(o) for o in first] == [Migrated]
    # Running again over the same folder does not meet its own output folder.
    again = list(migrate_paths([tmp_path], out, overwrite=True))
    assert [type(o) for o in again] == [Migrated]


def test_compact_single_line_files_are_read_whole(tmp_path):
    wrapped = {"trajectory": json.loads((V0 / "basic.json").read_text())}
    path = tmp_path / "compact.json"
    path.write_text(json.dumps(wrapped) + "\n")
    assert migrate(path).report.container == "api-response"


def test_json_lines_under_a_json_name_get_a_hint(tmp_path):
    line = (SYN / "eval_output.jsonl").read_text().splitlines()[1]
    path = tmp_path / "out.json"
    path.write_text(" " * 5000 + line + "\n" + line + "\n")  # read as JSON lines
    assert [c.name for c in migrate_all(path)] == ["astropy__astropy-12907"] * 2
    path.write_text(" " * 70_000 + line + "\n" + line + "\n")  # first line longer than the sniff
    assert "name it *.jsonl" in _skip(path).message
