"""The listing keeps an SDK-written name as two numbers (issue 31: flat memory at 100k events)
and every other name as listed: either way `entries` is what the name rule gives for each
file, sorted by index, then name."""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

from tests.support import fixtures as fx
from trajkit.store.layout import (
    EVENT_NAME_RE,
    pack_event_id,
    pack_event_name,
    unpack_event_id,
    unpack_event_name,
)
from trajkit.store.scan import Listing, list_event_files


def _as_listed(events: Path) -> list[tuple[int, str, str, bool]]:
    """The entries, straight from the name rule (what the listing kept as text before)."""
    out = []
    for name in os.listdir(events):
        m = EVENT_NAME_RE.match(name)
        if m is not None:
            linked = os.path.islink(events / name)
            out.append((int(m.group("idx")), name, m.group("event_id"), linked))
    return sorted(out)


def _odd_folder(tmp_path: Path) -> Path:
    src = fx.sdk_conversation("b_terminal")
    events = tmp_path / src.name / "events"
    shutil.copytree(src, tmp_path / src.name)
    first = sorted(events.glob("event-*"))[0]
    raw = first.read_bytes()
    upper = str(uuid.uuid4()).upper()
    for name in (
        f"event-00003-{upper}.json",  # an uppercase id: spelled as listed
        f"event-000007-{uuid.uuid4()}.json",  # six digits where five are written
        f"event-99999999999999999999-{uuid.uuid4()}.json",  # past 64 bits
        "event-00002-0123abcd.json",  # an id that is no uuid, an index used twice
        f"event-00002-{uuid.uuid4()}.json\n",  # `$` matches before a final newline
        f"event-100000-{uuid.uuid4()}.json",  # past five digits
    ):
        (events / name).write_bytes(raw)
    os.symlink(first.name, events / f"event-00008-{uuid.uuid4()}.json")  # a link: as listed
    (events / "notes.txt").write_text("a stranger")
    (events / ".eventlog.lock").write_text("")
    return events


def test_sdk_names_are_two_numbers_and_spelled_back(sdk_scenario: str) -> None:
    events = fx.sdk_conversation(sdk_scenario) / "events"
    listing = list_event_files(events)
    assert list(listing.entries) == _as_listed(events)
    assert listing.odd == {}  # nothing kept as text
    assert len(listing.ids) == 16 * len(listing.entries)


def test_odd_names_give_the_same_entries_in_the_same_order(tmp_path: Path) -> None:
    events = _odd_folder(tmp_path)
    listing = list_event_files(events)
    expected = _as_listed(events)
    assert list(listing.entries) == expected
    assert [listing.entries[i] for i in range(-len(expected), len(expected))] == expected * 2
    assert listing.entries[1:3] == expected[1:3]
    assert listing.strangers == ["notes.txt"]
    packed = [e for i, e in enumerate(expected) if i not in listing.odd]
    assert all(pack_event_name(name) == (i, pack_event_id(eid)) for i, name, eid, _ in packed)
    assert len(listing.odd) == 6  # the five odd names and the link
    # built from entries in any order, the same
    assert list(Listing.of(reversed(expected)).entries) == expected


def test_the_name_rule_packs_only_what_it_spells_back() -> None:
    event_id = str(uuid.uuid4())
    for index in (0, 7, 99999, 100000, 10**15):
        name = f"event-{index:05d}-{event_id}.json"
        packed = pack_event_name(name)
        assert packed is not None and unpack_event_name(*packed) == (name, event_id)
    assert unpack_event_id(pack_event_id(event_id) or b"") == event_id
    for name in (
        f"event-00001-{event_id.upper()}.json",
        f"event-000001-{event_id}.json",
        f"event-00001-{event_id}.json\n",
        "event-00001-0123abcd.json",
        f"event-00001-{event_id.replace('-', '')}.json",
    ):
        assert pack_event_name(name) is None, name
    for text in (event_id.upper(), event_id + "\n", "__root__", event_id.replace("-", "")):
        assert pack_event_id(text) is None, text
