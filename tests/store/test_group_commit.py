"""Group commit: appends inside `writer.group_commit()` share one fsync of `events/`.

Each file is still whole, fsynced and renamed into place before `append` returns, so a killed
process loses no event whose append returned; only the folder's own fsync waits for the end
of the block. fsync calls are counted with a wrapper that still calls the real `os.fsync`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import orjson
import pytest

from tests.support import fixtures as fx
from tests.support.llm_server import llm_server  # noqa: F401  (pytest fixture)
from trajkit.store import atomic
from trajkit.store.reader import open_conversation
from trajkit.store.writer import ConversationWriter


def _event_json(event_id: str, parent_id: str | None = None) -> bytes:
    data = {
        "id": event_id,
        "timestamp": "2026-11-29T09:00:00.000000",
        "source": "user",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    }
    if parent_id is not None:
        data["parent_id"] = parent_id
    return orjson.dumps({**data, "kind": "MessageEvent"})


@pytest.fixture
def fsyncs(monkeypatch):
    """The paths fsynced, in order (the real fsync still runs)."""
    seen: list[str] = []
    real = os.fsync

    def counting(fd: int) -> None:
        seen.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(atomic.os, "fsync", counting)
    return seen


def _append(writer: ConversationWriter, n: int) -> list[str]:
    ids = []
    for _ in range(n):
        eid = str(uuid.uuid4())
        writer.append_json(eid, _event_json(eid))
        ids.append(eid)
    return ids


def test_a_group_fsyncs_each_file_and_the_folder_once(tmp_path, fsyncs):
    writer = ConversationWriter(tmp_path)
    events = str(tmp_path / "events")
    _append(writer, 1)
    assert fsyncs.count(events) == 1  # outside a group: once per append
    fsyncs.clear()
    with writer.group_commit():
        _append(writer, 3)
        assert fsyncs.count(events) == 0
        assert len([p for p in fsyncs if p.endswith(".tmp")]) == 3  # every file itself
    assert fsyncs.count(events) == 1
    assert fsyncs[-1] == events  # the folder last, once the block ends
    assert len(list(open_conversation(tmp_path).iter_events())) == 4


def test_inside_a_group_each_event_is_whole_and_visible_when_append_returns(tmp_path):
    writer = ConversationWriter(tmp_path)
    with writer.group_commit():
        for n, eid in enumerate(_append(writer, 1) + _append(writer, 1), start=1):
            events = list(open_conversation(tmp_path).iter_events())
            assert len(events) >= n and eid in {e.id for e in events}
        names = os.listdir(tmp_path / "events")
        assert not [n for n in names if n.endswith(".tmp")]
        assert ".eventlog-len-2.marker" in names


def test_nested_groups_and_errors_still_fsync_at_the_outer_end(tmp_path, fsyncs):
    writer = ConversationWriter(tmp_path)
    events = str(tmp_path / "events")
    with pytest.raises(RuntimeError), writer.group_commit():
        with writer.group_commit():
            _append(writer, 2)
        assert fsyncs.count(events) == 0
        raise RuntimeError("the step failed")
    assert fsyncs.count(events) == 1
    with writer.group_commit():  # nothing appended: no fsync
        pass
    assert fsyncs.count(events) == 1


def test_another_threads_appends_fsync_themselves(tmp_path, fsyncs):
    writer = ConversationWriter(tmp_path)
    events = str(tmp_path / "events")
    inside, done = threading.Event(), threading.Event()

    def other() -> None:
        assert inside.wait(30)
        with writer.group_commit():  # a block of its own while the first is open
            _append(writer, 2)
        done.set()

    thread = threading.Thread(target=other)
    thread.start()
    with writer.group_commit():
        _append(writer, 1)
        inside.set()
        assert done.wait(30)
        assert fsyncs.count(events) == 2  # the other thread's two appends, each its own
    thread.join(30)
    assert fsyncs.count(events) == 3


_KILLED_IN_A_GROUP = """
import sys, uuid, orjson
from trajkit.store.writer import ConversationWriter
writer = ConversationWriter(sys.argv[1])
with writer.group_commit():
    parent = None
    while True:
        eid = str(uuid.uuid4())
        data = {"id": eid, "timestamp": "2026-11-29T09:00:00", "source": "user",
                "llm_message": {"role": "user", "content": []}, "kind": "MessageEvent"}
        if parent:
            data["parent_id"] = parent
        writer.append_json(eid, orjson.dumps(data), parent_id=parent)
        print(eid, flush=True)  # reported once append returned
        parent = eid
"""


@pytest.mark.parametrize("appends", [1, 7, 40])
def test_a_process_killed_inside_a_group_loses_no_returned_append(tmp_path, appends):
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_IN_A_GROUP, str(tmp_path)],
        stdout=subprocess.PIPE,
        cwd=fx.REPO,
        text=True,
    )
    assert proc.stdout is not None
    returned = [proc.stdout.readline().strip() for _ in range(appends)]
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    returned += [line.strip() for line in proc.stdout if line.strip()]
    proc.stdout.close()
    conv = open_conversation(Path(tmp_path))
    on_disk = [e.id for e in conv.iter_events()]
    assert set(returned) <= set(on_disk)
    files = list(conv.iter_event_files())
    assert [f.index for f in files] == list(range(len(files)))
    eid = str(uuid.uuid4())  # the log goes on after the kill
    assert ConversationWriter(tmp_path).append_json(eid, _event_json(eid)) == len(files)


def test_a_run_fsyncs_events_once_per_step_and_before_the_step_saves_its_state(
    tmp_path,
    llm_server,  # noqa: F811 (the fixture imported above)
    fsyncs,
):
    from tests.sdk.helpers import make_agent
    from trajkit.sdk import Conversation

    llm_server.enqueue_tool_calls(
        [("terminal", {"command": "echo one"}), ("terminal", {"command": "echo two"})],
        text="Two at once.",
    )
    llm_server.enqueue_tool_call("finish", {"message": "done"})
    (tmp_path / "ws").mkdir()
    conv = Conversation(
        agent=make_agent(llm_server, tools=("terminal",)),
        workspace=tmp_path / "ws",
        persistence_dir=tmp_path / "convs",
        visualizer=None,
    )
    try:
        conv.send_message("Echo twice.")
        events_dir = str(Path(conv.state.persistence_dir) / "events")
        fsyncs.clear()
        conv.run()
    finally:
        conv.close()
    assert conv.state.execution_status == "finished"
    event_files = [p for p in fsyncs if os.path.dirname(p) == events_dir and p.endswith(".tmp")]
    assert len(event_files) >= 6  # 2 actions + 2 observations, finish and its observation
    assert fsyncs.count(events_dir) < len(event_files)  # shared within each step
    unsynced = 0  # event files renamed since the last fsync of events/
    for path in fsyncs:
        if path in event_files:
            unsynced += 1
        elif path == events_dir:
            unsynced = 0
        elif os.path.basename(path).startswith(".base_state.json."):
            assert unsynced == 0, "base_state.json saved before the step's events were synced"
    assert unsynced == 0
