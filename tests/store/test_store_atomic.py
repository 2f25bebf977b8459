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
import sys, filelock
lock = filelock.FileLock(sys.argv[1])
with lock:
    print("held", flush=True)
    sys.stdin.readline()  # held until the test says so (a sleep would race a busy machine)
"""


def test_lock_held_by_another_process_times_out(tmp_path):
    """Another process holding the SDK's lock file (with plain filelock, as the SDK does)."""
    (tmp_path / "events").mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(tmp_path / "events" / ".eventlog.lock")],
        stdin=subprocess.PIPE,
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
        holder.communicate("\n", timeout=60)  # release, then wait for it to exit
    with conversation_lock(tmp_path, timeout=1):  # free again once the holder exits
        pass


def test_lock_timeout_is_also_a_timeout_error():
    assert issubclass(LockTimeout, TimeoutError)


def test_atomic_writer_with_a_temp_dir_never_shows_a_temp_file_next_to_the_target(tmp_path):
    from trajkit.store.atomic import atomic_writer

    table, staging = tmp_path / "events", tmp_path / ".staging"
    table.mkdir()
    staging.mkdir()
    with atomic_writer(table / "part-00000.parquet", temp_dir=staging) as f:
        f.write(b"PAR1")
        assert os.listdir(table) == []  # the bytes are in staging until the rename
        (staged,) = os.listdir(staging)
        assert staged.startswith("events.part-00000.parquet.") and staged.endswith(".tmp")
    assert (table / "part-00000.parquet").read_bytes() == b"PAR1"
    assert os.listdir(staging) == []
    with pytest.raises(RuntimeError), atomic_writer(table / "part-1.parquet", temp_dir=staging):
        raise RuntimeError("abort")
    assert os.listdir(staging) == [] and os.listdir(table) == ["part-00000.parquet"]


def test_staged_folder_publishes_a_whole_folder_or_nothing(tmp_path):
    from trajkit.errors import OutputExists
    from trajkit.store.atomic import staged_folder, write_new_file

    final = tmp_path / "out" / "abc"
    with staged_folder(final, folders=["events"]) as tmp:
        assert tmp.parent == final.parent and tmp.name.startswith(".abc.tmp-")
        write_new_file(tmp / "events" / "e.json", b"{}")
        write_new_file(tmp / "base_state.json", b'{"id": 1}')
        assert not final.exists()
    assert sorted(p.name for p in final.parent.iterdir()) == ["abc"]
    assert (final / "events" / "e.json").read_bytes() == b"{}"
    assert stat.S_IMODE((final / "base_state.json").stat().st_mode) == 0o600
    with pytest.raises(FileExistsError):
        write_new_file(final / "base_state.json", b"again")  # created once, never replaced
    with pytest.raises(OutputExists), staged_folder(final):
        pass
    with pytest.raises(OSError, match="disk full"), staged_folder(final, overwrite=True) as tmp:
        write_new_file(tmp / "base_state.json", b"new")
        raise OSError("disk full")
    assert sorted(p.name for p in final.parent.iterdir()) == ["abc"]  # old folder kept, no temp
    assert (final / "base_state.json").read_bytes() == b'{"id": 1}'
    with staged_folder(final, overwrite=True) as tmp:
        write_new_file(tmp / "base_state.json", b"new")
    assert sorted(p.name for p in final.parent.iterdir()) == ["abc"]
    assert sorted(p.name for p in final.iterdir()) == ["base_state.json"]


def test_move_file_renames_into_another_folder(tmp_path):
    from trajkit.store.atomic import move_file

    (tmp_path / "events").mkdir()
    (tmp_path / "quarantine").mkdir()
    (tmp_path / "events" / "bad.json").write_bytes(b"{")
    move_file(tmp_path / "events" / "bad.json", tmp_path / "quarantine" / "bad.json")
    assert os.listdir(tmp_path / "events") == []
    assert (tmp_path / "quarantine" / "bad.json").read_bytes() == b"{"


def test_make_folder_creates_parents_keeps_a_folder_and_refuses_a_link_when_plain(tmp_path):
    from trajkit.errors import UnsafePath
    from trajkit.store.atomic import make_folder

    made = make_folder(tmp_path / "out" / "c")
    assert made == tmp_path / "out" / "c" and made.is_dir()
    (made / "kept.html").write_bytes(b"x")
    assert make_folder(str(made)) == made and (made / "kept.html").read_bytes() == b"x"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "conv").mkdir()
    (tmp_path / "conv" / "quarantine").symlink_to(elsewhere)
    assert make_folder(tmp_path / "conv" / "quarantine").is_dir()  # an output may be a link
    with pytest.raises(UnsafePath, match=r"quarantine: not a plain folder"):
        make_folder(tmp_path / "conv" / "quarantine", plain=True)
    (tmp_path / "conv" / "file").write_bytes(b"")
    with pytest.raises(UnsafePath, match=r"not a plain folder"):
        make_folder(tmp_path / "conv" / "file", plain=True)
    with pytest.raises(FileExistsError):
        make_folder(tmp_path / "conv" / "file")


_WAITER = """
import sys, filelock
try:
    filelock.FileLock(sys.argv[1], timeout=float(sys.argv[2])).acquire()
except filelock.Timeout:
    print("timeout")
else:
    print("acquired")
"""


def _sdk_lock_attempt(lock: os.PathLike[str] | str, timeout: float) -> str:
    return subprocess.run(
        [sys.executable, "-c", _WAITER, str(lock), str(timeout)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.strip()


def test_an_sdk_filelock_waits_while_trajkit_holds_the_lock(tmp_path):
    """The other direction of the test above: the flock trajkit takes is the one filelock
    (the SDK's EventLog) waits on, and it is free again once the block ends."""
    lock = tmp_path / "events" / ".eventlog.lock"
    with conversation_lock(tmp_path):
        assert _sdk_lock_attempt(lock, 0.2) == "timeout"
    assert _sdk_lock_attempt(lock, 5) == "acquired"


def test_a_lock_file_unlinked_while_waiting_is_taken_anew(tmp_path, monkeypatch):
    """A holder that deletes the lock file as it releases (an older filelock) must not leave
    the waiter holding a lock on the unlinked file while another process locks the new one."""
    import fcntl
    import threading

    from trajkit.store import atomic

    lock = tmp_path / "events" / ".eventlog.lock"
    lock.parent.mkdir()
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    polling, real_sleep = threading.Event(), time.sleep

    def sleep(seconds: float) -> None:  # the waiter found the lock busy
        polling.set()
        real_sleep(seconds)

    monkeypatch.setattr(atomic.time, "sleep", sleep)
    seen: list[str] = []

    def waiter() -> None:
        with conversation_lock(tmp_path, timeout=30):
            seen.append(_sdk_lock_attempt(lock, 0.2))  # held: the file now at the path

    thread = threading.Thread(target=waiter)
    thread.start()
    assert polling.wait(30)
    os.unlink(lock)
    os.close(fd)  # releases the flock on the unlinked file
    thread.join(60)
    assert seen == ["timeout"]
    assert lock.exists()  # made again by the waiter, and kept
    assert _sdk_lock_attempt(lock, 5) == "acquired"


def test_a_fifo_planted_as_the_lock_file_does_not_block(tmp_path):
    (tmp_path / "events").mkdir()
    os.mkfifo(tmp_path / "events" / ".eventlog.lock")
    with conversation_lock(tmp_path, timeout=1):  # opened O_NONBLOCK, as filelock does
        pass
