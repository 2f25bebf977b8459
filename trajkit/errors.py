"""The one error family trajkit's library raises.

```
TrajkitError                 anything trajkit reports to a user (CLI prints "Error: ..." and exits 1)
 +-- InputError              a file we read is not what we expected: names file, JSON pointer, what
 |    +-- UnsafePath         a name or id would put a file outside its conversation folder
 +-- OutputExists            refusing to overwrite an existing output (the hint says how)
 +-- UsageError              arguments that do not make sense together (CLI exits 2)
 +-- LockTimeout             another process held a conversation's lock too long (also TimeoutError)
 +-- StoreConflict           an append would break the log (duplicate id, unknown parent)
```

Library code raises these and never prints; `trajkit.cli` catches the family in one place.
Finding problems is `validate`'s job, so it yields problem records instead of raising these.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

__all__ = [
    "InputError",
    "LockTimeout",
    "OutputExists",
    "StoreConflict",
    "TrajkitError",
    "UnsafePath",
    "UsageError",
    "json_pointer",
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
        super().__init__(f"{self.path}:{pointer}: {message}")

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str, str]]:
        # Rebuild from the three parts, so the error survives a trip from a worker process.
        return (type(self), (self.path, self.pointer, self.message))


class UnsafePath(InputError):
    """A file name built from data (an event id, a relative path) escapes its folder."""


class OutputExists(TrajkitError):
    """An output file or folder already exists and overwriting it was not asked for."""

    def __init__(self, path: str | os.PathLike[str], hint: str = "pass --overwrite to replace it"):
        self.path = os.fspath(path)
        self.hint = hint
        super().__init__(f"{self.path}: already exists; {hint}")

    def __reduce__(self) -> tuple[type[OutputExists], tuple[str, str]]:
        return (type(self), (self.path, self.hint))


class UsageError(TrajkitError):
    """Arguments or options that do not fit together."""


class StoreConflict(TrajkitError):
    """Writing would break a conversation's invariants: a duplicate event id, an unknown parent."""


class LockTimeout(TrajkitError, TimeoutError):
    """A conversation lock could not be taken in time (another writer holds it).

    Also a `TimeoutError`, which is what the SDK raises in the same situation.
    """


def json_pointer(parts: Iterable[str | int]) -> str:
    """RFC 6901 pointer for a path of keys and indices: `("a/b", 0)` gives `/a~1b/0`."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)
