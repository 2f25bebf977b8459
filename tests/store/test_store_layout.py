"""File names, sidecars, `<uuid hex>/` folders and finding conversations."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.support import fixtures as fx
from trajkit.errors import InputError, UnsafePath
from trajkit.store.layout import (
    check_event_id,
    conversation_id_from_folder,
    event_file_name,
    find_conversations,
    folder_name,
    is_conversation_folder,
    parse_event_file_name,
)

EID = "3f0c1d2e-aaaa-4bbb-8ccc-123456789abc"


def test_event_file_name_pads_to_five_digits_and_grows_past_99999():
    assert event_file_name(12, EID) == f"event-00012-{EID}.json"
    assert event_file_name(99999, EID) == f"event-99999-{EID}.json"
    assert event_file_name(100000, EID) == f"event-100000-{EID}.json"


def test_parse_event_file_name_gives_integer_index():
    assert parse_event_file_name(f"event-100000-{EID}.json") == (100000, EID)
    assert parse_event_file_name(f"event-00007-{EID}.json") == (7, EID)


@pytest.mark.parametrize(
    "name",
    [
        ".eventlog.lock",
        ".eventlog-len-3.marker",
        f".event-00001-{EID}.json.k2_9xq0z.tmp",
        f"event-0001-{EID}.json",  # four digits: the SDK never wrote that
        "event-00001-evt_1.json",  # id with characters the SDK cannot read back
        f"event-00001-{EID}.json.bak",
        "notes.txt",
    ],
)
def test_parse_event_file_name_rejects_non_events(name):
    assert parse_event_file_name(name) is None


@pytest.mark.parametrize(
    "bad", ["../x-aaaaaaaa", "a/b-aaaaaaaa", "/etc/passwd", "aaaa\\bbbbbb", ".."]
)
def test_ids_that_escape_the_folder_are_refused(bad):
    with pytest.raises(UnsafePath, match="outside events/"):
        event_file_name(0, bad)


def test_ids_the_sdk_could_not_read_back_are_refused():
    with pytest.raises(InputError, match="hex digits and dashes"):
        check_event_id("evt_1")


def test_folder_name_and_id_round_trip():
    cid = uuid.uuid4()
    assert folder_name(cid) == cid.hex
    assert folder_name(str(cid)) == cid.hex
    assert conversation_id_from_folder(cid.hex) == str(cid)
    assert conversation_id_from_folder("not-a-uuid") is None


def test_find_conversations_finds_every_sdk_fixture_and_skips_v0_sessions():
    found = list(find_conversations([fx.SDK_FIXTURES, fx.V0_FIXTURES]))
    assert found == fx.sdk_conversations()
    v0_session = fx.V0_FIXTURES / "sessions" / "63b4315947a049e2b7a51249b3d4fcc3"
    assert (v0_session / "events").is_dir()
    assert not is_conversation_folder(v0_session)


def test_find_conversations_yields_a_conversation_folder_itself():
    conv = fx.sdk_conversation("a_text")
    assert list(find_conversations([conv])) == [conv]


def _make_conv(folder: Path, with_state: bool = True) -> Path:
    (folder / "events").mkdir(parents=True)
    if with_state:
        (folder / "base_state.json").write_text("{}")
    return folder


def test_find_conversations_recurses_and_ends_symlink_loops(tmp_path):
    a = _make_conv(tmp_path / "x" / "a")
    b = _make_conv(tmp_path / "y" / "deep" / "b", with_state=False)
    c = tmp_path / "z" / "c"
    c.mkdir(parents=True)
    (c / "base_state.json").write_text("{}")  # missing events/ still counts: validate reports it
    (tmp_path / "x" / "loop").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "y" / "self").symlink_to(tmp_path / "y", target_is_directory=True)
    (tmp_path / "broken").symlink_to(tmp_path / "nowhere")
    (tmp_path / "file.json").write_text("{}")
    found = list(find_conversations([tmp_path]))
    assert found == [a, b, c]


def test_find_conversations_missing_path_is_an_input_error(tmp_path):
    with pytest.raises(InputError) as info:
        list(find_conversations([tmp_path / "nope"]))
    assert str(info.value).startswith(f"{tmp_path / 'nope'}: no such file")


def test_find_conversations_on_a_symlink_loop_argument_is_an_input_error(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(InputError, match="symbolic links"):
        list(find_conversations([loop]))
