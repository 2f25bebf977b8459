"""How every shape opens an input file: through the store's guard (`open_regular`)."""

from __future__ import annotations

import os
from typing import Any, BinaryIO

import orjson

from trajkit.errors import InputError
from trajkit.store.guard import open_regular

__all__ = ["json_object", "open_input", "read_head"]

SNIFF = 64 * 1024
"""Bytes read of a file to tell its shape."""


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


def read_head(path: str | os.PathLike[str], size: int = SNIFF) -> bytes:
    """The first `size` bytes of `path` (b"" when it cannot be read: it then holds no shape)."""
    try:
        with open_input(path) as fh:
            return fh.read(size)
    except (OSError, InputError):
        return b""


def json_object(label: str, data: bytes, *, bad_json: str, not_object: str) -> dict[str, Any]:
    """`data` (one line of a JSONL file) as an object; else `InputError` naming `label`, with
    `bad_json` (its `{exc}`: the parser's reason) or `not_object` as the message.
    """
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InputError(label, "", bad_json.format(exc=exc)) from None
    if not isinstance(value, dict):
        raise InputError(label, "", not_object)
    return value
