"""The one way bytes reach a conversation or output folder: atomic writes, plus the lock.

No module outside `store/` renames, fsyncs or opens a conversation file for writing (a test
greps the tree); each helper below does one kind of write, so a check on what it may write
through (links, non-regular files) has one home.

`atomic_write(path, data)` and `atomic_writer(path)` do, in order:

1. create `.<name>.<random>.tmp` in the *same* folder as `path` (same filesystem, so the rename
   below is atomic; the leading dot makes every reader treat it as a sidecar, never an event);
   with `temp_dir=` the temp file `<folder>.<name>.<random>.tmp` is made there instead (a
   staging folder on the same file system, so the target folder never shows a temp file);
2. write the bytes and set the file mode;
3. `fsync` the temp file, so its contents are on disk before its name is;
4. `os.replace` it over `path`: readers see either the old file or the new one, never a torn one;
5. `fsync` the folder, so the rename itself survives a power cut.

On any error before step 4 the temp file is removed and `path` is untouched. Trade-offs: two
fsyncs per write cost about a millisecond on a local SSD, which is why appending an event is not
free; a crash between steps 1 and 4 can leave a `.tmp` file behind (harmless, ignored by
readers, and the SDK 1.58 does the same); the folder fsync is skipped where the OS refuses it.
Group commit (`ConversationWriter.group_commit`, the runtime's agent step) renames each event
file at once, as above, but fsyncs `events/` once when the step ends instead of once per file:
every file is whole and visible the moment its append returns (a killed process loses
nothing), and the step's files are durable against a power cut when the step ends, before
the step's `base_state.json` is saved.
Nothing here makes the SDK's own non-atomic writers safe, it only keeps trajkit's writes whole.

A whole new folder (a migrated conversation) is published at once instead: `staged_folder(final)`
yields a private hidden folder `.<name>.tmp-<pid>-<n>` next to `final`, where `write_new_file`
creates each file once and fsyncs it (no per-file rename: nobody else sees that folder); on a
clean exit every folder in it is fsynced and it is renamed to `final` (an existing `final`,
with `overwrite`, is first renamed aside and removed once the new one is in place; on failure
it is put back), then the parent is fsynced. On error the private folder is removed.
`move_file(src, dst)` renames a file into another folder (quarantine) and fsyncs both folders.
`make_folder(path)` creates a folder trajkit writes into (an output folder, a cache, repair's
`quarantine/`); with `plain=True` a symlink there is refused, so writes cannot leave it.

`conversation_lock(folder)` takes `flock(LOCK_EX)` on `events/.eventlog.lock`, the same file
and the same lock as the `filelock.FileLock` of the SDK's `EventLog.append`, so trajkit and
SDK processes appending to one conversation exclude each other. Like the SDK's, it is not reliable on NFS.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import itertools
import os
import shutil
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from trajkit.errors import LockTimeout, OutputExists, UnsafePath
from trajkit.store.guard import open_lock_file
from trajkit.store.layout import EVENTS_DIR, LOCK_FILE_NAME

__all__ = [
    "LOCK_TIMEOUT_SECONDS",
    "atomic_write",
    "atomic_writer",
    "conversation_lock",
    "fsync_dir",
    "is_temp_file",
    "make_folder",
    "make_private",
    "move_file",
    "staged_folder",
    "write_new_file",
]

LOCK_TIMEOUT_SECONDS = 30.0
"""Same as the SDK's `LOCK_TIMEOUT_SECONDS`."""


def atomic_write(
    path: str | os.PathLike[str],
    data: bytes | str,
    *,
    mode: int | None = None,
    sync_folder: bool = True,
) -> None:
    """Replace `path` with `data` atomically (str is written as UTF-8).

    The steps of `atomic_writer` done straight on a descriptor (no file object, no `Path`):
    this is every event append of a run, so it stays a few system calls.

    Args:
        path: the file to create or replace; its folder must exist.
        data: the new contents.
        mode: file permissions; default is what `open()` would give (0o666 minus umask).
        sync_folder: fsync the folder after the rename (step 5). Only a caller that fsyncs the
            folder itself before it reports the write as durable passes False (group commit:
            `ConversationWriter.group_commit`).
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    target = os.fspath(path)
    folder, name = os.path.split(target)
    folder = folder or "."
    wanted = _default_mode() if mode is None else mode
    fd, tmp = _create_temp(folder, f".{name}.", wanted)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, wanted)  # exactly `mode`, whatever the umask took at the open
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync_folder:
        fsync_dir(folder)


_TEMP_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOFOLLOW", 0)
)


def _create_temp(folder: str, prefix: str, mode: int) -> tuple[int, str]:
    """Create `<folder>/<prefix><random>.tmp` exclusively (the name pattern `tempfile.mkstemp`
    would give), opened with `mode`: the one temp-file rule of `atomic_write` and `atomic_writer`.
    """
    for _ in range(100):
        tmp = os.path.join(folder, f"{prefix}{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, _TEMP_FLAGS, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary name", os.path.join(folder, prefix))


@contextlib.contextmanager
def atomic_writer(
    path: str | os.PathLike[str],
    *,
    mode: int | None = None,
    temp_dir: str | os.PathLike[str] | None = None,
) -> Iterator[BinaryIO]:
    """Open a temp file; on clean exit it replaces `path`, on error it is removed.

    The temp file is made next to `path`, or in `temp_dir` (an existing folder on the same file
    system) so that `path`'s folder only ever holds whole files.
    """
    target = os.fspath(path)
    folder, name = os.path.split(target)
    folder = folder or "."
    if temp_dir is None:
        prefix, where = f".{name}.", folder
    else:
        prefix, where = f"{os.path.basename(folder)}.{name}.", os.fspath(temp_dir)
    wanted = _default_mode() if mode is None else mode
    fd, tmp = _create_temp(where, prefix, wanted)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fchmod(f.fileno(), wanted)  # exactly `mode`, whatever the umask took at the open
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(folder)


_counter = itertools.count()


@contextlib.contextmanager
def staged_folder(
    final: str | os.PathLike[str], *, overwrite: bool = False, folders: Iterable[str] = ()
) -> Iterator[Path]:
    """A private folder that becomes `final` in one rename on a clean exit (module docstring).

    `folders` are made inside it first (`events/` for a conversation).

    Raises:
        OutputExists: `final` exists (checked before and at the rename) and not `overwrite`.
    """
    final = Path(final)
    if final.exists() and not overwrite:
        raise OutputExists(final)
    tmp = final.with_name(f".{final.name}.tmp-{os.getpid()}-{next(_counter)}")
    tmp.mkdir(parents=True)
    try:
        for name in folders:
            (tmp / name).mkdir()
        yield tmp
        for folder, _, _ in os.walk(tmp, topdown=False):
            fsync_dir(folder)
        _put_in_place(tmp, final, overwrite=overwrite)
        fsync_dir(final.parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _put_in_place(tmp: Path, final: Path, *, overwrite: bool) -> None:
    if not final.exists():
        try:
            os.rename(tmp, final)
        except OSError:
            if final.exists():  # another process wrote the same folder meanwhile
                raise OutputExists(final) from None
            raise
        return
    if not overwrite:
        raise OutputExists(final)
    old = final.with_name(f".{final.name}.old-{os.getpid()}-{next(_counter)}")
    os.rename(final, old)
    try:
        os.rename(tmp, final)
    except BaseException:
        os.rename(old, final)
        raise
    shutil.rmtree(old, ignore_errors=True)


def write_new_file(path: str | os.PathLike[str], data: bytes, *, mode: int = 0o600) -> None:
    """Create `path` (it must not exist; mode 0600 by default) with `data`, flushed to disk.

    For files in a folder nobody else sees yet (`staged_folder`): no temp file, no rename.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def make_folder(
    path: str | os.PathLike[str], *, plain: bool = False, private: bool = False
) -> Path:
    """Create the folder `path` (and missing parents) for trajkit to write into; keep it if it is one.

    With `plain`, `path` must be a real folder, not a symbolic link nor a file (a folder inside a
    conversation, such as repair's `quarantine/`: files moved through a link would leave the
    conversation): `UnsafePath`. With `private`, a folder created here is 0700 whatever the
    umask (an existing one keeps its mode: `make_private`). Other failures raise `OSError` as
    `os.makedirs` does, for the caller to say what the folder was for.
    """
    folder = Path(path)
    if plain and (folder.is_symlink() or (folder.exists() and not folder.is_dir())):
        raise UnsafePath(folder, "", "not a plain folder (a symlink?); move it away and run again")
    if private and not folder.is_dir():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)  # mkdir's mode is filtered by the umask
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def make_private(path: str | os.PathLike[str], *, create: bool = False) -> None:
    """Make the file or folder `path` readable by its owner alone (0600 / 0700).

    With `create`, a missing file is created empty with mode 0600 (before anyone, SQLite say,
    opens it with the umask's mode); otherwise a missing path is left missing.
    """
    if create:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    with contextlib.suppress(FileNotFoundError):
        os.chmod(path, 0o700 if os.path.isdir(path) else 0o600)


def move_file(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
    """Rename `src` to `dst` (same file system, e.g. into `quarantine/`); fsync both folders."""
    src, dst = Path(src), Path(dst)
    os.replace(src, dst)
    fsync_dir(src.parent)
    fsync_dir(dst.parent)


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

    The lock is `flock(LOCK_EX)` on that file, the lock `filelock.FileLock` takes (the SDK's
    `EventLog.append`), made here with a few system calls: filelock 4 spends ~0.1 ms of
    Python per acquire and release, and the runtime takes this lock for every event. As
    filelock does, the file is opened with `O_NOFOLLOW | O_NONBLOCK` (a planted link or FIFO
    never blocks nor is written through), a busy lock is polled every 50 ms until `timeout`
    (negative: wait for ever), and a lock file unlinked by its last holder is opened again.

    Raises:
        LockTimeout: another process held the lock for `timeout` seconds.
    """
    events = os.path.join(os.fspath(folder), EVENTS_DIR)
    path = os.path.join(events, LOCK_FILE_NAME)
    deadline = None if timeout < 0 else time.monotonic() + timeout
    while True:
        fd = _open_lock(events, path)
        try:
            _flock(fd, path, timeout, deadline)
            if os.fstat(fd).st_nlink:
                break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # the file was unlinked while we waited: lock the one now at `path`
    try:
        yield
    finally:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


_LOCK_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
_LOCK_POLL_SECONDS = 0.05


def _open_lock(events: str, path: str) -> int:
    try:
        return open_lock_file(path, _LOCK_FLAGS, 0o666, "the lock file")
    except FileNotFoundError:
        os.makedirs(events, exist_ok=True)  # a new conversation: make events/ first
        return open_lock_file(path, _LOCK_FLAGS, 0o666, "the lock file")


def _flock(fd: int, path: str, timeout: float, deadline: float | None) -> None:
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            raise LockTimeout(
                f"{path}: another process held the conversation lock for "
                f"{timeout:g}s; retry when it has finished"
            )
        time.sleep(_LOCK_POLL_SECONDS if left is None else min(_LOCK_POLL_SECONDS, left))


@functools.cache
def _default_mode() -> int:
    # Read once: os.umask() can only be read by setting it, which is not thread-safe.
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
