"""The one way bytes reach a conversation folder: atomic writes, plus the conversation lock.

`atomic_write(path, data)` and `atomic_writer(path)` do, in order:

1. create `.<name>.<random>.tmp` in the *same* folder as `path` (same filesystem, so the rename
   below is atomic; the leading dot makes every reader treat it as a sidecar, never an event);
2. write the bytes and set the file mode;
3. `fsync` the temp file, so its contents are on disk before its name is;
4. `os.replace` it over `path`: readers see either the old file or the new one, never a torn one;
5. `fsync` the folder, so the rename itself survives a power cut.

On any error before step 4 the temp file is removed and `path` is untouched. Trade-offs: two
fsyncs per write cost about a millisecond on a local SSD, which is why appending an event is not
free; a crash between steps 1 and 4 can leave a `.tmp` file behind (harmless, ignored by
readers, and the SDK 1.58 does the same); the folder fsync is skipped where the OS refuses it.
Nothing here makes the SDK's own non-atomic writers safe, it only keeps trajkit's writes whole.

`conversation_lock(folder)` takes `events/.eventlog.lock` with `filelock.FileLock`, the same
file and the same `flock` the SDK's `EventLog.append` uses, so trajkit and SDK processes
appending to one conversation exclude each other. Like the SDK's, it is not reliable on NFS.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import filelock

from trajkit.errors import LockTimeout, UnsafePath

__all__ = [
    "LOCK_TIMEOUT_SECONDS",
    "atomic_write",
    "atomic_writer",
    "conversation_lock",
    "fsync_dir",
    "is_temp_file",
]

LOCK_TIMEOUT_SECONDS = 30.0
"""Same as the SDK's `LOCK_TIMEOUT_SECONDS`."""


def atomic_write(
    path: str | os.PathLike[str], data: bytes | str, *, mode: int | None = None
) -> None:
    """Replace `path` with `data` atomically (str is written as UTF-8).

    Args:
        path: the file to create or replace; its folder must exist.
        data: the new contents.
        mode: file permissions; default is what `open()` would give (0o666 minus umask).
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    with atomic_writer(path, mode=mode) as f:
        f.write(data)


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str], *, mode: int | None = None) -> Iterator[BinaryIO]:
    """Open a temp file next to `path`; on clean exit it replaces `path`, on error it is removed."""
    target = Path(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fchmod(f.fileno(), _default_mode() if mode is None else mode)
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(target.parent)


def fsync_dir(folder: str | os.PathLike[str]) -> None:
    """Flush a folder's entries (renames, new files) to disk; a no-op where unsupported."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def is_temp_file(name: str) -> bool:
    """True for names made by `atomic_writer` (and by the SDK's atomic helper)."""
    return name.startswith(".") and name.endswith(".tmp")


@contextlib.contextmanager
def conversation_lock(
    folder: str | os.PathLike[str], *, timeout: float = LOCK_TIMEOUT_SECONDS
) -> Iterator[None]:
    """Hold the conversation's cross-process lock `events/.eventlog.lock` (created if missing).

    Raises:
        LockTimeout: another process held the lock for `timeout` seconds.
    """
    events = Path(folder) / "events"
    events.mkdir(parents=True, exist_ok=True)
    lock = _file_lock(events / ".eventlog.lock", timeout)
    try:
        lock.acquire()
    except filelock.Timeout:
        raise LockTimeout(
            f"{events / '.eventlog.lock'}: another process held the conversation lock for "
            f"{timeout:g}s; retry when it has finished"
        ) from None
    except OSError as exc:  # filelock opens with O_NOFOLLOW: a planted link gives ELOOP
        if exc.errno != errno.ELOOP and not (events / ".eventlog.lock").is_symlink():
            raise
        raise UnsafePath(
            events / ".eventlog.lock",
            "",
            "the lock file is a symlink; trajkit never writes through links in a conversation "
            "(delete the link and retry)",
        ) from None
    try:
        yield
    finally:
        lock.release()


def _file_lock(path: Path, timeout: float) -> filelock.BaseFileLock:
    # Keep the lock file, as the SDK does: deleting it while another process waits on it
    # would let two holders in. `preserve_lock_file` exists in filelock >= 4 only.
    try:
        return filelock.FileLock(path, timeout=timeout, preserve_lock_file=True)
    except TypeError:
        return filelock.FileLock(path, timeout=timeout)


@functools.cache
def _default_mode() -> int:
    # Read once: os.umask() can only be read by setting it, which is not thread-safe.
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
