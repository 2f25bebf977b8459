"""The store's one reading pass (`trajkit.store.scan`): one listing of `events/`, each file read
once, its event parsed or why it could not be; validate, convert and export all take it."""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.support import fixtures as fx
from trajkit.errors import InputError
from trajkit.events import UnknownEvent
from trajkit.store.reader import MAX_FILE_BYTES, open_conversation, scanned_event
from trajkit.store.scan import list_event_files, scan_event_file, scan_events


def _copy(tmp_path: Path, scenario: str = "b_terminal") -> Path:
    src = fx.sdk_conversation(scenario)
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst


def test_the_scan_of_every_fixture_is_what_the_reader_reads(sdk_scenario: str) -> None:
    folder = fx.sdk_conversation(sdk_scenario)
    conv = open_conversation(folder)
    listing = list_event_files(conv.events_dir)
    scanned = list(scan_events(conv.events_dir, listing, max_bytes=MAX_FILE_BYTES))
    files = conv.event_files()
    assert [(s.index, s.event_id, s.path) for s in scanned] == [
        (f.index, f.event_id, f.path) for f in files
    ]
    assert [s.raw for s in scanned] == [f.read_bytes() for f in files]
    assert all(s.failure is None and s.stat is not None for s in scanned)
    upgrades: Counter[str] = Counter()
    assert [scanned_event(s, upgrades) for s in scanned] == list(conv.iter_events())


def test_one_listing_sorts_by_index_and_names_the_strangers(tmp_path: Path) -> None:
    events = _copy(tmp_path) / "events"
    first = sorted(events.glob("event-*"))[0]
    shutil.copy(first, events / "event-100000-0123abcd.json")  # past five digits
    (events / "README.txt").write_text("notes")
    (events / ".eventlog.lock").write_text("")  # a sidecar: neither event nor stranger
    os.symlink(first, events / "event-100001-0123abce.json")
    listing = list_event_files(events)
    indices = [index for index, _, _, _ in listing.entries]
    assert indices == sorted(indices) and indices[-2:] == [100000, 100001]
    assert [linked for *_, linked in listing.entries][-2:] == [False, True]
    assert listing.strangers == ["README.txt"]
    with pytest.raises(FileNotFoundError):
        list_event_files(tmp_path / "nowhere")


def test_files_the_scan_cannot_read_say_why_and_are_never_parsed(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    events = folder / "events"
    names = sorted(p.name for p in events.glob("event-*"))
    (events / names[0]).write_bytes(b"")
    os.unlink(events / names[1])
    os.symlink(events / "nowhere", events / names[1])  # inside the folder, broken
    secret = tmp_path / "secret.json"
    secret.write_bytes((events / names[2]).read_bytes())
    os.unlink(events / names[2])
    os.symlink(secret, events / names[2])
    listing = list_event_files(events)
    found = scan_events(events, listing, root=folder, max_bytes=MAX_FILE_BYTES)
    scanned = {s.name: s for s in found}
    assert scanned[names[0]].failure == ("empty", "empty file: expected an event (a JSON object)")
    assert scanned[names[1]].failure is not None
    assert scanned[names[1]].failure[1].startswith("broken symlink")
    outside = scanned[names[2]]
    assert outside.outside == secret and outside.raw == b"" and outside.event is None
    assert all(s.event is not None for n, s in scanned.items() if n not in names[:3])


def test_a_file_the_strict_model_refuses_is_parsed_as_the_reader_does(tmp_path: Path) -> None:
    path = tmp_path / "event-00000-0123abcd.json"
    first = sorted((fx.sdk_conversation("b_terminal") / "events").glob("event-*"))[0]
    data = json.loads(first.read_bytes())
    data["kind"] = "SystemPromptUpdateEvent"  # a kind this model does not know
    path.write_text(json.dumps(data, separators=(",", ":")))
    scanned = scan_event_file(path, index=0, event_id="0123abcd", max_bytes=1 << 20)
    assert scanned.event is None and scanned.failure is None and not scanned.upgrades
    assert isinstance(scanned_event(scanned), UnknownEvent)
    path.write_bytes(b"[1, 2]")
    with pytest.raises(InputError, match="must be a JSON object"):
        scanned_event(scan_event_file(path, max_bytes=1 << 20))


def test_an_older_sdks_dump_is_upgraded_by_the_scan(tmp_path: Path) -> None:
    """SDKs before 1.0 wrote `kind` first: the scan upgrades, re-dumps and reads it strictly."""
    first = sorted((fx.sdk_conversation("b_terminal") / "events").glob("event-*"))[0]
    data = json.loads(first.read_bytes())
    path = tmp_path / first.name
    path.write_text(json.dumps({"kind": data.pop("kind"), **data}))  # kind first, spaced
    scanned = scan_event_file(path, max_bytes=1 << 20)
    assert scanned.event == scan_event_file(first, max_bytes=1 << 20).event is not None
    assert not scanned.upgrades  # the current shape: nothing to rewrite, kind moved only
    older = next((fx.FIXTURES / "shapes" / "agent_server").glob("*/event_service/events"))
    counted: Counter[str] = Counter()
    for name in sorted(p.name for p in older.glob("event-*")):
        scanned = scan_event_file(older / name, max_bytes=1 << 20)
        assert scanned.event is not None, name
        assert scanned_event(scanned, counted) is scanned.event
    assert counted  # the rules each event needed, counted as the reader counts them
