"""`iter_events()` of a local folder (names from one scandir, bytes parsed once) gives what
the general loop over `event_files()` gives: the same events, the same refusals, word for word.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.support import fixtures as fx
from trajkit.errors import InputError
from trajkit.events import dump_event
from trajkit.store.reader import StoredConversation, open_conversation


def _both(folder: Path, **kwargs) -> tuple[object, object]:
    """(events or error) of the folder loop and of the general loop, for the same folder."""
    out = []
    skip_empty = kwargs.get("skip_empty", False)
    for loop in ("_scanned_events", "_events_of"):
        conv = open_conversation(folder)
        try:
            events = list(getattr(conv, loop)(skip_empty, None))
            out.append(([dump_event(e) for e in events], dict(conv.upgrades)))
        except InputError as exc:
            out.append((type(exc).__name__, exc.path, exc.pointer, exc.message))
    return out[0], out[1]


def _copy(tmp_path: Path, scenario: str = "b_terminal") -> Path:
    src = fx.sdk_conversation(scenario)
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst


def test_plain_folders_take_the_folder_loop(tmp_path, monkeypatch):
    folder = _copy(tmp_path)
    calls = []
    original = StoredConversation._scanned_events

    def spy(self, skip_empty, problems):
        calls.append(self.path)
        return original(self, skip_empty, problems)

    monkeypatch.setattr(StoredConversation, "_scanned_events", spy)
    events = list(open_conversation(folder).iter_events())
    assert calls == [folder]
    assert len(events) == len(list((folder / "events").glob("event-*.json")))


def test_every_fixture_reads_the_same_through_both_loops(sdk_scenario):
    fast, general = _both(fx.sdk_conversation(sdk_scenario))
    assert fast == general
    assert isinstance(fast, tuple) and len(fast[0]) > 0


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda p: p.write_bytes(b""), id="empty"),
        pytest.param(lambda p: p.write_bytes(b"  \n"), id="blank"),
        pytest.param(lambda p: p.write_bytes(b'{"id":'), id="truncated"),
        pytest.param(lambda p: p.write_bytes(b"\xff\xfe{}"), id="not-utf8"),
        pytest.param(lambda p: p.write_bytes(b"[1, 2]"), id="array"),
        pytest.param(lambda p: p.write_bytes(b'{"kind":"ActionEvent"}'), id="missing-fields"),
        pytest.param(
            lambda p: p.write_bytes(
                p.read_bytes().replace(b'"source":"', b'"source":"nobody","x":"', 1)
            ),
            id="extra-field",
        ),
        pytest.param(lambda p: (p.unlink(), os.mkfifo(p)), id="fifo"),
        pytest.param(lambda p: (p.unlink(), p.mkdir()), id="directory"),
    ],
)
def test_a_damaged_file_is_refused_with_the_same_words(tmp_path, damage):
    folder = _copy(tmp_path)
    victim = sorted((folder / "events").glob("event-*.json"))[3]
    damage(victim)
    fast, general = _both(folder)
    assert fast == general
    assert fast[0] in {"InputError", "NotRegularFile"}
    assert fast[1] == str(victim)


def _both_going_on(folder: Path) -> tuple[object, object]:
    """(events or None, problems) of both loops going on past unreadable files."""
    out = []
    for loop in ("_scanned_events", "_events_of"):
        conv = open_conversation(folder)
        problems: list[str] = []
        events = [e and dump_event(e) for e in getattr(conv, loop)(False, problems)]
        out.append((events, problems))
    return out[0], out[1]


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda p: p.write_bytes(b""), id="empty"),
        pytest.param(lambda p: p.write_bytes(b'{"id":'), id="truncated"),
        pytest.param(lambda p: (p.unlink(), p.mkdir()), id="directory"),
    ],
)
def test_iter_events_or_none_goes_on_with_the_words_iter_events_raises(tmp_path, damage):
    folder = _copy(tmp_path)
    victims = sorted((folder / "events").glob("event-*.json"))[3:5]
    for victim in victims:
        damage(victim)
    fast, general = _both_going_on(folder)
    assert fast == general
    events, problems = fast
    assert len(events) == len(list((folder / "events").glob("event-*.json")))
    assert [i for i, e in enumerate(events) if e is None] == [3, 4]
    with pytest.raises(InputError) as raised:
        list(open_conversation(folder).iter_events())
    assert problems[0] == str(raised.value)
    assert str(victims[1]) in problems[1]


def test_empty_files_are_skipped_alike(tmp_path):
    folder = _copy(tmp_path)
    sorted((folder / "events").glob("event-*.json"))[2].write_bytes(b"")
    fast, general = _both(folder, skip_empty=True)
    assert fast == general
    assert len(fast[0]) == len(list((folder / "events").glob("event-*.json"))) - 1


def test_links_inside_are_read_and_links_outside_refused_alike(tmp_path):
    folder = _copy(tmp_path)
    files = sorted((folder / "events").glob("event-*.json"))
    inside = folder / "kept.json"
    shutil.move(files[1], inside)
    files[1].symlink_to(inside)
    fast, general = _both(folder)
    assert fast == general
    assert len(fast[0]) == len(files)

    outside = tmp_path / "outside.json"
    shutil.move(files[2], outside)
    files[2].symlink_to(outside)
    fast, general = _both(folder)
    assert fast == general
    assert fast[:2] == ("UnsafePath", str(files[2]))


def test_an_events_folder_linked_from_outside_is_refused_alike(tmp_path):
    folder = _copy(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    shutil.move(folder / "events", elsewhere)
    (folder / "events").symlink_to(elsewhere)
    fast, general = _both(folder)
    assert fast == general
    assert fast[0] == "UnsafePath"


def test_an_older_shape_is_upgraded_and_counted_alike(tmp_path):
    folder = _copy(tmp_path)
    action = next(
        p
        for p in sorted((folder / "events").glob("event-*.json"))
        if b'"kind":"TerminalAction"' in p.read_bytes()
    )
    obj = json.loads(action.read_bytes())
    call = obj["tool_call"]
    obj["tool_call"] = {  # litellm's tool-call object (before MessageToolCall)
        "id": call["id"],
        "type": "function",
        "function": {"name": call["name"], "arguments": call["arguments"]},
    }
    action.write_bytes(json.dumps(obj, separators=(",", ":")).encode())
    fast, general = _both(folder)
    assert fast == general
    assert sum(fast[1].values()) >= 1


def test_order_sidecars_strangers_and_twins_read_alike(tmp_path):
    folder = _copy(tmp_path, "a_text")
    events = folder / "events"
    files = sorted(events.glob("event-*.json"))
    last = json.loads(files[-1].read_bytes())
    files[-1].unlink()
    ids = []
    for index in (100000, 10001, 99999):  # name order is not log order past 99999
        eid = f"{index:08x}-0000-4000-8000-000000000000"
        ids.append(eid)
        data = {**last, "id": eid}
        (events / f"event-{index:05d}-{eid}.json").write_text(
            json.dumps(data, separators=(",", ":"))
        )
    shutil.copy(files[1], events / f"event-00001-{'f' * 8}-0000-4000-8000-000000000000.json")
    for stray in (".eventlog-len-3.marker", ".x.json.tmp", "README.txt", "event-1-short.json"):
        (events / stray).write_bytes(b"")
    fast, general = _both(folder)
    assert fast == general
    read_ids = [json.loads(e)["id"] for e in fast[0]]
    assert read_ids[-3:] == [ids[1], ids[2], ids[0]]  # 10001, 99999, 100000
    assert len(read_ids) == len(files) + 3
