"""The rules across files (`validate/crossfile.py`) keep a few numbers a file for what the SDK
writes (issue 31: flat memory at 100k events), and give the problems the rules gave when they
kept every file's facts as text: odd names, links, an index past 64 bits, references to later
files, taken in batches of any size."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.support import fixtures as fx
from trajkit.validate import validate_conversation
from trajkit.validate.conversation import ConversationCheck
from trajkit.validate.crossfile import CrossFile

# what validate said of `_odd` before the records were packed (trajkit at 85f709b)
EXPECTED = [
    (
        "name-id",
        "event-00003-1A039BEC-6C39-423D-8CF2-16682BE44291.json",
        "/id",
        "file name says id '1A039BEC-6C39-423D-8CF2-16682BE44291' but the event's id is '1a039bec-6c39-423d-8cf2-16682be44291'",
    ),
    (
        "name-id",
        "event-00007-00000000-0000-4000-8000-000000000002.json",
        "/id",
        "file name says id '00000000-0000-4000-8000-000000000002' but the event's id is '73cc0932-a336-441b-80dd-aa2226bd138c'",
    ),
    (
        "name-id",
        "event-99999999999999999999-00000000-0000-4000-8000-000000000001.json",
        "/id",
        "file name says id '00000000-0000-4000-8000-000000000001' but the event's id is 'cc57fe1e-5655-4a4f-90fb-7bc84e8171b5'",
    ),
    (
        "index-gap",
        "events/",
        "",
        "index gap: no event file with index 8-99999999999999999998; the SDK stops reading there, so event-99999999999999999999-00000000-0000-4000-8000-000000000001.json and later files are not loaded",
    ),
    (
        "duplicate-id",
        "event-000006-ef108e6e-f722-46f9-b47e-98fb9adfe404.json",
        "/id",
        "id 'ef108e6e-f722-46f9-b47e-98fb9adfe404' is also used by event-00002-ef108e6e-f722-46f9-b47e-98fb9adfe404.json",
    ),
    (
        "duplicate-id",
        "event-00007-00000000-0000-4000-8000-000000000002.json",
        "/id",
        "id '73cc0932-a336-441b-80dd-aa2226bd138c' is also used by event-00000-73cc0932-a336-441b-80dd-aa2226bd138c.json",
    ),
    (
        "duplicate-id",
        "event-99999999999999999999-00000000-0000-4000-8000-000000000001.json",
        "/id",
        "id 'cc57fe1e-5655-4a4f-90fb-7bc84e8171b5' is also used by event-00005-cc57fe1e-5655-4a4f-90fb-7bc84e8171b5.json",
    ),
    (
        "parent-order",
        "event-00004-88caa7b3-17f9-4b67-95d2-2d300f1ffbce.json",
        "/parent_id",
        "names a later event (event-00005-cc57fe1e-5655-4a4f-90fb-7bc84e8171b5.json): a parent is written first",
    ),
    (
        "cycle",
        "event-00004-88caa7b3-17f9-4b67-95d2-2d300f1ffbce.json",
        "/parent_id",
        "parent_id loop: following parents never reaches a root (event-00004-88caa7b3-17f9-4b67-95d2-2d300f1ffbce.json -> event-00005-cc57fe1e-5655-4a4f-90fb-7bc84e8171b5.json)",
    ),
    (
        "duplicate-result",
        "event-99999999999999999999-00000000-0000-4000-8000-000000000001.json",
        "/tool_call_id",
        "tool call 'call_b_terminal_1_0' already has a result in event-00005-cc57fe1e-5655-4a4f-90fb-7bc84e8171b5.json; the SDK keeps the first",
    ),
    (
        "concurrent-writers",
        "events/",
        "",
        "two branches interleave after event '18eb9f5d-45e3-4367-906d-8d039e0a6fdb' (files 1..7 and 1..7): the mark of two writers appending at once; readers follow only the head's branch",
    ),
]


def _odd(tmp_path: Path) -> Path:
    """b_terminal with odd names and mistakes across its files."""
    src = fx.sdk_conversation("b_terminal")
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    events = dst / "events"
    names = sorted(p.name for p in events.glob("event-*"))
    ids = [name[12:-5] for name in names]
    data = json.loads((events / names[4]).read_text())
    data["parent_id"] = ids[5]  # a parent written after its child: a loop with it
    (events / names[4]).write_text(json.dumps(data))
    shutil.copy(events / names[2], events / f"event-000006-{ids[2]}.json")  # the id twice
    os.rename(events / names[3], events / f"event-00003-{ids[3].upper()}.json")
    huge = "event-99999999999999999999-00000000-0000-4000-8000-000000000001.json"
    shutil.copy(events / names[5], events / huge)  # a second result, past 64 bits
    os.symlink(names[0], events / "event-00007-00000000-0000-4000-8000-000000000002.json")
    return dst


@pytest.mark.parametrize("batch", [1, 3, CrossFile.BATCH])
def test_odd_names_and_mistakes_give_the_problems_they_gave(
    tmp_path: Path, batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _odd(tmp_path)
    monkeypatch.setattr(CrossFile, "BATCH", batch)
    found = [
        (p.code, "events/" if p.path == folder / "events" else p.path.name, p.pointer, p.message)
        for p in validate_conversation(folder).problems
    ]
    assert found == EXPECTED


def test_a_conversation_the_sdk_wrote_keeps_no_text_per_file(sdk_scenario: str) -> None:
    check = ConversationCheck(fx.sdk_conversation(sdk_scenario))
    list(check.problems())
    facts = check.cross.facts
    assert check.listing is not None and facts.n == len(check.listing.entries)
    assert facts.odd == {}  # every record a few numbers
    assert facts.keys is check.listing.ids  # the listing's columns, not a copy


def test_a_file_that_disagrees_with_its_name_copies_the_columns(tmp_path: Path) -> None:
    folder = _odd(tmp_path)
    check = ConversationCheck(folder)
    list(check.problems())
    facts = check.cross.facts
    assert check.listing is not None and facts.keys is not check.listing.ids
    assert len(facts.keys) == 16 * facts.n
    assert set(facts.odd) == {3, 6, 7, 8}  # uppercase, six digits, the link, past 64 bits
