"""Parquet shards written in row groups as rows arrive, renamed into place only when closed.

`ShardWriter` keeps one open shard per table. Record batches are buffered until a row group's
worth (`row_group_rows` rows or `row_group_bytes` bytes) is there, then written, so memory holds
at most one row group per table. After a row group, a shard holding `shard_rows` rows (or
`shard_bytes` bytes) is closed and the next batch opens a new one; rotation happens only between
`write()` calls, so one conversation's rows never straddle two shards.

Crash safety: `trajkit.store.atomic.atomic_writer` (write a temp file, fsync it, rename it over
the final name, fsync the folder) with `temp_dir=`: the temp file lives in a staging folder
`OUT_DIR/.staging/` on the same file system, not next to the shard. A table folder therefore only
ever holds whole shards, whatever the reader does: DuckDB's `*.parquet` glob matches hidden
files too, and Polars refuses a folder holding files of another extension. A crash leaves at
most a staged file, which the next export removes (`remove_leftovers`).
"""

from __future__ import annotations

import contextlib
import re
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from trajkit.store.atomic import atomic_writer, is_temp_file, make_folder

__all__ = [
    "SHARD_RE",
    "STAGING_DIR",
    "ShardWriter",
    "filter_shard",
    "remove_leftovers",
    "shard_name",
]

SHARD_RE = re.compile(r"^part-(\d{5,})(?:-\d{3,})?\.parquet$")
"""Names of the shards an export writes."""


STAGING_DIR = ".staging"
"""Folder of OUT_DIR holding shards being written."""


@contextlib.contextmanager
def staged_file(target: Path, staging: Path) -> Iterator[BinaryIO]:
    """Write `target` through a temp file in `staging`; renamed into place on a clean exit."""
    make_folder(staging)
    make_folder(target.parent)
    with atomic_writer(target, temp_dir=staging) as f:
        yield f


def shard_name(number: int) -> str:
    """`part-00012.parquet`."""
    return f"part-{number:05d}.parquet"


class ShardWriter:
    """Append record batches to a table folder as zstd Parquet shards (see the module docstring)."""

    def __init__(
        self,
        folder: Path,
        schema: pa.Schema,
        next_name: Callable[[], str],
        *,
        staging: Path,
        row_group_rows: int = 10_000,
        row_group_bytes: int = 32 * 2**20,
        shard_rows: int = 500_000,
        shard_bytes: int = 512 * 2**20,
    ) -> None:
        self.folder = folder
        self.staging = staging
        self.schema = schema
        self._next_name = next_name
        self._row_group_rows = row_group_rows
        self._row_group_bytes = row_group_bytes
        self._shard_rows = shard_rows
        self._shard_bytes = shard_bytes
        self._buffer: list[pa.RecordBatch] = []
        self._buffered_rows = 0
        self._buffered_bytes = 0
        self._stack: contextlib.ExitStack | None = None
        self._writer: pq.ParquetWriter | None = None
        self._name: str | None = None
        self._shard_rows_written = 0
        self._shard_bytes_written = 0
        self._holding = False
        self.closed_shards: list[str] = []
        """Names of the shards closed (renamed into place) so far."""

    @property
    def row_group_rows(self) -> int:
        """Rows that complete a row group."""
        return self._row_group_rows

    @property
    def buffered_rows(self) -> int:
        """Rows queued for the next row group."""
        return self._buffered_rows

    @property
    def current_shard(self) -> str:
        """Name the next rows will land in (opening a shard name if none is open)."""
        if self._name is None:
            self._name = self._next_name()
        return self._name

    def write(self, batch: pa.RecordBatch) -> str:
        """Queue `batch`; returns the shard name its rows will be in."""
        name = self.current_shard
        if batch.num_rows:
            self._buffer.append(batch)
            self._buffered_rows += batch.num_rows
            self._buffered_bytes += batch.nbytes
        if (
            self._buffered_rows >= self._row_group_rows
            or self._buffered_bytes >= self._row_group_bytes
        ):
            self._flush()
        return name

    def write_all(self, batches: Iterable[pa.RecordBatch]) -> str:
        """`write` each batch of one conversation; its rows stay in one shard (the shard
        rotates after the last one). Returns that shard's name.
        """
        self._holding = True
        try:
            for batch in batches:
                self.write(batch)
        finally:
            self._holding = False
        name = self.current_shard
        if not self._buffer:  # else the next row group, written here first, rotates
            self._rotate()
        return name

    def _flush(self) -> None:
        if not self._buffer:
            return
        table = pa.Table.from_batches(self._buffer, schema=self.schema)
        writer = self._open()
        writer.write_table(table, row_group_size=max(table.num_rows, 1))
        self._shard_rows_written += table.num_rows
        self._shard_bytes_written += self._buffered_bytes
        self._buffer.clear()
        self._buffered_rows = self._buffered_bytes = 0
        self._rotate()

    def _rotate(self) -> None:
        """Close the shard when full (not in the middle of `write_all`)."""
        if not self._holding and (
            self._shard_rows_written >= self._shard_rows
            or self._shard_bytes_written >= self._shard_bytes
        ):
            self._close_shard()

    def _open(self) -> pq.ParquetWriter:
        if self._writer is None:
            stack = contextlib.ExitStack()
            f = stack.enter_context(staged_file(self.folder / self.current_shard, self.staging))
            self._writer = pq.ParquetWriter(f, self.schema, **_writer_options(self.schema))
            self._stack = stack
        return self._writer

    def _close_shard(self) -> None:
        if self._writer is not None and self._stack is not None:
            self._writer.close()
            self._stack.close()  # fsync + rename + fsync folder
            self.closed_shards.append(self.current_shard)
        self._writer = None
        self._stack = None
        self._name = None
        self._shard_rows_written = self._shard_bytes_written = 0

    def close(self) -> list[str]:
        """Write what is buffered, close the open shard; returns every shard closed."""
        self._flush()
        self._close_shard()
        return self.closed_shards

    def abort(self) -> None:
        """Drop the open shard (its temp file is removed); closed shards stay."""
        self._buffer.clear()
        if self._stack is not None:
            with contextlib.suppress(Exception):
                if self._writer is not None:
                    self._writer.close()
            self._stack.__exit__(RuntimeError, RuntimeError("export aborted"), None)
        self._writer = None
        self._stack = None
        self._name = None


_BIG_TEXT = frozenset(
    {
        "event_json",
        "llm_text",
        "tool_arguments",
        "messages",
        "tools",
        "conversion",
        "first_user_message",
        "final_answer",
    }
)
"""Columns of long, mostly unique text: no dictionary, no min/max statistics."""


def _writer_options(schema: pa.Schema, compression: str = "zstd") -> dict[str, Any]:
    # Dictionary encoding and statistics pay off on ids, kinds, names and times (readers skip
    # row groups with them); on long unique texts they only cost time (about 5% of a write).
    small = [name for name in schema.names if name not in _BIG_TEXT]
    return {"compression": compression, "use_dictionary": small, "write_statistics": small}


def filter_shard(
    source: Path, target: Path, drop_ids: Iterable[str], *, staging: Path, compression: str = "zstd"
) -> int:
    """Copy `source` to `target` (atomically) without the rows of `drop_ids`, row group by row group.

    Returns the number of rows kept.
    """
    drop = pa.array(sorted(set(drop_ids)), pa.string())
    kept = 0
    parquet = pq.ParquetFile(source)
    with staged_file(target, staging) as f:
        writer = pq.ParquetWriter(
            f, parquet.schema_arrow, **_writer_options(parquet.schema_arrow, compression)
        )
        try:
            for i in range(parquet.num_row_groups):
                table = parquet.read_row_group(i)
                mask = pc.invert(pc.is_in(table["conversation_id"], value_set=drop))
                table = table.filter(mask)
                if table.num_rows:
                    writer.write_table(table, row_group_size=table.num_rows)
                    kept += table.num_rows
        finally:
            writer.close()
    return kept


def remove_leftovers(folder: Path, keep: Iterable[str]) -> list[str]:
    """Delete temp files and shards not in `keep` (from an interrupted export); returns names.

    Also removes the staging folder next to `folder`.
    """
    keep = set(keep)
    removed: list[str] = []
    staging = folder.parent / STAGING_DIR
    if staging.is_dir():
        removed.extend(p.name for p in staging.iterdir())
        shutil.rmtree(staging)
    if not folder.is_dir():
        return removed
    for path in sorted(folder.iterdir()):
        name = path.name
        ours = is_temp_file(name) or (SHARD_RE.match(name) is not None and name not in keep)
        if ours and path.is_file():
            path.unlink()
            removed.append(name)
    return removed
