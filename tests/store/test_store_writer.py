"""Appending events and saving base state: atomic, locked, never colliding across processes."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import stat
import uuid
from pathlib import Path

import orjson
import pytest

from tests.support import fixtures as fx
from trajkit.errors import InputError, StoreConflict, UnsafePath
from trajkit.store.layout import folder_name
from trajkit.store.reader import open_conversation
from trajkit.store.writer import ConversationWriter


def _event_json(event_id: str, text: str = "hi", parent_id: str | None = None) -> bytes:
    data = {
        "id": event_id,
        "timestamp": "2026-11-29T09:00:00.000000",
        "source": "user",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": text}]},
        "kind": "MessageEvent",
    }
    if parent_id is not None:
        data["parent_id"] = parent_id
    return orjson.dumps(data)


def _events_dir_names(folder: Path) -> list[str]:
    return sorted(os.listdir(folder / "events"))


def test_rewriting_every_fixture_gives_the_same_files(tmp_path, sdk_scenario):
    """Parsed events appended by the writer land under the SDK's names, byte for byte."""
    src = fx.sdk_conversation(sdk_scenario)
    conv = open_conversation(src)
    writer = ConversationWriter(tmp_path / folder_name(conv.id))
    assert writer.folder == tmp_path / src.name
    indices = [writer.append(event) for event in conv.iter_events()]
    writer.save_base_state(conv.base_state_raw() or b"")
    originals = list(conv.iter_event_files())
    assert indices == [f.index for f in originals]
    for f in originals:
        assert (writer.events_dir / f.path.name).read_bytes() == f.path.read_bytes()
    assert (writer.folder / "base_state.json").read_bytes() == (
        src / "base_state.json"
    ).read_bytes()
    # Same sidecars as the SDK leaves: the lock and one marker naming the count.
    assert [n for n in _events_dir_names(writer.folder) if n.startswith(".")] == [
        f".eventlog-len-{len(originals)}.marker",
        ".eventlog.lock",
    ]


def test_save_base_state_accepts_the_model(tmp_path):
    src = fx.sdk_conversation("a_text")
    state = open_conversation(src).base_state()
    assert state is not None
    writer = ConversationWriter(tmp_path / "c")
    writer.save_base_state(state)
    written = orjson.loads((writer.folder / "base_state.json").read_bytes())
    assert written == orjson.loads((src / "base_state.json").read_bytes())
    assert stat.S_IMODE((writer.folder / "base_state.json").stat().st_mode) == 0o600
    assert os.listdir(writer.folder) == ["base_state.json"]  # no temp file left


def test_append_moves_the_length_marker_and_leaves_no_temp(tmp_path):
    writer = ConversationWriter(tmp_path)
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    assert writer.append_json(first, _event_json(first)) == 0
    assert _events_dir_names(tmp_path) == [
        ".eventlog-len-1.marker",
        ".eventlog.lock",
        f"event-00000-{first}.json",
    ]
    assert writer.append_json(second, _event_json(second, parent_id=first), parent_id=first) == 1
    assert _events_dir_names(tmp_path) == [
        ".eventlog-len-2.marker",
        ".eventlog.lock",
        f"event-00000-{first}.json",
        f"event-00001-{second}.json",
    ]


def test_duplicate_id_and_unknown_parent_are_refused(tmp_path):
    writer = ConversationWriter(tmp_path)
    eid = str(uuid.uuid4())
    writer.append_json(eid, _event_json(eid))
    with pytest.raises(StoreConflict, match="already exists"):
        writer.append_json(eid, _event_json(eid))
    # A second writer (another process would be the same) sees the file on disk.
    with pytest.raises(StoreConflict, match="already exists"):
        ConversationWriter(tmp_path).append_json(eid, _event_json(eid))
    other = str(uuid.uuid4())
    with pytest.raises(StoreConflict, match="names no event"):
        writer.append_json(other, _event_json(other), parent_id=str(uuid.uuid4()))
    assert writer.append_json(other, _event_json(other), parent_id="__root__") == 1
    assert len(list(open_conversation(tmp_path).iter_event_files())) == 2


@pytest.mark.parametrize(
    "bad", ["../../escape-aaaaaaaa", "/tmp/abs-aaaaaaaa", "a/b/c-aaaaaaaa", ".."]
)
def test_ids_that_escape_the_folder_are_refused(tmp_path, bad):
    folder = tmp_path / "conv"
    with pytest.raises(UnsafePath) as info:
        ConversationWriter(folder).append_json(bad, b"{}")
    assert info.value.path == str(folder / "events")
    assert sorted(p.name for p in tmp_path.rglob("*")) == []  # nothing written anywhere


def test_unreadable_id_is_refused(tmp_path):
    with pytest.raises(InputError, match="hex digits and dashes"):
        ConversationWriter(tmp_path).append_json("evt_1", b"{}")


def test_writers_see_each_others_appends(tmp_path):
    a, b = ConversationWriter(tmp_path), ConversationWriter(tmp_path)
    ids = [str(uuid.uuid4()) for _ in range(4)]
    assert a.append_json(ids[0], _event_json(ids[0])) == 0
    assert b.append_json(ids[1], _event_json(ids[1])) == 1  # b never synced: rescans
    assert a.append_json(ids[2], _event_json(ids[2])) == 2  # a's marker is gone: rescans
    assert a.append_json(ids[3], _event_json(ids[3])) == 3  # a's marker matches: no rescan
    assert [f.event_id for f in open_conversation(tmp_path).iter_event_files()] == ids


def test_append_after_a_gap_never_reuses_an_index(tmp_path):
    folder = tmp_path / "c"
    shutil.copytree(fx.sdk_conversation("a_text"), folder)
    middle = sorted((folder / "events").glob("event-00001-*"))[0]
    middle.unlink()  # indices now 0, 2
    eid = str(uuid.uuid4())
    assert ConversationWriter(folder).append_json(eid, _event_json(eid)) == 3
    assert [f.index for f in open_conversation(folder).iter_event_files()] == [0, 2, 3]


def test_append_continues_an_sdk_log_and_its_marker(tmp_path):
    folder = tmp_path / "c"
    shutil.copytree(fx.sdk_conversation("b_terminal"), folder)
    eid = str(uuid.uuid4())
    assert ConversationWriter(folder).append_json(eid, _event_json(eid)) == 6
    markers = [n for n in _events_dir_names(folder) if n.endswith(".marker")]
    assert markers == [".eventlog-len-7.marker"]


def _append_many(folder: str, tag: str, n: int, queue, go) -> None:
    writer = ConversationWriter(folder)
    go.wait(60)  # start together, so the appends interleave
    results = []
    for i in range(n):
        eid = str(uuid.uuid4())
        results.append((writer.append_json(eid, _event_json(eid, f"{tag}-{i}")), eid))
    queue.put(results)


def test_two_processes_appending_500_each_lose_nothing(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    queue, go = ctx.Queue(), ctx.Event()
    procs = [
        ctx.Process(target=_append_many, args=(str(tmp_path), tag, 500, queue, go)) for tag in "ab"
    ]
    for p in procs:
        p.start()
    go.set()
    results = [queue.get(timeout=240) for _ in procs]
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    returned = sorted(r for rs in results for r in rs)
    assert [index for index, _ in returned] == list(range(1000))
    files = list(open_conversation(tmp_path).iter_event_files())
    assert [(f.index, f.event_id) for f in files] == returned
    texts = [e.llm_message.content[0].text for e in open_conversation(tmp_path).iter_events()]
    for tag in "ab":  # each process's events are all there, in its own order
        assert [t for t in texts if t.startswith(tag)] == [f"{tag}-{i}" for i in range(500)]
    assert [n for n in _events_dir_names(tmp_path) if n.startswith(".")] == [
        ".eventlog-len-1000.marker",
        ".eventlog.lock",
    ]


_KILLED_WRITER = """
import sys, uuid
from trajkit.store.writer import ConversationWriter
from tests.store.test_store_writer import _event_json
writer = ConversationWriter(sys.argv[1])
print("ready", flush=True)
while True:
    eid = str(uuid.uuid4())
    writer.append_json(eid, _event_json(eid, "x" * 50_000))
    writer.save_base_state(b'{"leaf_event_id": "%s", "pad": "%s"}' % (eid.encode(), b"y" * 50_000))
"""


@pytest.mark.parametrize("delay", [0.1, 0.25, 0.5])
def test_killed_writer_leaves_only_whole_files(tmp_path, delay):
    """SIGKILL a process mid-append: every file left is whole; leftovers are only *.tmp."""
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(tmp_path)],
        stdout=subprocess.PIPE,
        cwd=fx.REPO,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    time.sleep(delay)
    proc.kill()
    proc.wait(timeout=10)
    conv = open_conversation(tmp_path)
    files = list(conv.iter_event_files())
    assert files, "the writer was killed before its first append; raise the delay"
    assert [f.index for f in files] == list(range(len(files)))
    assert len(list(conv.iter_events())) == len(files)  # every event file parses
    if (tmp_path / "base_state.json").exists():  # whole, whichever version it is
        assert len(orjson.loads((tmp_path / "base_state.json").read_bytes())["pad"]) == 50_000
    strays = [n for n in os.listdir(tmp_path / "events") if n.startswith(".")]
    assert all(n.endswith((".tmp", ".marker", ".lock")) for n in strays)
    # And the log can be continued after the crash.
    eid = str(uuid.uuid4())
    assert ConversationWriter(tmp_path).append_json(eid, _event_json(eid)) == len(files)
