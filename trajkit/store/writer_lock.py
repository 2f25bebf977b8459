"""One live writer per conversation: `writer_lock(folder)` / `acquire_writer_lock(folder)`.

`events/.eventlog.lock` (see `atomic`) only makes each *append* exclusive; two processes that
each run a `Conversation` on one id would still both append, each from its own head, leaving
two interleaved branches and a `base_state.json` that the last writer wins. So the runtime
holds a second lock for as long as a `Conversation` object is live, and `trajkit repair` takes
it before changing anything:

- the file is `<conversation>/.trajkit-writer.lock` (a dot name: every reader treats it as a
  sidecar), opened with `O_NOFOLLOW` (a planted link is refused, never written through) and
  checked to be a regular file;
- `flock(LOCK_EX | LOCK_NB)` on it: a second writer fails at once with
  `ConversationLockedError` naming the holder's pid (written in the file by the holder);
- the kernel drops a `flock` when its holder dies, so a lock left by a killed process never
  blocks anyone (the stale pid in the file is just overwritten); the descriptor is
  close-on-exec, so tool subprocesses (bash) do not inherit it;
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
from trajkit.store.guard import check_regular, open_lock_file

__all__ = [
    "WRITER_LOCK",
    "ProcessWriterLock",
    "WriterLock",
    "acquire_writer_lock",
    "lock_holder",
    "writer_lock",
]

WRITER_LOCK = ".trajkit-writer.lock"

_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)


class WriterLock:
    """A held writer lock; `release()` (idempotent) lets the next writer in."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        os.close(fd)  # closing drops the flock

    @property
    def held(self) -> bool:
        return self._fd is not None


def _open(folder: Path) -> tuple[Path, int]:
    path = folder / WRITER_LOCK
    fd = open_lock_file(path, _FLAGS | getattr(os, "O_NONBLOCK", 0), 0o600, "the writer lock")
    try:
        check_regular(path, os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return path, fd


def _pid_in(fd: int) -> int | None:
    try:
        text = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def acquire_writer_lock(folder: str | os.PathLike[str]) -> WriterLock:
    """Take the conversation's writer lock now (creating the folder if needed).

    Raises:
        ConversationLockedError: another live `Conversation` (or a repair) holds it.
    """
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    path, fd = _open(root)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pid = _pid_in(fd)
        os.close(fd)
        raise ConversationLockedError(root, pid) from None
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return WriterLock(path, fd)


@contextlib.contextmanager
def writer_lock(folder: str | os.PathLike[str]) -> Iterator[WriterLock]:
    """`acquire_writer_lock` for the length of a `with` block."""
    lock = acquire_writer_lock(folder)
    try:
        yield lock
    finally:
        lock.release()


def lock_holder(folder: str | os.PathLike[str]) -> int | None:
    """The pid of the live writer of `folder`, or None when nobody holds the lock (reads only:
    the lock file is not created when missing).
    """
    path = Path(folder) / WRITER_LOCK
    if not path.is_file() or path.is_symlink():
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _pid_in(fd) or -1
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
