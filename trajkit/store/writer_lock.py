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

A `flock` belongs to an open file description, not to a process: a second `Conversation` on
the same id in the *same* process opens the folder again and is refused like one in another
process (the message says it is this process). The hold lasts as long as its object: released
by `close()`, or when the object is garbage-collected (a finalizer closes the descriptor). The
SDK's own persistence example drops a conversation (``del conv``) and opens the same id again
at once; a dropped object held only by reference cycles is not collected yet, so when this
process is the holder, `acquire_writer_lock` runs the collector once and tries again.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import os
import weakref
from collections.abc import Iterator
from pathlib import Path

from trajkit.errors import ConversationLockedError

__all__ = [
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
        # closing drops the flock; a lock dropped without release() closes when collected
        self._close = weakref.finalize(self, os.close, fd)

    def release(self) -> None:
        self._close()

    @property
    def held(self) -> bool:
        return self._close.alive


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
        ConversationLockedError: another live `Conversation` (or a repair) holds it, in this
            process or another.
    """
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root, _FLAGS)
    try:
        if not _try_flock(fd):
            pid = _pid_holding(fd)
            if pid in (None, os.getpid()):
                gc.collect()  # a dropped holder kept only by reference cycles lets go
                if _try_flock(fd):
                    return WriterLock(root, fd)
                pid = _pid_holding(fd)
            raise ConversationLockedError(root, pid, this_process=pid == os.getpid())
    except BaseException:
        os.close(fd)
        raise
    return WriterLock(root, fd)


def _try_flock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


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
