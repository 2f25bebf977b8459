"""Conversations in object storage: `s3://bucket/prefix/<uuid hex>/…` and `gs://…`, via fsspec.

The store reads local folders with `os` calls (the fast path, unchanged). A URL becomes a
`RemotePath`, a small path-like value (`/`, `.name`, `.parent`, `exists()`, `is_dir()`,
`is_file()`, `read_bytes()`, `list_entries()`) that the store's reader and `find_conversations()`
accept wherever they take a folder or a file. Code outside `store/` does not name this class: it
holds a `trajkit.store.location.Location` and asks that module's functions. It is picklable (protocol, key
and storage options; never the client), so worker processes and Ray workers reopen it with
their own client and their own credentials.

Design and invariants:
- Listing follows every page (S3 returns at most 1,000 keys a page): a conversation's
  `events/` is one paginated `ls`; walking a prefix for conversations reads `ListObjectsV2`
  page by page, so a level holding millions of folders streams in bounded memory. Listings
  are not cached (`use_listings_cache=False`): a corpus that changes is seen as it is.
  A folder's listing is kept on its `RemotePath` for its children, so `event_files()` gets
  each file's size and ETag without one request per file (the export fingerprint uses them).
- Reading is one GET per file, when the file is read: nothing is downloaded ahead.
- Finding conversations walks prefixes level by level. A child named like the SDK's folders
  (32 hex digits) is taken as a conversation without listing it first, so a bucket of a
  million conversations costs a thousand LIST requests, not a million; opening it checks it.
  (A local walk would instead descend into a hex-named folder that is not a conversation.)
- Credentials come from the usual environment of each process (`AWS_*`, `~/.aws`, instance
  roles; `GOOGLE_APPLICATION_CREDENTIALS` for GCS). The endpoint comes from `AWS_ENDPOINT_URL`
  (or `AWS_ENDPOINT_URL_S3`); more fsspec options from `TRAJKIT_STORAGE_OPTIONS` (a JSON
  object) or `--storage-option KEY=VALUE`. Options are copied into each `RemotePath` when it
  is made, so workers elsewhere use the same endpoint; keep secrets in the environment.
- Storage that cannot be used at all (no credentials, no such bucket, an endpoint that does
  not answer, a missing client package) raises `StorageError`, a `UsageError` (exit 2), from
  `check_storage()` before any work. Failures reading one file are `InputError`s naming it.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from trajkit.errors import InputError, UsageError
from trajkit.store._names import BASE_STATE, EVENTS_DIR, HEX_FOLDER_RE, V0_METADATA, v0_event_names

__all__ = [
    "RemotePath",
    "StorageError",
    "as_remote",
    "check_storage",
    "find_remote_conversations",
    "get_filesystem",
    "is_remote_conversation",
    "set_storage_options",
]

_URL_RE = re.compile(r"^(?P<protocol>[a-zA-Z][a-zA-Z0-9+.-]*)://(?P<key>.*)$")
# `Path("s3://b/k")` collapses the double slash; accept that form for the known protocols.
_MANGLED_RE = re.compile(r"^(?P<protocol>s3|s3a|gs|gcs):/(?P<key>[^/].*)$")
_S3 = ("s3", "s3a")
_GCS = ("gs", "gcs")

_cli_options: dict[str, Any] = {}
_filesystems: dict[tuple[int, str, str], Any] = {}


class StorageError(UsageError):
    """Object storage that cannot be used at all (credentials, bucket, endpoint, package)."""


def set_storage_options(options: Mapping[str, Any]) -> None:
    """Extra fsspec options for every `RemotePath` made from now on (`--storage-option`)."""
    _cli_options.clear()
    _cli_options.update(options)


def _default_options(protocol: str) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if protocol in _S3:
        endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        if endpoint:
            options["endpoint_url"] = endpoint
    extra = os.environ.get("TRAJKIT_STORAGE_OPTIONS")
    if extra:
        try:
            parsed = json.loads(extra)
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            raise StorageError("TRAJKIT_STORAGE_OPTIONS: expected a JSON object of fsspec options")
        options.update(parsed)
    options.update(_cli_options)
    return options


class RemotePath:
    """A file or folder in object storage (see the module docstring); `str()` is its URL."""

    __slots__ = ("_info", "_listing", "key", "options", "protocol")

    def __init__(self, protocol: str, key: str, options: Mapping[str, Any] | None = None) -> None:
        self.protocol = protocol.lower()
        self.key = key.strip("/")
        self.options: dict[str, Any] = dict(options or {})
        self._info: dict[str, Any] | None = None
        self._listing: dict[str, dict[str, Any]] | None = None

    @classmethod
    def from_url(cls, url: str, options: Mapping[str, Any] | None = None) -> RemotePath:
        m = _URL_RE.match(url) or _MANGLED_RE.match(url)
        if m is None:
            raise ValueError(f"not a storage URL: {url!r}")
        protocol = m.group("protocol").lower()
        merged = _default_options(protocol)
        merged.update(options or {})
        return cls(protocol, m.group("key"), merged)

    # path-like ------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"{self.protocol}://{self.key}"

    def __str__(self) -> str:
        return self.url

    def __fspath__(self) -> str:
        return self.url

    def __repr__(self) -> str:
        return f"RemotePath({self.url!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (RemotePath, (self.protocol, self.key, self.options))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RemotePath) and (self.protocol, self.key) == (
            other.protocol,
            other.key,
        )

    def __hash__(self) -> int:
        return hash((self.protocol, self.key))

    def __lt__(self, other: RemotePath) -> bool:
        return self.url < other.url

    @property
    def name(self) -> str:
        return posixpath.basename(self.key)

    @property
    def bucket(self) -> str:
        return self.key.split("/", 1)[0]

    @property
    def parent(self) -> RemotePath:
        return RemotePath(self.protocol, posixpath.dirname(self.key), self.options)

    def __truediv__(self, name: str) -> RemotePath:
        child = RemotePath(self.protocol, f"{self.key}/{name}", self.options)
        if self._listing is not None and "/" not in name:
            child._info = self._listing.get(name)
        return child

    # storage --------------------------------------------------------------------------------

    @property
    def fs(self) -> Any:
        return get_filesystem(self.protocol, self.options)

    def list_entries(self) -> dict[str, dict[str, Any]]:
        """Names directly below this folder -> fsspec info (`type`, `size`, …), all pages.

        Raises `FileNotFoundError` when nothing is stored below it.
        """
        entries: dict[str, dict[str, Any]] = {}
        for info in _call(self, lambda: self.fs.ls(self.key, detail=True)):
            name = posixpath.basename(str(info["name"]).rstrip("/"))
            if name and str(info["name"]).strip("/") != self.key:
                entries[name] = info
        self._listing = entries
        return entries

    def list_names(self) -> list[str]:
        """Names directly below this folder (files and sub-folders)."""
        return list(self.list_entries())

    def info(self) -> dict[str, Any]:
        if self._info is None:
            self._info = _call(self, lambda: self.fs.info(self.key))
        return self._info

    def exists(self) -> bool:
        try:
            self.info()
        except FileNotFoundError:
            return False
        return True

    def is_file(self) -> bool:
        try:
            return self.info().get("type") == "file"
        except FileNotFoundError:
            return False

    def is_dir(self) -> bool:
        if self._info is not None:
            return self._info.get("type") == "directory"
        return bool(_call(self, lambda: self.fs.isdir(self.key)))

    def size(self) -> int | None:
        """Size in bytes when known from a listing (or after `info()`), else None."""
        info = self._info
        return int(info["size"]) if info and info.get("size") is not None else None

    def version_tag(self) -> str:
        """What changes when the object changes: size and ETag (or generation/mtime)."""
        info = self.info()
        tag = info.get("ETag") or info.get("etag") or info.get("generation") or info.get("mtime")
        return f"{info.get('size')}:{tag or info.get('LastModified', '')}"

    def read_bytes(self, *, max_bytes: int | None = None) -> bytes:
        """The object's bytes (one GET); `InputError` when missing, unreadable or too large."""
        size = self.size()
        if max_bytes is not None and size is not None and size > max_bytes:
            raise InputError(
                self,
                "",
                f"file is {size / 2**20:.0f} MiB, above the {max_bytes / 2**20:.0f} MiB limit "
                "for one event or state file; set TRAJKIT_MAX_FILE_BYTES to raise it",
            )
        try:
            data = _call(self, lambda: self.fs.cat_file(self.key))
        except OSError as exc:
            raise InputError(self, "", _reason(exc)) from None
        if max_bytes is not None and len(data) > max_bytes:
            raise InputError(self, "", f"file is above the {max_bytes} byte limit")
        return bytes(data)

    # writing (an export published to a bucket: one PUT is atomic) --------------------------

    def list_files(self) -> dict[str, int]:
        """Key relative to this folder -> size, for every object below it (all pages)."""
        try:
            found = self.fs.find(self.key, detail=True)
        except FileNotFoundError:
            return {}
        prefix = self.key.rstrip("/") + "/"
        return {
            name[len(prefix) :]: int(info.get("size") or 0)
            for name, info in found.items()
            if name.startswith(prefix) and info.get("type") == "file"
        }

    def download(self, key: str, local: str | os.PathLike[str]) -> None:
        """Copy the object `key` (relative to this folder) to the local file `local`."""
        self.fs.get_file(f"{self.key}/{key}", os.fspath(local))

    def upload(self, local: str | os.PathLike[str], key: str) -> None:
        """Store the local file `local` as `key` below this folder (one PUT: whole or absent)."""
        self.fs.put_file(os.fspath(local), f"{self.key}/{key}")

    def delete(self, keys: Iterable[str]) -> None:
        """Delete the objects `keys` (relative to this folder)."""
        paths = [f"{self.key}/{key}" for key in keys]
        if paths:
            self.fs.rm(paths)


def as_remote(value: Any) -> RemotePath | None:
    """`value` as a `RemotePath` when it is one or names one (`s3://…`), else None."""
    if isinstance(value, RemotePath):
        return value
    if isinstance(value, str | os.PathLike):
        text = os.fspath(value)
        if isinstance(text, str) and (_URL_RE.match(text) or _MANGLED_RE.match(text)):
            if text.startswith("file://"):
                return None
            return RemotePath.from_url(text)
    return None


# filesystems ----------------------------------------------------------------------------------


def get_filesystem(protocol: str, options: Mapping[str, Any]) -> Any:
    """The fsspec filesystem for `protocol` with `options`, one per process (fork-safe)."""
    token = json.dumps(options, sort_keys=True, default=str)
    key = (os.getpid(), protocol, token)
    fs = _filesystems.get(key)
    if fs is None:
        fs = _filesystems[key] = _make_filesystem(protocol, dict(options))
    return fs


def _make_filesystem(protocol: str, options: dict[str, Any]) -> Any:
    try:
        import fsspec
    except ImportError:
        raise StorageError(_missing("fsspec", protocol)) from None
    if protocol in _S3:
        _require("s3fs", protocol)
        options.setdefault("use_listings_cache", False)
        config = dict(options.pop("config_kwargs", None) or {})
        config.setdefault("connect_timeout", 10)
        config.setdefault("retries", {"max_attempts": 3, "mode": "standard"})
        return fsspec.filesystem("s3", config_kwargs=config, **options)
    if protocol in _GCS:
        try:
            import gcsfs  # noqa: F401
        except ImportError:  # pyarrow's own GCS client, through fsspec's wrapper
            from fsspec.implementations.arrow import ArrowFSWrapper
            from pyarrow.fs import GcsFileSystem

            return ArrowFSWrapper(GcsFileSystem(**options))
        options.setdefault("use_listings_cache", False)
        return fsspec.filesystem("gcs", **options)
    try:
        return fsspec.filesystem(protocol, **options)
    except (ImportError, ValueError) as exc:
        raise StorageError(f"{protocol}://: cannot open this storage ({exc})") from None


def _require(package: str, protocol: str) -> None:
    try:
        __import__(package)
    except ImportError:
        raise StorageError(_missing(package, protocol)) from None


def _missing(package: str, protocol: str) -> str:
    extra = "gcs" if protocol in _GCS else "s3"
    return (
        f"{protocol}:// paths need the {package} package: pip install 'trajkit[{extra}]' "
        f"(or pip install {package})"
    )


def _call(path: RemotePath, func: Any) -> Any:
    """Run a storage call, turning "cannot use this storage at all" into `StorageError`."""
    try:
        return func()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise
    except Exception as exc:
        fatal = _fatal_reason(path, exc)
        if fatal is not None:
            raise StorageError(fatal) from None
        if isinstance(exc, OSError):
            raise
        raise OSError(str(exc) or type(exc).__name__) from exc


def _fatal_reason(path: RemotePath, exc: BaseException) -> str | None:
    name = type(exc).__name__
    text = str(exc)
    where = f"{path.protocol}://{path.bucket}"
    if (
        name in ("NoCredentialsError", "PartialCredentialsError")
        or "Unable to locate credentials" in text
    ):
        return (
            f"{where}: no credentials found; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
            "(or AWS_PROFILE), or run where an instance role provides them"
        )
    if name in ("EndpointConnectionError", "ConnectTimeoutError", "ConnectionClosedError") or (
        "Could not connect to the endpoint" in text
    ):
        endpoint = path.options.get("endpoint_url") or "the default endpoint"
        return f"{where}: cannot reach the storage endpoint {endpoint}; check AWS_ENDPOINT_URL and the network"
    if "bucket does not exist" in text.lower() or name == "NoSuchBucket":
        return f"{where}: bucket {path.bucket!r} does not exist"
    if name in ("InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken") or any(
        s in text for s in ("InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken")
    ):
        return f"{where}: the credentials were refused ({text.splitlines()[0] if text else name})"
    return None


def check_storage(path: RemotePath) -> None:
    """Fail fast, before any work: the client exists, credentials work, the bucket exists.

    One small request (a listing of at most one key, or the bucket's metadata). A prefix that
    holds nothing is not an error here; the caller reports it as it would a missing folder.
    """
    fs = path.fs
    try:
        if path.protocol in _S3:
            from fsspec.asyn import sync

            prefix = path.key[len(path.bucket) + 1 :]
            sync(
                fs.loop,
                fs._call_s3,
                "list_objects_v2",
                Bucket=path.bucket,
                Prefix=prefix,
                MaxKeys=1,
            )
        else:
            fs.ls(path.bucket, detail=False)
    except StorageError:
        raise
    except FileNotFoundError as exc:
        if "bucket" in str(exc).lower() or path.protocol not in _S3:
            raise StorageError(
                f"{path.protocol}://{path.bucket}: bucket {path.bucket!r} does not exist"
            ) from None
        raise
    except Exception as exc:
        reason = _fatal_reason(path, exc)
        if reason is None:
            reason = f"{path.protocol}://{path.bucket}: cannot use this storage ({type(exc).__name__}: {exc})"
        raise StorageError(reason) from None


# conversations --------------------------------------------------------------------------------


def is_remote_conversation(
    path: RemotePath, entries: Mapping[str, Mapping[str, Any]] | None = None
) -> bool:
    """True when `path` holds `base_state.json` or an `events/` folder (not a V0 session)."""
    if entries is None:
        try:
            entries = path.list_entries()
        except (FileNotFoundError, NotADirectoryError):
            return False
    state = entries.get(BASE_STATE)
    if state is not None and state.get("type") == "file":
        return True
    events = entries.get(EVENTS_DIR)
    if events is None or events.get("type") != "directory":
        return False
    if V0_METADATA not in entries:
        return True
    try:  # a V0 session: events/0.json, events/1.json next to metadata.json
        return not v0_event_names((path / EVENTS_DIR).list_names())
    except FileNotFoundError:
        return True


def find_remote_conversations(root: RemotePath) -> Iterator[RemotePath]:
    """Conversation folders at or below `root`, in name order at each level.

    Raises `InputError` when nothing is stored under `root`.
    """
    check_storage(root)
    if not root.exists():
        raise InputError(root, "", "no such file or folder")
    if root.is_file():
        return
    yield from _walk(root)


def _walk(folder: RemotePath) -> Iterator[RemotePath]:
    if _holds_conversation(folder):
        yield folder
        return
    for name in _iter_subfolders(folder):
        child = folder / name
        if HEX_FOLDER_RE.match(name):
            yield child  # the SDK's <uuid hex>/ folder: checked when opened
        else:
            yield from _walk(child)


def _holds_conversation(folder: RemotePath) -> bool:
    """`is_remote_conversation` without listing the folder (it may hold millions of entries)."""
    if folder.protocol not in _S3:
        try:
            return is_remote_conversation(folder, folder.list_entries())
        except (FileNotFoundError, NotADirectoryError):
            return False
    if (folder / BASE_STATE).is_file():
        return True
    if not _s3_page(folder / EVENTS_DIR, max_keys=1).get("KeyCount"):
        return False
    return not (folder / V0_METADATA).is_file() or is_remote_conversation(folder)


def _iter_subfolders(folder: RemotePath) -> Iterator[str]:
    """Names of the folders directly below `folder`, one listing page (1,000) at a time.

    Within a page names are sorted; pages come in S3's key order, so a level of any size
    streams in bounded memory.
    """
    if folder.protocol not in _S3:
        try:
            entries = folder.list_entries()
        except (FileNotFoundError, NotADirectoryError):
            return
        yield from sorted(n for n, i in entries.items() if i.get("type") == "directory")
        return
    token: str | None = None
    while True:
        page = _s3_page(folder, delimiter="/", token=token)
        prefix_len = len(folder.key) - len(folder.bucket)  # "prefix/" below the bucket
        names = [p["Prefix"][prefix_len:].rstrip("/") for p in page.get("CommonPrefixes", [])]
        yield from sorted(n for n in names if n)
        token = page.get("NextContinuationToken")
        if not page.get("IsTruncated") or not token:
            return


def _s3_page(
    folder: RemotePath, *, delimiter: str = "", token: str | None = None, max_keys: int = 1000
) -> dict[str, Any]:
    """One `ListObjectsV2` page of the keys below `folder/`."""
    from fsspec.asyn import sync

    fs = folder.fs
    prefix = folder.key[len(folder.bucket) + 1 :]
    kwargs: dict[str, Any] = {
        "Bucket": folder.bucket,
        "Prefix": f"{prefix}/" if prefix else "",
        "MaxKeys": max_keys,
    }
    if delimiter:
        kwargs["Delimiter"] = delimiter
    if token:
        kwargs["ContinuationToken"] = token
    result: dict[str, Any] = _call(
        folder, lambda: sync(fs.loop, fs._call_s3, "list_objects_v2", **kwargs)
    )
    return result


def _reason(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, PermissionError):
        return "permission denied"
    return exc.strerror.lower() if exc.strerror else str(exc)
