"""The worker side of an export: a chunk of conversations -> rows -> closed shards.

Each worker process takes a chunk of conversation locations, runs the pure
`rows.conversation_rows` on each, turns the rows into Arrow record batches and appends them to
its own `ShardWriter`s (row groups as they fill). At the end of the chunk it closes its shards
(renamed into the table folders) and sends back only a small summary per conversation: which
shard holds its rows, its fingerprint, counts. Rows never travel between processes, and Parquet
encoding and compression run on every core, not in one parent process.

Shard names come from the parent: chunk `n` writes `part-<n>.parquet` in each table folder, then
`part-<n>-001.parquet`, ... if it is large enough to rotate. A conversation id met twice in one
chunk keeps its first copy (the next is a `Copy`); the parent handles copies across chunks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajkit.export.arrow_schema import columns_to_batch
from trajkit.export.rows import (
    ConversationRows,
    Filtered,
    Location,
    RowOptions,
    Skipped,
    Unchanged,
    conversation_rows,
    location_label,
)

if TYPE_CHECKING:
    import pyarrow as pa

    from trajkit.export.shards import ShardWriter

__all__ = [
    "ChunkResult",
    "ChunkSettings",
    "ChunkTask",
    "Exported",
    "columns_to_batch",
    "write_chunk",
]


@dataclass(frozen=True)
class ChunkSettings:
    """What every chunk of one export shares."""

    out_dir: str
    options: RowOptions
    view: str
    row_group_rows: int
    shard_rows: int


@dataclass(frozen=True)
class ChunkTask:
    """Conversations for one worker call, with their last fingerprints, and the shard number."""

    number: int
    items: list[tuple[Location, str | None]]


@dataclass(frozen=True)
class Exported:
    """Summary of one conversation written by a worker."""

    conversation_id: str
    source: str
    fingerprint: str
    conversations_shard: str
    events_shard: str
    n_events: int
    n_redactions: int
    profile_shard: str = ""
    """The shard holding its rows of the profile's table (`sft`, `rl`), if any."""
    content_hash: str = ""
    """`ConversationRows.content_hash`: the parent drops exact copies of another's content."""


@dataclass(frozen=True)
class Copy:
    """A conversation id met again in a chunk (a copied folder): not exported."""

    conversation_id: str
    source: str
    first: str
    """Where the chunk met the id first."""


@dataclass
class ChunkResult:
    """What a worker sends back for a chunk."""

    number: int
    results: list[Exported | Copy | Unchanged | Filtered | Skipped] = field(default_factory=list)
    shards: dict[str, list[str]] = field(default_factory=dict)


def write_chunk(settings: ChunkSettings, task: ChunkTask) -> ChunkResult:
    """Run in a worker: export the chunk's conversations into new shards (module docstring)."""
    from trajkit.export.arrow_schema import schema_for
    from trajkit.export.shards import STAGING_DIR, ShardWriter

    out = Path(settings.out_dir)
    writers = {}
    profile = settings.options.profile
    for table in ("conversations", "events", *([profile] if profile != "analysis" else [])):
        schema = schema_for(table)
        schema = schema.with_metadata({**schema.metadata, "trajkit.view": settings.view})
        small = table == "conversations"
        writers[table] = ShardWriter(
            out / table,
            schema,
            _names(task.number),
            staging=out / STAGING_DIR,
            row_group_rows=max(1, settings.row_group_rows // 10)
            if small
            else settings.row_group_rows,
            shard_rows=max(1, settings.shard_rows // 10) if small else settings.shard_rows,
            row_group_bytes=ROW_GROUP_BYTES,
        )
    result = ChunkResult(task.number)
    seen: dict[str, str] = {}
    buffers = {table: _TableBuffer(writer) for table, writer in writers.items()}
    exported: list[tuple[int, Exported, dict[str, str]]] = []  # shard names to fill in
    try:
        for location, previous in task.items:
            rows = _conversation_rows(location, settings.options, previous)
            if isinstance(rows, ConversationRows):
                copy = _duplicate(rows, seen)
                if copy is not None:
                    result.results.append(copy)
                    continue
                shards: dict[str, str] = {}  # table -> shard, filled when the rows are written
                summary = Exported(
                    rows.conversation_id,
                    rows.source,
                    rows.fingerprint,
                    "",
                    "",
                    rows.n_events,
                    rows.n_redactions,
                    content_hash=rows.content_hash,
                )  # holds no rows: a chunk's rows are freed as soon as they are written
                exported.append((len(result.results), summary, shards))
                result.results.append(summary)
                buffers["conversations"].add_row(rows.conversation, shards)
                if rows.event_batches is not None:  # a long conversation: as it was spooled
                    buffers["events"].add_batches(rows.event_batches, shards)
                else:
                    buffers["events"].add_columns(rows.event_columns, shards)
                if rows.profile_rows:  # written first: the profile's rows come on top
                    buffers["events"].push()
                    buffers["conversations"].push()
                    rows.event_columns.clear()
                    rows.conversation = {}  # written: what the profile needs is in its rows
                for row in rows.profile_rows:
                    buffers[profile].add_row(row, shards)
            else:
                result.results.append(rows)
        for buffer in buffers.values():
            buffer.push()
        for position, summary, shards in exported:
            result.results[position] = dataclasses.replace(
                summary,
                conversations_shard=shards["conversations"],
                events_shard=shards["events"],
                profile_shard=shards.get(profile, ""),
            )
        result.shards = {table: w.close() for table, w in writers.items()}
    except BaseException:
        for w in writers.values():
            w.abort()
            for name in w.closed_shards:
                (w.folder / name).unlink(missing_ok=True)
        raise
    return result


ROW_GROUP_BYTES = 8 * 2**20
"""Arrow bytes a shard writer buffers before writing a row group (the `ShardWriter` default is
32 MiB). With rows of big tool outputs, the row group being built and encoded is a large part
of a worker's memory: on a synthetic 0.3 GB evaluation `output.jsonl` (2 workers, jemalloc
pool, loaded machine), 32 MiB peaked at 640 MB RSS for the three processes, 8 MiB at 528 MB,
4 MiB at 492 MB, at the same CPU time within noise. 8 MiB is still hundreds of event rows.
(`trajkit export` also picks Arrow's jemalloc pool: see `trajkit.cli.export`.)"""


def _conversation_rows(
    location: Location, options: RowOptions, previous: str | None
) -> ConversationRows | Unchanged | Filtered | Skipped:
    """`conversation_rows`, with an unexpected failure on this one conversation as `Skipped`.

    Bad input is already a `Skipped`; this catches the rest (a bug met on odd data, storage
    failing mid-read), so one conversation cannot end the export on any engine.
    """
    try:
        return conversation_rows(location, options, previous_fingerprint=previous)
    except Exception as exc:
        source = location_label(location)
        return Skipped(source, f"{source}: failed to export: {type(exc).__name__}: {exc}")


def _duplicate(rows: ConversationRows, seen: dict[str, str]) -> Copy | None:
    """A `Copy` when this conversation id was already exported in this chunk."""
    cid = rows.conversation_id
    if cid in seen:
        return Copy(cid, rows.source, seen[cid])
    seen[cid] = rows.source
    return None


BUFFER_BYTES = 4 * 2**20
"""About how many bytes of text rows a `_TableBuffer` holds before making a record batch.

The estimate counts `event_json` (or `conversion`) twice, while a row also holds its LLM text,
arguments and messages: 8 MiB of estimate was 60-70 MB of Python rows and Arrow arrays per
worker with big tool outputs. On a synthetic 0.3 GB evaluation output (2 workers, loaded
machine) 8 MiB peaked at 496 MB RSS for the three processes, 4 MiB at 446 MB, 2 MiB at 398 MB;
4 MiB still batches dozens of short conversations per Arrow call."""


class _TableBuffer:
    """Rows of consecutive conversations for one table, turned into one record batch.

    Building an Arrow array costs a few microseconds per call whatever its length, so one
    batch per conversation (44 `pa.array` calls) costs more than the rows of a short
    conversation. The rows are pushed to the `ShardWriter` as soon as they would complete its
    row group (so row groups and shards rotate after the same conversations as with one batch
    per conversation) or hold about `BUFFER_BYTES`. Each conversation's `shards` dict gets the
    name of the shard its rows went to.
    """

    def __init__(self, writer: ShardWriter) -> None:
        self.writer = writer
        self.table = writer.folder.name
        self.columns: dict[str, list[Any]] = {name: [] for name in writer.schema.names}
        self.rows = 0
        self.size = 0
        self.owners: list[dict[str, str]] = []

    def add_row(self, row: dict[str, Any], owner: dict[str, str]) -> None:
        for name, values in self.columns.items():
            values.append(row[name])
        size = row["_size"] if "_size" in row else _text_size(row.get("conversion")) * 2
        self._added(1, size, owner)

    def add_columns(self, columns: dict[str, list[Any]], owner: dict[str, str]) -> None:
        n = 0
        for name, values in self.columns.items():
            values.extend(columns[name])
            n = len(columns[name])
        size = sum(map(_text_size, columns.get("event_json", ()))) * 2
        self._added(n, size, owner)

    def add_batches(self, batches: Iterable[pa.RecordBatch], owner: dict[str, str]) -> None:
        """Record batches of one conversation, straight to the writer (one shard holds them)."""
        self.push()
        owner[self.table] = self.writer.write_all(batches)

    def _added(self, n: int, size: int, owner: dict[str, str]) -> None:
        self.rows += n
        self.size += size
        self.owners.append(owner)
        if (
            self.rows + self.writer.buffered_rows >= self.writer.row_group_rows
            or self.size >= BUFFER_BYTES
        ):
            self.push()

    def push(self) -> None:
        """Hand the buffered rows to the shard writer (as one record batch)."""
        if not self.owners:
            return
        name = self.writer.write(columns_to_batch(self.columns, self.writer.schema))
        for owner in self.owners:
            owner[self.table] = name
        for values in self.columns.values():
            values.clear()
        self.rows = self.size = 0
        self.owners = []


def _text_size(value: Any) -> int:
    return len(value) if isinstance(value, str | bytes) else 0


def _names(number: int) -> Callable[[], str]:
    from trajkit.export.shards import shard_name

    count = 0

    def next_name() -> str:
        nonlocal count
        count += 1
        base = shard_name(number)
        return base if count == 1 else base.replace(".parquet", f"-{count - 1:03d}.parquet")

    return next_name
