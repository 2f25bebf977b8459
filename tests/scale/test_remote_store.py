"""Reading conversations from a real S3 server equals reading the same files from disk."""

from __future__ import annotations

import pickle
from pathlib import Path

from trajkit.events import dump_event
from trajkit.store import find_conversations, open_conversation
from trajkit.store.remote import RemotePath, as_remote

from .conftest import BIG_EVENTS, BUCKET


def _remote(s3_url: str, folder: Path) -> str:
    return f"{s3_url}/{folder.name}"


def test_find_conversations_matches_disk(corpus_dir, s3_url):
    local = [p.name for p in find_conversations([corpus_dir])]
    remote = list(find_conversations([s3_url]))
    assert [p.name for p in remote] == local
    assert all(isinstance(p, RemotePath) and str(p).startswith(s3_url) for p in remote)


def test_listing_follows_pages_beyond_1000_keys(big_dir, s3):
    (big,) = list(big_dir.iterdir())
    (found,) = list(find_conversations([f"s3://{BUCKET}/big"]))
    remote = open_conversation(found)
    files = remote.event_files()
    local = open_conversation(big).event_files()
    assert len(files) == len(local) >= BIG_EVENTS > 1000
    assert [(f.index, f.event_id) for f in files] == [(f.index, f.event_id) for f in local]
    assert [f.read_bytes() for f in files[-3:]] == [f.read_bytes() for f in local[-3:]]


def test_events_and_header_match_disk(corpus_dir, s3_url):
    for folder in sorted(corpus_dir.iterdir()):
        local = open_conversation(folder)
        remote = open_conversation(_remote(s3_url, folder))
        assert remote.id == local.id
        assert remote.base_state_raw() == local.base_state_raw()
        assert [dump_event(e) for e in remote.iter_events()] == [
            dump_event(e) for e in local.iter_events()
        ]
        header, expected = remote.header(), local.header()
        assert str(header.path) == _remote(s3_url, folder)
        assert {**header.__dict__, "path": None, "files": None} == {
            **expected.__dict__,
            "path": None,
            "files": None,
        }
        # the same event files, each named below its own root (storage or disk)
        assert [(f.index, f.event_id, f.path.name) for f in header.files] == [
            (f.index, f.event_id, f.path.name) for f in expected.files
        ]


def test_remote_path_survives_pickling_and_mangling(s3_url):
    path = as_remote(s3_url)
    assert path is not None
    clone = pickle.loads(pickle.dumps(path / "x"))
    assert clone == path / "x" and clone.options == path.options
    # click or pathlib may have collapsed "s3://" to "s3:/": still the same location
    assert as_remote(str(Path(s3_url))) == path
    assert as_remote("relative/folder") is None


def test_missing_file_is_an_input_error_naming_it(s3_url, corpus_dir):
    import pytest

    from trajkit.errors import InputError

    missing = as_remote(f"{s3_url}/nope.json")
    assert missing is not None
    with pytest.raises(InputError, match=r"s3://corpus/data/nope\.json: no such file"):
        missing.read_bytes()


def test_walk_streams_a_level_of_more_than_1000_folders(s3):
    import uuid
    from concurrent.futures import ThreadPoolExecutor

    client = s3.client()
    names = sorted(uuid.UUID(int=n * 7919 + 1).hex for n in range(1030))

    def put(name: str) -> None:
        client.put_object(Bucket=BUCKET, Key=f"many/{name}/base_state.json", Body=b"{}")

    with ThreadPoolExecutor(max_workers=16) as pool:
        list(pool.map(put, names))
    found = list(find_conversations([f"s3://{BUCKET}/many"]))
    assert [p.name for p in found] == names  # every page, in order


def test_location_interface_answers_alike_on_disk_and_in_storage(corpus_dir, s3_url):
    from trajkit.store.location import (
        as_location,
        exists,
        file_size,
        is_conversation,
        is_link,
        is_remote,
        label,
        list_names,
        read_bytes,
        version_tag,
    )

    folder = sorted(corpus_dir.iterdir())[0]
    local, remote = as_location(folder), as_location(_remote(s3_url, folder))
    assert not is_remote(local) and is_remote(remote)
    assert label(remote) == _remote(s3_url, folder) and label(local) == str(folder)
    assert is_conversation(local) and is_conversation(remote)
    names = sorted(list_names(local / "events"))
    assert sorted(list_names(remote / "events")) == names and names
    for loc in (local, remote):
        state = loc / "base_state.json"
        assert exists(state) and not is_link(state) and not exists(loc / "nope.json")
        assert read_bytes(state) == (folder / "base_state.json").read_bytes()
        assert file_size(state) == (folder / "base_state.json").stat().st_size
        assert version_tag(state) is not None and version_tag(loc / "nope.json") is None
    st = (folder / "base_state.json").stat()
    assert version_tag(local / "base_state.json") == f"{st.st_size}:{st.st_mtime_ns}"


def test_one_expansion_of_paths_for_disk_and_storage(corpus_dir, s3_url):
    """`resolve_inputs` is one function: the same rules and messages for both."""
    from trajkit.shapes import SkippedInput, resolve_inputs

    folder = sorted(corpus_dir.iterdir())[0]
    local = [p.name for p in resolve_inputs([corpus_dir])]
    assert [p.name for p in resolve_inputs([s3_url])] == local
    (events_parent,) = resolve_inputs([f"{_remote(s3_url, folder)}/events"])
    assert str(events_parent) == _remote(s3_url, folder)
    state = f"{_remote(s3_url, folder)}/base_state.json"
    assert [str(p) for p in resolve_inputs([state], files=True)] == [state]
    for root in (str(folder), _remote(s3_url, folder)):
        (alone,) = resolve_inputs([f"{root}/base_state.json"])
        assert isinstance(alone, SkippedInput)
        assert str(alone) == (
            f"{root}/base_state.json: a base state alone, not a whole conversation: give its "
            f"conversation folder, {root}"
        )
        (nope,) = resolve_inputs([f"{root}/nope"])
        assert str(nope) == f"{root}/nope: no such file or folder"
