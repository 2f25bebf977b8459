"""One live writer per conversation: `writer_lock(folder)` / `acquire_writer_lock(folder)`.

`events/.eventlog.lock` (see `atomic`) only makes each *append* exclusive; two processes that
each run a `Conversation` on one id would still both append, each from its own head, leaving
two interleaved branches and a `base_state.json` that the last writer wins. So the runtime
holds a second lock for as long as a `Conversation` object is live, and `trajkit repair` takes
it before changing anything:

- the lock is a `flock(LOCK_EX | LOCK_NB)` on the conversation folder itself (an open
  descriptor of the directory, close-on-exec, so tool subprocesses do not inherit it): no file
  is added to the folder, which holds what the SDK writes and nothing else. A lock file inside
  would be an extra file; `base_state.json` cannot carry it, as each save replaces that file;
- a second writer fails at once with `ConversationLockedError` naming the holder's pid (read
  from `/proc/locks` on Linux; unknown elsewhere);
- the kernel drops a `flock` when its holder dies, so a lock left by a killed process never
  blocks anyone;
- like the SDK's lock, it is not reliable on NFS.

`ProcessWriterLock(folder)` is one object's share of that lock: within a process, objects for
the same conversation share one lock (the SDK's own persistence example drops a conversation,
``del conv``, and restores it at once, while a stray reference may keep the dropped object
alive); the lock is released when the last share is.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

from trajkit.errors import ConversationLockedError

__all__ = [
    "ProcessWriterLock",
    "WriterLock",
    "acquire_writer_lock",
    "lock_holder",
    "writer_lock",
]

_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


class WriterLock:
    """A held writer lock; `release()` (idempotent) lets the next writer in."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing drops the flock

    @property
    def held(self) -> bool:
        return self._fd is not None


def _pid_holding(fd: int) -> int | None:
    """The pid /proc/locks gives for a FLOCK on this descriptor's file (Linux), else None."""
    st = os.fstat(fd)
    key = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            for line in f:
                parts = line.split()
                if len(parts) > 5 and parts[1] == "FLOCK" and parts[5] == key:
                    return int(parts[4]) if parts[4].isdigit() else None
    except OSError:
        pass
    return None


def acquire_writer_lock(folder: str | os.PathLike[str]) -> WriterLock:
    """Take the conversation's writer lock now (creating the folder if needed).

    Raises:
        ConversationLockedError: another live `Conversation` (or a repair) holds it.
    """
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root, _FLAGS)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pid = _pid_holding(fd)
        os.close(fd)
        raise ConversationLockedError(root, pid) from None
    except BaseException:
        os.close(fd)
        raise
    return WriterLock(root, fd)


@contextlib.contextmanager
def writer_lock(folder: str | os.PathLike[str]) -> Iterator[WriterLock]:
    """`acquire_writer_lock` for the length of a `with` block."""
    lock = acquire_writer_lock(folder)
    try:
        yield lock
    finally:
        lock.release()


def lock_holder(folder: str | os.PathLike[str]) -> int | None:
    """The pid of the live writer of `folder` (-1 when it cannot be told), or None when nobody
    holds the lock.
    """
    try:
        fd = os.open(folder, _FLAGS)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _pid_holding(fd) or -1
        return None
    finally:
        os.close(fd)


class ProcessWriterLock:
    """This object's share of one conversation's writer lock (see the module docstring).

    Raises:
        ConversationLockedError: another process holds the lock.
    """

    _held: ClassVar[dict[str, tuple[WriterLock, int]]] = {}
    _guard: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.key = os.path.realpath(folder)
        with self._guard:
            lock, count = self._held.get(self.key, (None, 0))
            if lock is None or not lock.held:
                lock, count = acquire_writer_lock(folder), 0
            self._held[self.key] = (lock, count + 1)
        self._released = False

    def release(self) -> None:
        """Give this share back (idempotent); the last one releases the lock."""
        with self._guard:
            if self._released:
                return
            self._released = True
            lock, count = self._held.pop(self.key, (None, 0))
            if lock is None:
                return
            if count > 1:
                self._held[self.key] = (lock, count - 1)
            else:
                lock.release()
