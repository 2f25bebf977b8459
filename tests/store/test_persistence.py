"""The runtime's storage rules live in the store (issue 26 item 5): which folder a conversation
is kept in, what is read back to restore it, and the per-process share of the writer lock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.support.fixtures import REPO
from trajkit.errors import ConversationLockedError, InputError, UnsafePath
from trajkit.store.persistence import (
    conversation_folder,
    persistence_base,
    read_events,
    read_state_object,
)
from trajkit.store.writer_lock import acquire_writer_lock, lock_holder

CID = uuid.UUID("0123456789abcdef0123456789abcdef")
SDK_STATE = next((REPO / "fixtures" / "sdk" / "a_text").glob("*/base_state.json"))


def test_persistence_base_is_absolute_and_refuses_climbing_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert persistence_base("convs") == tmp_path / "convs"
    assert persistence_base("./a/../convs") == tmp_path / "convs"
    assert persistence_base(tmp_path / "x") == tmp_path / "x"
    with pytest.raises(UnsafePath, match="climbs out of the current directory"):
        persistence_base("../elsewhere")
    with pytest.raises(UnsafePath, match="NUL"):
        persistence_base("a\x00b")


def test_conversation_folder_refuses_links_leading_outside(tmp_path: Path) -> None:
    base = tmp_path / "convs"
    base.mkdir()
    assert conversation_folder(base, CID) == base / CID.hex
    outside = tmp_path / "outside"
    outside.mkdir()
    (base / CID.hex).symlink_to(outside)
    with pytest.raises(UnsafePath, match="leads outside"):
        conversation_folder(base, CID)
    (base / CID.hex).unlink()
    (base / CID.hex).mkdir()
    (outside / "base_state.json").write_text("{}")
    (base / CID.hex / "base_state.json").symlink_to(outside / "base_state.json")
    with pytest.raises(UnsafePath, match="outside the conversation folder"):
        conversation_folder(base, CID)


def test_read_state_object(tmp_path: Path) -> None:
    folder = tmp_path / CID.hex
    folder.mkdir()
    assert read_state_object(folder) is None  # missing: a new conversation
    state = folder / "base_state.json"
    state.write_text("  \n")
    assert read_state_object(folder) is None  # empty: a new conversation (SDK)
    sdk = json.loads(SDK_STATE.read_text())  # as openhands-sdk 1.58.2 wrote it
    state.write_text(json.dumps(sdk))
    assert read_state_object(folder) == sdk
    state.write_text(json.dumps({"id": str(CID), "agent": {}}))
    with pytest.raises(InputError, match="/agent/llm"):  # the file and the JSON pointer
        read_state_object(folder)
    state.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON") as bad:
        read_state_object(folder)
    assert str(state) in str(bad.value)
    state.write_text("[1, 2]")
    with pytest.raises(InputError):
        read_state_object(folder)
    state.unlink()
    os.mkfifo(state)  # never opened: reading a FIFO would block
    with pytest.raises(InputError):
        read_state_object(folder)


def test_read_events_of_a_folder_without_events(tmp_path: Path) -> None:
    assert read_events(tmp_path) == []


_HOLD = "import sys; from trajkit.store.writer_lock import acquire_writer_lock as a; a(sys.argv[1])"


def test_writer_lock_is_exclusive_in_a_process_and_across(tmp_path: Path) -> None:
    folder = tmp_path / CID.hex
    first = acquire_writer_lock(folder)
    with pytest.raises(ConversationLockedError, match="this process"):
        acquire_writer_lock(folder)  # the same process: refused as another process is
    assert lock_holder(folder) == os.getpid()
    other = subprocess.run(
        [sys.executable, "-c", _HOLD, str(folder)], capture_output=True, text=True, check=False
    )
    assert other.returncode != 0 and ConversationLockedError.__name__ in other.stderr
    first.release()
    first.release()  # idempotent
    assert lock_holder(folder) is None
    free = subprocess.run(
        [sys.executable, "-c", _HOLD, str(folder)], capture_output=True, text=True, check=False
    )
    assert free.returncode == 0, free.stderr
    dropped = acquire_writer_lock(folder)
    del dropped  # collected: its descriptor is closed, so the lock is free
    acquire_writer_lock(folder).release()
