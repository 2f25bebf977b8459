"""The index of `trajkit serve`: `CatalogRow`s in a SQLite cache, with FTS5 full-text search.

`Catalog(paths, db_path)`:
- `scan()` walks the PATHs (`summary.iter_sources`, as `ls`/`stats` do), keeps the rows whose
  fingerprint (`catalog.source_fingerprint`) is unchanged, reads the others (`source_row`)
  and drops rows of conversations that are gone. A second start over the same folders reads
  nothing but `stat`s. Conversations whose real path is outside every PATH (a symlink leading
  out) are not listed.
- `query(...)` returns one page of rows, sorted, filtered (status, model, tool, date, has
  errors) and searched (FTS5 over each conversation's text: every word must occur, as a
  prefix), with the total and the facets for the filter menus.
- `source(key)` gives back what a key names (V1 folder, or V0 file and line) for the pages.

SQLite because it pages, sorts and searches 100,000 rows on disk in milliseconds while the
server holds none of them in memory, and it ships with Python.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajkit.errors import TrajkitError
from trajkit.redact import SecretMasker
from trajkit.store.atomic import make_folder, make_private
from trajkit.views.load import mask_fields
from trajkit.views.summary import Skipped, iter_sources

if TYPE_CHECKING:
    from trajkit.views.catalog import CatalogRow

__all__ = ["SORTABLE", "Catalog", "Source", "default_cache_path"]

_SCHEMA_VERSION = "1"
_BATCH = 256
"""Rows read per batch (one commit each, so an interrupted first scan keeps its progress)."""
SORTABLE = (
    "status", "model", "events", "tool_calls", "tool_errors", "errors", "cost", "tokens",
    "duration_s", "first_time", "last_time", "first_message", "outcome", "id",
)  # fmt: skip
_COLUMNS = (
    "key", "id", "path", "container", "line", "fingerprint", "status", "model", "events",
    "tool_calls", "tool_errors", "errors", "cost", "tokens", "duration_s", "first_time",
    "last_time", "first_message", "outcome", "problems",
)  # fmt: skip
_TYPES = dict.fromkeys(
    ("line", "events", "tool_calls", "tool_errors", "errors", "tokens"), "INTEGER"
)
_TYPES.update(problems="INTEGER", cost="REAL", duration_s="REAL")
_INDEXED = ("first_time", "status", "model", "cost", "events", "errors")
_ROW_FIELDS = tuple(c for c in _COLUMNS if c not in ("container", "line", "fingerprint"))


@dataclass(frozen=True)
class Source:
    """Where a key's conversation is: a folder or an address (`file.jsonl#key`); `container`
    and `line` are left from older caches (a V0 record is an address now).
    """

    path: str
    container: str | None = None
    line: int | None = None


def default_cache_path(paths: Iterable[str]) -> Path:
    """`$XDG_CACHE_HOME/trajkit/serve-<digest of the PATHs>.sqlite3` (~/.cache by default)."""
    digest = hashlib.sha1("\n".join(sorted(os.path.abspath(p) for p in paths)).encode())
    return _cache_folder() / f"serve-{digest.hexdigest()[:16]}.sqlite3"


def _cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "trajkit"


def _make_private(db_path: Path) -> None:
    """The cache holds every conversation's text: its files 0600, trajkit's folder 0700.

    A folder created here is 0700, and so is trajkit's own cache folder even when it exists; a
    folder the user chose with `--cache` that exists already is theirs and keeps its mode. The
    file is created 0600 before SQLite opens it (SQLite gives `-wal` and `-shm` the mode of the
    database), and files left by an older trajkit are tightened.
    """
    folder = make_folder(db_path.parent, private=True)
    if os.path.realpath(folder) == os.path.realpath(_cache_folder()):
        make_private(folder)
    make_private(db_path, create=True)
    for name in (f"{db_path}-wal", f"{db_path}-shm"):
        make_private(name)


class Catalog:
    """The rows of every conversation under `paths`, cached in `db_path` (see the module)."""

    def __init__(
        self, paths: list[str], db_path: Path, *, workers: int = 1, redact: bool = True
    ) -> None:
        self.paths = paths
        self.masker = SecretMasker((), api_keys=True) if redact else None
        """Masks secrets in rows and pages (`views.load`); None with `--no-redact`."""
        self.workers = workers
        self.roots = [os.path.realpath(p) for p in paths if "://" not in p]
        self.db_path = db_path
        self.problems: list[str] = []
        self.scanning = False
        self.scanned = 0
        self.scans = 0
        self.last_scan_s = 0.0
        self.version = 0
        self._facets: tuple[int, dict[str, list[str]]] | None = None
        self._local = threading.local()
        _make_private(db_path)
        self._create()

    # -- storage -----------------------------------------------------------------------------

    def _db(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.db_path, timeout=30)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA secure_delete=ON")  # a replaced row's text leaves the file
            self._local.conn = conn
        return conn

    def _create(self) -> None:
        db = self._db()
        db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
        found = db.execute("SELECT value FROM meta WHERE name='schema'").fetchone()
        if found is None or found[0] != _SCHEMA_VERSION:
            for table in ("rows", "row_tools", "fts"):
                db.execute(f"DROP TABLE IF EXISTS {table}")
        cols = ", ".join(f"{c} {_TYPES.get(c, 'TEXT')}" for c in _COLUMNS)
        db.execute(f"CREATE TABLE IF NOT EXISTS rows (rid INTEGER PRIMARY KEY, {cols})")
        db.execute("CREATE UNIQUE INDEX IF NOT EXISTS rows_key ON rows(key)")
        for column in _INDEXED:  # the default sort, the facets and filters, common sorts
            db.execute(f"CREATE INDEX IF NOT EXISTS rows_{column} ON rows({column})")
        db.execute("CREATE TABLE IF NOT EXISTS row_tools (rid INTEGER, tool TEXT)")
        db.execute("CREATE INDEX IF NOT EXISTS row_tools_tool ON row_tools(tool)")
        db.execute("CREATE INDEX IF NOT EXISTS row_tools_rid ON row_tools(rid)")
        db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(body, tokenize='unicode61')")
        db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (_SCHEMA_VERSION,))
        db.commit()

    # -- scanning ----------------------------------------------------------------------------

    def inside(self, path: str) -> bool:
        """Whether `path`, symlinks resolved, is under one of the PATHs."""
        if "://" in path:
            return True
        real = os.path.realpath(path)
        return any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in self.roots)

    def scan(self) -> int:
        """Bring the cache up to date with the folders; returns how many rows were (re)read.

        The walk is lazy; rows to (re)read go to up to `self.workers` processes, and are
        committed every `_BATCH` rows (an interrupted first scan keeps its progress).
        """
        from trajkit.corpus import map_conversations
        from trajkit.views.catalog import source_fingerprint, source_key

        started = time.monotonic()
        db = self._db()
        known = dict(db.execute("SELECT key, fingerprint FROM rows").fetchall())
        seen: set[str] = set()
        problems: list[str] = []
        todo: deque[tuple[Any, str, str]] = deque()

        def changed_sources() -> Iterator[Any]:
            for source in iter_sources(self.paths):
                if isinstance(source, Skipped):
                    problems.append(str(source))
                    continue
                where = str(source) if isinstance(source, os.PathLike) else source.path
                if not self.inside(where):
                    problems.append(f"{where}:: leads outside the served folders; not listed")
                    continue
                key = source_key(source)
                seen.add(key)
                self.scanned += 1
                if self.scanned % 200 == 0:
                    time.sleep(0.002)  # let request threads have the GIL during long scans
                fingerprint = source_fingerprint(source, clear=not self.masker)
                if known.get(key) == fingerprint:  # remote (s3://) rows: read once per cache
                    continue
                todo.append((source, where, fingerprint))
                yield source

        changed = 0
        self.scanning, self.scanned = True, 0
        try:
            rows = map_conversations(
                _row_or_problem, changed_sources(), workers=self.workers, chunksize=16
            )
            for row in rows:
                source, where, fingerprint = todo.popleft()
                if isinstance(row, str):
                    problems.append(row)
                    continue
                container = None if isinstance(source, os.PathLike) else source.container
                line = None if isinstance(source, os.PathLike) else source.line
                self._store(db, row, where, container, line, fingerprint)
                changed += 1
                if changed % _BATCH == 0:
                    db.commit()
            gone = [k for k in known if k not in seen]
            for key in gone:
                self._delete(db, key)
            db.commit()
        finally:
            self.scanning = False
        self.problems = problems
        self.version += 1 if changed or gone else 0
        self.scans += 1
        self.last_scan_s = time.monotonic() - started
        return changed + len(gone)

    def _delete(self, db: sqlite3.Connection, key: str) -> None:
        found = db.execute("SELECT rid FROM rows WHERE key=?", (key,)).fetchone()
        if found is None:
            return
        db.execute("DELETE FROM rows WHERE rid=?", found)
        db.execute("DELETE FROM row_tools WHERE rid=?", found)
        db.execute("DELETE FROM fts WHERE rowid=?", found)

    def _store(
        self,
        db: sqlite3.Connection,
        row: CatalogRow,
        path: str,
        container: str | None,
        line: int | None,
        fingerprint: str,
    ) -> None:
        self._delete(db, row.key)
        row = mask_fields(row, self.masker)
        values = {**row.to_dict(), "path": path, "container": container, "line": line}
        values["fingerprint"] = fingerprint
        cur = db.execute(
            f"INSERT INTO rows ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})",
            [values[c] for c in _COLUMNS],
        )
        rid = cur.lastrowid
        db.executemany("INSERT INTO row_tools VALUES (?, ?)", [(rid, t) for t in row.tools])
        body = " ".join([row.id, row.model or "", row.status or "", row.first_message, row.text])
        db.execute("INSERT INTO fts (rowid, body) VALUES (?, ?)", (rid, body))

    # -- reading -----------------------------------------------------------------------------

    def source(self, key: str) -> Source | None:
        """What `key` names, or None (an unknown key, or a path no longer under the PATHs)."""
        found = (
            self._db()
            .execute("SELECT path, container, line FROM rows WHERE key=?", (key,))
            .fetchone()
        )
        if found is None or not self.inside(found[0]):
            return None
        return Source(found[0], found[1], found[2])

    def query(
        self,
        *,
        sort: str = "first_time",
        order: str = "desc",
        page: int = 0,
        size: int = 50,
        status: str = "",
        model: str = "",
        tool: str = "",
        since: str = "",
        until: str = "",
        errors: bool = False,
        q: str = "",
    ) -> dict[str, Any]:
        """One page of rows with `total` (matching), `all` (every row) and `facets`."""
        where, args = [], []
        for column, value in (("status", status), ("model", model)):
            if value:
                where.append(f"{column} = ?")
                args.append(value)
        if tool:
            where.append("rid IN (SELECT rid FROM row_tools WHERE tool = ?)")
            args.append(tool)
        if since:
            where.append("first_time >= ?")
            args.append(since)
        if until:
            where.append("substr(first_time, 1, 10) <= ?")
            args.append(until)
        if errors:
            where.append("errors > 0")
        match = fts_query(q)
        if match:
            where.append("rid IN (SELECT rowid FROM fts WHERE fts MATCH ?)")
            args.append(match)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        column = sort if sort in SORTABLE else "first_time"
        direction = "ASC" if order == "asc" else "DESC"
        size = max(1, min(size, 500))
        page = max(0, page)
        db = self._db()
        total = db.execute(f"SELECT count(*) FROM rows {clause}", args).fetchone()[0]
        # Rows without a value go last either way (SQLite sorts NULL first): DESC already does
        # it, and keeps the column's index usable for the default sort.
        order_by = f"{column} DESC" if direction == "DESC" else f"{column} IS NULL, {column}"
        cur = db.execute(
            f"SELECT {', '.join(_ROW_FIELDS)} FROM rows {clause} "
            f"ORDER BY {order_by} LIMIT ? OFFSET ?",  # ties: index (rowid) order
            [*args, size, page * size],
        )
        rows = [dict(zip(_ROW_FIELDS, r, strict=True)) for r in cur.fetchall()]
        return {
            "total": total,
            "all": db.execute("SELECT count(*) FROM rows").fetchone()[0],
            "page": page,
            "rows": rows,
            "facets": self.facets(),
            "indexing": self.scanned if self.scanning and self.scans == 0 else 0,
        }

    def facets(self) -> dict[str, list[str]]:
        """The distinct statuses, models and tools, for the filter menus (cached per scan)."""
        if self._facets is not None and self._facets[0] == self.version:
            return self._facets[1]
        db = self._db()

        def distinct(sql: str) -> list[str]:
            return [r[0] for r in db.execute(sql).fetchall() if r[0]]

        found = {
            "status": distinct("SELECT DISTINCT status FROM rows ORDER BY 1"),
            "model": distinct("SELECT DISTINCT model FROM rows ORDER BY 1"),
            "tool": distinct("SELECT DISTINCT tool FROM row_tools ORDER BY 1"),
        }
        self._facets = (self.version, found)
        return found


def _row_or_problem(source: Any) -> CatalogRow | str:
    """`source_row`, or the problem as text (runs in a worker process)."""
    from trajkit.views.catalog import source_row

    try:
        return source_row(source)
    except TrajkitError as exc:
        return str(exc)


def fts_query(text: str) -> str:
    """The FTS5 expression for what a person typed: every word, as a prefix ("" for none)."""
    words = re.findall(r"\w+", text)
    return " ".join(f'"{w}"*' for w in words[:20])
