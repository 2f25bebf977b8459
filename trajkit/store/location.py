"""Where a conversation, folder or file is: a local path or an object in storage, one interface.

Code outside `store/` never names the storage class (`trajkit.store.remote.RemotePath`): it
holds a `Location` (a `pathlib.Path`, or a storage URL made into a path-like value by
`as_location`) and asks these functions, which answer for both:

- `read_bytes(file)`: the file's bytes (size-limited, `InputError` naming it on failure);
- `list_names(folder)`: the names directly below a folder (one `scandir`, or one paginated
  listing in storage);
- `version_tag(file)`: what changes when the file changes (`size:mtime_ns` on disk, size and
  ETag or generation in storage), for incremental exports; None when it is missing;
- `exists`, `is_remote`, `is_link`, `is_conversation`, `file_size`, `label` for the few
  decisions callers make (a broken link exists locally; storage has no links).

Both kinds share `/`, `.name`, `.parent`, `is_file()` and `is_dir()`, so walking a corpus is
one piece of code (`trajkit.shapes.resolve_inputs`).

An export into a bucket writes through `storage_folder(url)`, a `StorageFolder`: list the
objects below it, download, upload (one PUT: whole or absent), delete.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeAlias

from trajkit.store.remote import (
    RemotePath,
    StorageError,
    as_remote,
    check_storage,
    is_remote_conversation,
    set_storage_options,
)

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # typing.TypeIs from Python 3.13

__all__ = [
    "Location",
    "StorageError",
    "StorageFolder",
    "as_location",
    "check_location",
    "exists",
    "file_size",
    "is_conversation",
    "is_link",
    "is_location",
    "is_remote",
    "label",
    "list_names",
    "read_bytes",
    "set_storage_options",
    "storage_folder",
    "version_tag",
]

Location: TypeAlias = Path | RemotePath
"""A local path, or a file or folder in object storage (`s3://…`, `gs://…`)."""


class StorageFolder(Protocol):
    """An output folder in object storage: no rename, no fsync, but one PUT is atomic."""

    def __fspath__(self) -> str:
        """Its URL (`s3://bucket/prefix`)."""
        ...

    def list_files(self) -> dict[str, int]:
        """Key relative to this folder -> size, for every object below it."""
        ...

    def download(self, key: str, local: str | os.PathLike[str]) -> None:
        """Copy the object `key` to the local file `local` (FileNotFoundError when missing)."""
        ...

    def upload(self, local: str | os.PathLike[str], key: str) -> None:
        """Store the local file `local` as the object `key`."""
        ...

    def delete(self, keys: Iterable[str]) -> None:
        """Delete the objects `keys`."""
        ...


def storage_folder(value: object) -> StorageFolder | None:
    """`value` as a folder in object storage when it names one (`s3://…`), else None."""
    return as_remote(value)


def as_location(value: str | os.PathLike[str]) -> Location:
    """`value` as a `Location`: a storage URL stays one, anything else is a `Path`."""
    return as_remote(value) or Path(value)


def is_location(value: object) -> TypeIs[Location]:
    """True for a `Location` (a folder or file), False for anything else (a V0 input, …)."""
    return isinstance(value, Path | RemotePath)


def is_remote(value: object) -> TypeIs[RemotePath]:
    """True for a location in object storage (no links, no file descriptors, one GET a read)."""
    return isinstance(value, RemotePath)


def check_location(location: object) -> None:
    """Fail fast before any work when `location` is in storage that cannot be used at all.

    Raises `trajkit.store.remote.StorageError` (a `UsageError`); local paths pass.
    """
    if isinstance(location, RemotePath):
        check_storage(location)


def exists(location: Location) -> bool:
    """True when something is there (locally, a broken symlink counts: it is reported)."""
    if isinstance(location, RemotePath):
        return location.exists()
    return os.path.lexists(location)


def is_link(location: Location) -> bool:
    """True for a local symbolic link (storage has none)."""
    return not isinstance(location, RemotePath) and os.path.islink(location)


def is_conversation(folder: Location) -> bool:
    """True when `folder` holds `base_state.json` or a V1 `events/` folder (not a V0 session)."""
    if isinstance(folder, RemotePath):
        return is_remote_conversation(folder)
    from trajkit.store.layout import is_conversation_folder

    return is_conversation_folder(folder)


def list_names(folder: Location) -> list[str]:
    """Names directly below `folder`, files and folders (OSError as `os.scandir` raises it)."""
    if isinstance(folder, RemotePath):
        return folder.list_names()
    with os.scandir(folder) as it:
        return [entry.name for entry in it]


def read_bytes(file: Location, *, max_bytes: int | None = None) -> bytes:
    """The whole file (`trajkit.store.reader.read_file_bytes`: size limit, `InputError`)."""
    from trajkit.store.reader import read_file_bytes

    return read_file_bytes(file, max_bytes=max_bytes)


def file_size(file: Location) -> int:
    """Size in bytes (in storage: from the folder's listing when known, else one request)."""
    if isinstance(file, RemotePath):
        size = file.size()
        return int(file.info().get("size") or 0) if size is None else size
    return os.stat(file).st_size


def version_tag(file: Location) -> str | None:
    """What changes when the file changes, or None when it is missing (see the docstring)."""
    if isinstance(file, RemotePath):
        try:
            return file.version_tag()
        except OSError:
            return None
    try:
        st = os.stat(file)
    except FileNotFoundError:
        return None
    return f"{st.st_size}:{st.st_mtime_ns}"


def label(location: Location | str) -> str:
    """The location as users and manifests name it: the URL, or the absolute local path."""
    if isinstance(location, RemotePath):
        return location.url
    return os.path.abspath(location)
