"""Reading conversation folders: every fixture, index order past 99999, sidecars, bad files."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest

from tests.support import fixtures as fx
from trajkit.errors import InputError
from trajkit.events import SystemPromptEvent, dump_event
from trajkit.store import reader as reader_mod
from trajkit.store.reader import open_conversation


def test_reads_every_fixture_conversation_in_order(sdk_scenario):
    conv = open_conversation(fx.sdk_conversation(sdk_scenario))
    expected = fx.sdk_expected(sdk_scenario, "event_kinds.json")
    files = list(conv.iter_event_files())
    events = list(conv.iter_events())
    assert [(f.index, f.event_id, f.path.name) for f in files] == [
        (e["index"], e["id"], e["file"]) for e in expected
    ]
    assert [(e.id, e.kind) for e in events] == [(e["id"], e["kind"]) for e in expected]
    assert isinstance(events[0], SystemPromptEvent)
    # What we parsed dumps back to the bytes the SDK wrote.
    assert [dump_event(e).encode() for e in events] == [f.path.read_bytes() for f in files]


def test_base_state_and_id_of_every_fixture(sdk_scenario):
    folder = fx.sdk_conversation(sdk_scenario)
    conv = open_conversation(folder)
    raw = conv.base_state_raw()
    assert raw == (folder / "base_state.json").read_bytes()
    state = conv.base_state()
    assert state is not None
    assert conv.id == str(uuid.UUID(hex=folder.name)) == json.loads(raw)["id"]


def test_header_is_a_cheap_summary(sdk_scenario):
    folder = fx.sdk_conversation(sdk_scenario)
    meta = fx.sdk_expected(sdk_scenario, "meta.json")
    events = [json.loads(p.read_bytes()) for p in sorted((folder / "events").glob("event-*"))]
    h = open_conversation(folder).header()
    assert h.id == str(uuid.UUID(hex=folder.name))
    assert h.n_events == meta["n_events"]
    assert h.model == meta["model"]
    assert h.execution_status == "finished"
    assert h.first_timestamp == events[0]["timestamp"]
    assert h.last_timestamp == events[-1]["timestamp"]
    assert h.accumulated_cost is not None and h.accumulated_cost > 0
    assert h.has_base_state


def _copy_fixture(tmp_path: Path, scenario: str = "b_terminal") -> Path:
    src = fx.sdk_conversation(scenario)
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst


def test_sorts_by_integer_index_past_99999_and_ignores_sidecars(tmp_path):
    folder = _copy_fixture(tmp_path, "a_text")
    events = folder / "events"
    names = sorted(p.name for p in events.glob("event-*"))
    # Renumber the last event to 100000 and add events at 99999 and 10001: name order
    # ("event-100000" < "event-10001" < "event-99999") is not log order.
    last = events / names[-1]
    data = last.read_bytes()
    last.unlink()
    ids = [str(uuid.uuid4()) for _ in range(3)]
    for index, eid in zip((10001, 99999, 100000), ids, strict=True):
        (events / f"event-{index:05d}-{eid}.json").write_bytes(
            data.replace(b'"id":"', f'"id":"{eid}","x":"'.encode(), 1)
        )
    for sidecar in (
        ".eventlog-len-3.marker",
        ".base.json.abc123.tmp",
        f".event-00009-{ids[0]}.json.x1.tmp",
    ):
        (events / sidecar).write_bytes(b"")
    (events / "README.txt").write_text("not an event")
    conv = open_conversation(folder)
    files = list(conv.iter_event_files())
    assert [f.index for f in files] == [0, 1, 10001, 99999, 100000]
    assert [f.event_id for f in files[2:]] == ids
    assert conv.listing().strangers == ["README.txt"]
    assert conv.header().n_events == 5


def test_two_files_with_one_index_are_both_listed(tmp_path):
    folder = _copy_fixture(tmp_path, "a_text")
    events = folder / "events"
    first = sorted(events.glob("event-00001-*"))[0]
    twin = events / f"event-00001-{uuid.uuid4()}.json"
    shutil.copy(first, twin)
    indices = [f.index for f in open_conversation(folder).iter_event_files()]
    assert indices == [0, 1, 1, 2]


def test_iter_events_streams_one_file_at_a_time(tmp_path):
    folder = _copy_fixture(tmp_path)
    events = sorted((folder / "events").glob("event-*"))
    events[-1].write_bytes(b'{"id": "truncated')
    it = open_conversation(folder).iter_events()
    good = [next(it) for _ in range(len(events) - 1)]  # everything before the bad file loads
    assert len(good) == len(events) - 1
    with pytest.raises(InputError) as info:
        next(it)
    assert str(info.value).startswith(f"{events[-1]}: not valid JSON")


@pytest.mark.parametrize(
    ("content", "pointer", "message"),
    [
        (b"", "", "empty file"),
        (b"\n", "", "empty file"),
        (b'{"id":', "", "not valid JSON"),
        (b"\xff\xfe{}", "", "not valid JSON"),
        (b"[1, 2]", "", "must be a JSON object"),
    ],
)
def test_bad_event_files_name_file_and_pointer(tmp_path, content, pointer, message):
    folder = _copy_fixture(tmp_path)
    bad = sorted((folder / "events").glob("event-*"))[1]
    bad.write_bytes(content)
    with pytest.raises(InputError) as info:
        list(open_conversation(folder).iter_events())
    err = info.value
    assert (err.path, err.pointer) == (str(bad), pointer)
    assert message in err.message


def test_wrong_field_type_gives_json_pointer(tmp_path):
    folder = _copy_fixture(tmp_path)
    action = next(
        p
        for p in (folder / "events").glob("event-*")
        if b'"kind":"TerminalAction"' in p.read_bytes()
    )
    data = json.loads(action.read_bytes())
    data["action"]["command"] = 42
    action.write_text(json.dumps(data, separators=(",", ":")))
    with pytest.raises(InputError) as info:
        list(open_conversation(folder).iter_events())
    assert info.value.path == str(action)
    assert info.value.pointer == "/action/command"
    assert "string" in info.value.message


def test_empty_files_can_be_skipped_like_the_sdk(tmp_path):
    folder = _copy_fixture(tmp_path)
    files = sorted((folder / "events").glob("event-*"))
    files[2].write_bytes(b"")
    events = list(open_conversation(folder).iter_events(skip_empty=True))
    assert len(events) == len(files) - 1


def test_oversized_file_is_refused_before_loading(tmp_path, monkeypatch):
    folder = _copy_fixture(tmp_path)
    big = sorted((folder / "events").glob("event-*"))[0]
    monkeypatch.setattr(reader_mod, "MAX_FILE_BYTES", 1024)
    with pytest.raises(InputError) as info:
        list(open_conversation(folder).iter_events())
    assert info.value.path == str(big)
    assert "MiB limit for one event or state file" in info.value.message
    assert "TRAJKIT_MAX_FILE_BYTES" in info.value.message


def test_sparse_200_mb_event_file_is_refused_by_default(tmp_path):
    folder = _copy_fixture(tmp_path)
    big = folder / "events" / f"event-00006-{uuid.uuid4()}.json"
    with open(big, "wb") as f:  # sparse: takes no disk space
        f.truncate(200 * 1024 * 1024)
    with pytest.raises(InputError, match="200 MiB, above the 100 MiB limit"):
        list(open_conversation(folder).iter_events())


def test_empty_and_truncated_base_state(tmp_path):
    folder = _copy_fixture(tmp_path)
    state = folder / "base_state.json"
    state.write_bytes(b"")
    assert open_conversation(folder).base_state() is None  # the SDK's "new conversation"
    state.write_bytes(b'{"id": "4a354c20-88ff-5c33-b671-d3bccd90da7a", "agent": {')
    with pytest.raises(InputError) as info:
        open_conversation(folder).base_state()
    assert info.value.path == str(state)
    # header() never fails on a damaged state: it just knows less.
    h = open_conversation(folder).header()
    assert h.model is None and h.n_events == 6 and h.has_base_state


def test_missing_base_state(tmp_path):
    folder = _copy_fixture(tmp_path)
    (folder / "base_state.json").unlink()
    conv = open_conversation(folder)
    assert conv.base_state_raw() is None and conv.base_state() is None
    assert conv.id == str(uuid.UUID(hex=folder.name))
    assert not conv.header().has_base_state


def test_open_conversation_refuses_what_is_not_one(tmp_path):
    with pytest.raises(InputError, match="no such folder"):
        open_conversation(tmp_path / "missing")
    (tmp_path / "f.json").write_text("{}")
    with pytest.raises(InputError, match="not a folder"):
        open_conversation(tmp_path / "f.json")
    with pytest.raises(InputError, match="neither events/ nor base_state.json"):
        open_conversation(tmp_path)


def test_reading_never_modifies_the_folder(tmp_path):
    folder = _copy_fixture(tmp_path)
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in folder.rglob("*") if p.is_file()}
    conv = open_conversation(folder)
    list(conv.iter_events())
    conv.base_state()
    conv.header()
    after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in folder.rglob("*") if p.is_file()}
    assert after == before
