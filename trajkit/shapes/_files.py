"""How every shape opens an input file: through the store's guard (`open_regular`)."""

from __future__ import annotations

import os
from typing import BinaryIO

from trajkit.errors import InputError
from trajkit.store.guard import open_regular

__all__ = ["open_input"]


def open_input(path: str | os.PathLike[str]) -> BinaryIO:
    """`path` opened for reading; a FIFO, device or socket is refused before a byte is read
    (it never blocks the command), as for the files of a conversation folder.

    Raises `InputError` naming the path.
    """
    try:
        fd, _ = open_regular(path)
    except OSError as exc:
        raise InputError(path, "", (exc.strerror or str(exc)).lower()) from None
    return os.fdopen(fd, "rb")
