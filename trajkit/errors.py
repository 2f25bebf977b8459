"""The one error family trajkit's library raises.

```
TrajkitError                 anything trajkit reports to a user (CLI prints "Error: ..." and exits 1)
 +-- InputError              a file we read is not what we expected: names file, JSON pointer, what
 |    +-- UnsafePath         a name or id would put a file outside its conversation folder
 +-- OutputError             an output cannot be written: names the path and the OS reason
 |    +-- OutputExists       refusing to overwrite an existing output (the hint says how)
 +-- UsageError              arguments that do not make sense together (CLI exits 2)
 |    +-- EngineError        the chosen engine cannot run here (package missing, cluster unreachable)
 +-- LockTimeout             another process held a conversation's lock too long (also TimeoutError)
 +-- StoreConflict           an append would break the log (duplicate id, unknown parent)
```

Library code raises these and never prints; `trajkit.cli` catches the family in one place.
Finding problems is `validate`'s job, so it yields problem records instead of raising these.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "ConversationLockedError",
    "EngineError",
    "InputError",
    "LockTimeout",
    "OutputError",
    "OutputExists",
    "StoreConflict",
    "TrajkitError",
    "UnsafePath",
    "UsageError",
    "WriteFailed",
    "json_pointer",
    "pointer_for_loc",
]


class TrajkitError(Exception):
    """Base class of every error trajkit raises on purpose."""


class InputError(TrajkitError):
    """Input that trajkit cannot use; `str()` is `path:pointer: message`.

    Args:
        path: the file (or folder) that was read.
        pointer: RFC 6901 JSON pointer inside it ("" for the whole file).
        message: what was expected and what was found.
    """

    def __init__(self, path: str | os.PathLike[str], pointer: str, message: str) -> None:
        self.path = os.fspath(path)
        self.pointer = pointer
        self.message = message
        where = f"{self.path}:{pointer}" if pointer else self.path
        super().__init__(f"{where}: {message}")

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str, str]]:
        # Rebuild from the three parts, so the error survives a trip from a worker process.
        return (type(self), (self.path, self.pointer, self.message))


class UnsafePath(InputError):
    """A file name built from data (an event id, a relative path) escapes its folder."""


class OutputError(TrajkitError):
    """An output (file or folder) cannot be written; `str()` is `path: cannot write: reason`.

    Args:
        path: the output the user named (not a temp file next to it).
        reason: why, in the OS's words where there are some ("No space left on device").
    """

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = os.fspath(path)
        self.reason = reason
        super().__init__(f"{self.path}: cannot write: {reason}")

    @classmethod
    def from_os(cls, path: str | os.PathLike[str], exc: OSError) -> OutputError:
        """The error for `exc` raised while writing `path` (its temp file, its folder, ...)."""
        reason = exc.strerror or str(exc)
        name = errno.errorcode.get(exc.errno or 0)
        where = exc.filename if exc.filename is not None else None
        detail = f"{reason} ({name})" if name else reason
        if where is not None and os.fspath(where) != os.fspath(path):
            shown = os.fspath(where)
            if not os.path.basename(shown).startswith("."):  # not our temp file: say which
                detail += f" at {shown}"
        return cls(path, detail)

    def __reduce__(self) -> tuple[type[OutputError], tuple[str, str]]:
        return (type(self), (self.path, self.reason))


class OutputExists(OutputError):
    """An output file or folder already exists and overwriting it was not asked for."""

    def __init__(self, path: str | os.PathLike[str], hint: str = "pass --overwrite to replace it"):
        self.hint = hint
        TrajkitError.__init__(self, f"{os.fspath(path)}: already exists; {hint}")
        self.path = os.fspath(path)
        self.reason = f"already exists; {hint}"

    def __reduce__(self) -> tuple[type[OutputExists], tuple[str, str]]:
        return (type(self), (self.path, self.hint))


class UsageError(TrajkitError):
    """Arguments or options that do not fit together."""


class EngineError(UsageError):
    """The chosen engine cannot run here (package missing, cluster unreachable)."""


class StoreConflict(TrajkitError):
    """Writing would break a conversation's invariants: a duplicate event id, an unknown parent."""


class ConversationLockedError(TrajkitError):
    """Another live writer (a `Conversation`, or `trajkit repair`) holds the conversation.

    Args:
        folder: the conversation folder.
        pid: the holder's process id, when it could be read.
        this_process: the holder is another live object of this process.
    """

    def __init__(
        self, folder: str | os.PathLike[str], pid: int | None, *, this_process: bool = False
    ) -> None:
        self.folder = os.fspath(folder)
        self.pid = pid
        holder = f"pid {pid}" if pid and pid > 0 else "another process"
        if this_process:
            holder = f"another Conversation object of this process ({holder})"
        super().__init__(
            f"{self.folder}: conversation in use by {holder} (a live Conversation or repair "
            "holds its writer lock); nothing was changed. Close that one first, or wait: a "
            "lock left by a process that died does not block"
        )


class WriteFailed(TrajkitError):
    """A file could not be written (a full disk, a read-only folder); what was there is kept.

    Args:
        path: the file or folder being written.
        reason: the operating system's reason.
    """

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = os.fspath(path)
        super().__init__(f"{self.path}: cannot write: {reason}")


class LockTimeout(TrajkitError, TimeoutError):
    """A conversation lock could not be taken in time (another writer holds it).

    Also a `TimeoutError`, which is what the SDK raises in the same situation.
    """


def json_pointer(parts: Iterable[str | int]) -> str:
    """RFC 6901 pointer for a path of keys and indices: `("a/b", 0)` gives `/a~1b/0`.

    A key that holds a provider API key (a secret used as a field name) is masked
    (`trajkit.redact.mask_api_keys`), so no error line prints it; the pointer still says where.
    """
    return "".join("/" + _pointer_token(p) for p in parts)


def _pointer_token(part: str | int) -> str:
    text = str(part)
    if len(text) >= _SHORTEST_KEY:
        from trajkit.redact import mask_api_keys  # only for long keys: most are short names

        text = mask_api_keys(text)
    return text.replace("~", "~0").replace("/", "~1")


_SHORTEST_KEY = 16
"""No provider key (`trajkit.redact`'s patterns) is shorter: shorter keys are not looked at."""


def value_at_pointer(data: Any, pointer: str) -> Any:
    """The value `pointer` (RFC 6901, as `json_pointer` makes it) names in `data`; None if none."""
    node = data
    for part in pointer.split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping):
            node = node.get(key)
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node


def pointer_for_loc(data: Any, loc: Sequence[str | int]) -> str:
    """JSON pointer into `data` for a pydantic error location (`ValidationError.errors()` `loc`).

    pydantic puts tagged-union tags (`"ActionEvent"`, `"function-after[...]"`) in `loc`; walking
    `data` along `loc` drops whatever is not a real key or index, so the pointer is one a user can
    follow in the file. A missing key is kept (it names what is required). `data` None (the text
    did not decode) gives `loc` as it is.
    """
    if data is None:
        return json_pointer(loc)
    out: list[str | int] = []
    node = data
    for part in loc:
        if _has(node, part):
            out.append(part)
            node = node[part]
        elif isinstance(node, dict | list):
            if isinstance(node, dict) and isinstance(part, str) and not _looks_like_tag(part):
                out.append(part)  # a missing key
                node = None
            # else: a union tag, or an index past the end
        else:
            out.append(part)  # below a missing key
    return json_pointer(out)


def _has(node: Any, part: str | int) -> bool:
    if isinstance(node, dict):
        return isinstance(part, str) and part in node
    return isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)


def _looks_like_tag(part: str) -> bool:
    # Union tags are class names ("TerminalAction") or pydantic's "function-after[...]" forms;
    # the format's own keys are snake_case.
    return part[:1].isupper() or "[" in part
