"""The store's refusals, in one place: links leading outside a conversation, files that are not
regular files (FIFOs, devices, sockets), and JSON documents too large in nodes to load.

Every reader and writer of a conversation folder goes through these small functions, so the
rules are the same for `validate`, `convert`, `repair`, the views and the runtime:

- `refuse_outside_links(folder)`: `events/` or `base_state.json` that is a symlink leading
  outside the folder is neither read nor written through (`UnsafePath`);
- `open_regular(path)`: opens with `O_NONBLOCK` (so a FIFO cannot block the open) and checks
  `S_ISREG` on the open descriptor (so a FIFO or a device is refused before a byte is read);
- `check_json_nodes(path, raw)`: a JSON document with more than `MAX_JSON_NODES` values is
  refused before it is parsed, so 48 MB of `{},` cannot cost gigabytes of Python objects.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

from trajkit.errors import InputError, UnsafePath
from trajkit.store.layout import BASE_STATE, EVENTS_DIR, link_outside

__all__ = [
    "MAX_JSON_NODES",
    "NotRegularFile",
    "check_json_nodes",
    "check_regular",
    "not_regular_error",
    "open_regular",
    "open_lock_file",
    "outside_error",
    "refuse_output_inside",
    "refuse_outside_links",
]

MAX_JSON_NODES = int(os.environ.get("TRAJKIT_MAX_JSON_NODES", 1_000_000))
"""Most JSON values (objects, arrays, strings, numbers, ...) one event or state file may hold."""

_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
_STRING_RE = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


class NotRegularFile(InputError):
    """A FIFO, device or socket where a JSON file should be (never read, never moved)."""


def outside_error(path: str | os.PathLike[str], real: str | os.PathLike[str]) -> UnsafePath:
    """The one refusal for a link leading outside the conversation folder."""
    return UnsafePath(
        path,
        "",
        f"symlink to {real}, outside the conversation folder; not read or written through "
        "(copy the file into the folder if it belongs to this conversation)",
    )


def refuse_outside_links(folder: str | os.PathLike[str]) -> None:
    """Raise `UnsafePath` when `events/` or `base_state.json` links outside `folder`."""
    root = Path(folder)
    for name in (EVENTS_DIR, BASE_STATE):
        path = root / name
        if path.is_symlink() and (real := link_outside(path, root)) is not None:
            raise outside_error(path, real)


def open_lock_file(path: str | os.PathLike[str], flags: int, mode: int, what: str) -> int:
    """Open a lock file with `O_NOFOLLOW`: a planted link is refused (`UnsafePath` naming
    `what`), never written through. Raises `OSError` for anything else.
    """
    try:
        return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), mode)
    except OSError as exc:  # O_NOFOLLOW: a link gives ELOOP
        if exc.errno != errno.ELOOP and not os.path.islink(path):
            raise
    raise UnsafePath(
        path,
        "",
        f"{what} is a symlink; trajkit never writes through links in a conversation "
        "(delete the link and retry)",
    )


def check_regular(path: str | os.PathLike[str], st: os.stat_result) -> None:
    """Raise `InputError` unless `st` (an `fstat`) is a regular file."""
    if stat.S_ISREG(st.st_mode):
        return
    if stat.S_ISDIR(st.st_mode):
        raise NotRegularFile(path, "", "is a directory; expected a JSON file")
    what = (
        "a FIFO (named pipe)"
        if stat.S_ISFIFO(st.st_mode)
        else "a device"
        if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
        else "a socket"
        if stat.S_ISSOCK(st.st_mode)
        else "not a regular file"
    )
    raise NotRegularFile(path, "", f"{what}, not a regular file; not read")


def not_regular_error(path: str | os.PathLike[str]) -> NotRegularFile | None:
    """The `check_regular` refusal for a listed name (an `lstat`), or None for a regular file."""
    try:
        check_regular(path, os.lstat(path))
    except NotRegularFile as exc:
        return exc
    except OSError:  # gone since listed: the reader says so when it reads
        pass
    return None


def open_regular(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """Open `path` read-only without blocking; the descriptor and its `fstat` (a regular file).

    `O_NONBLOCK` makes opening a FIFO return at once instead of waiting for a writer; the
    `S_ISREG` check on the open descriptor (not on the name, which could change in between)
    refuses it. The caller closes the descriptor. Raises `OSError` for the open itself.
    """
    fd = os.open(path, _READ_FLAGS)
    try:
        st = os.fstat(fd)
        check_regular(path, st)
        if _READ_FLAGS & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)  # a regular file: plain blocking reads from here on
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def check_json_nodes(path: str | os.PathLike[str], raw: bytes, limit: int | None = None) -> None:
    """Refuse a JSON document holding more than `limit` values, before it is parsed.

    The file's length is a first upper bound (an event file is kilobytes, the limit a
    million values), a count of the bytes that start or separate values (`{`, `[`, `,`) the
    next; only when that passes the limit are strings blanked out and the count made exact.
    """
    limit = MAX_JSON_NODES if limit is None else limit
    if len(raw) <= limit:  # every value takes at least one byte: nothing to count
        return
    rough = raw.count(b"{") + raw.count(b"[") + raw.count(b",")
    if rough <= limit:
        return
    bare = _STRING_RE.sub(b'""', raw)
    nodes = bare.count(b"{") + bare.count(b"[") + bare.count(b",")
    del bare
    if nodes > limit:
        raise InputError(
            path,
            "",
            f"holds about {nodes:,} JSON values, above the limit of {limit:,} for one event or "
            "state file; not loaded (set TRAJKIT_MAX_JSON_NODES to raise it)",
        )


def refuse_output_inside(
    output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]]
) -> None:
    """Raise `UnsafePath` when `output` would be written inside an input conversation.

    A conversation folder (V1: `base_state.json` or `events/`; V0: an `events/` session or a
    `trajectory.json`) is never written into by `view`, `export` or `migrate`: the output
    would change the input, and be read back as part of it next time. Checked on the real
    paths (links resolved), walking up from `output`; storage URLs are not checked.
    """
    text = os.fspath(output)
    if "://" in text:
        return
    real = Path(os.path.realpath(text))
    roots = {os.path.realpath(os.fspath(p)) for p in inputs if "://" not in os.fspath(p)}
    for folder in (real, *real.parents):
        name = str(folder)
        below = name in roots or any(name.startswith(r.rstrip(os.sep) + os.sep) for r in roots)
        if below and _is_conversation(folder):
            raise UnsafePath(
                output,
                "",
                f"inside the input conversation {folder}; write the output outside it "
                "(trajkit never writes into a conversation it reads)",
            )


def _is_conversation(folder: Path) -> bool:
    return (
        (folder / EVENTS_DIR).is_dir()
        or (folder / BASE_STATE).is_file()
        or (folder / "trajectory.json").is_file()
    )
