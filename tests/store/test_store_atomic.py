"""atomic_write leaves whole files and no temp files; the conversation lock excludes others."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time

import pytest

from trajkit.errors import LockTimeout
from trajkit.store.atomic import atomic_write, atomic_writer, conversation_lock, is_temp_file


def test_atomic_write_creates_file_and_leaves_no_temp(tmp_path):
    target = tmp_path / "base_state.json"
    atomic_write(target, b'{"a":1}')
    assert target.read_bytes() == b'{"a":1}'
    assert os.listdir(tmp_path) == ["base_state.json"]


def test_atomic_write_replaces_existing_and_writes_str_as_utf8(tmp_path):
    target = tmp_path / "f.json"
    target.write_bytes(b"old contents that are longer")
    atomic_write(target, '{"t":"héllo"}')
    assert target.read_bytes() == '{"t":"héllo"}'.encode()
    assert os.listdir(tmp_path) == ["f.json"]


def test_atomic_write_sets_requested_mode(tmp_path):
    target = tmp_path / "secret.json"
    atomic_write(target, b"{}", mode=0o600)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_failed_write_keeps_the_old_file_and_removes_the_temp(tmp_path):
    target = tmp_path / "f.json"
    target.write_bytes(b"original")
    seen: list[str] = []
    with pytest.raises(RuntimeError), atomic_writer(target) as f:
        f.write(b"half of the new")
        seen = os.listdir(tmp_path)
        raise RuntimeError("disk full")
    temp = [n for n in seen if n != "f.json"]
    assert len(temp) == 1 and temp[0].startswith(".f.json.") and is_temp_file(temp[0])
    assert target.read_bytes() == b"original"
    assert os.listdir(tmp_path) == ["f.json"]


def test_failed_replace_removes_the_temp(tmp_path, monkeypatch):
    target = tmp_path / "f.json"

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        atomic_write(target, b"{}")
    assert os.listdir(tmp_path) == []


def test_conversation_lock_uses_the_sdk_lock_file(tmp_path):
    with conversation_lock(tmp_path):
        assert (tmp_path / "events" / ".eventlog.lock").exists()
    assert (tmp_path / "events" / ".eventlog.lock").exists()  # kept, as the SDK does


_HOLDER = """
import sys, time, filelock
lock = filelock.FileLock(sys.argv[1])
with lock:
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def test_lock_held_by_another_process_times_out(tmp_path):
    """Another process holding the SDK's lock file (with plain filelock, as the SDK does)."""
    (tmp_path / "events").mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(tmp_path / "events" / ".eventlog.lock"), "1.5"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        start = time.monotonic()
        with (
            pytest.raises(LockTimeout, match="another process held"),
            conversation_lock(tmp_path, timeout=0.3),
        ):
            pass
        assert time.monotonic() - start >= 0.3
    finally:
        holder.wait(timeout=10)
    with conversation_lock(tmp_path, timeout=1):  # free again once the holder exits
        pass


def test_lock_timeout_is_also_a_timeout_error():
    assert issubclass(LockTimeout, TimeoutError)
