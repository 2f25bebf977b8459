"""The worker side of an export: a chunk of conversations -> rows -> closed shards.

Each worker process takes a chunk of conversation locations, runs the pure
`rows.conversation_rows` on each, turns the rows into Arrow record batches and appends them to
its own `ShardWriter`s (row groups as they fill). At the end of the chunk it closes its shards
(renamed into the table folders) and sends back only a small summary per conversation: which
shard holds its rows, its fingerprint, counts. Rows never travel between processes, and Parquet
encoding and compression run on every core, not in one parent process.

Shard names come from the parent: chunk `n` writes `part-<n>.parquet` in each table folder, then
`part-<n>-001.parquet`, ... if it is large enough to rotate. A conversation id met twice in one
chunk keeps its first copy; the parent handles copies across chunks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajkit.export.rows import (
    ConversationRows,
    Filtered,
    RowOptions,
    Skipped,
    Unchanged,
    conversation_rows,
    location_label,
)

if TYPE_CHECKING:
    import pyarrow as pa

    from trajkit.migrate.containers import V0Input

__all__ = [
    "ChunkResult",
    "ChunkSettings",
    "ChunkTask",
    "Exported",
    "columns_to_batch",
    "rows_to_batch",
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
    items: list[tuple[Path | V0Input, str | None]]


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


@dataclass
class ChunkResult:
    """What a worker sends back for a chunk."""

    number: int
    results: list[Exported | Unchanged | Filtered | Skipped] = field(default_factory=list)
    shards: dict[str, list[str]] = field(default_factory=dict)


def rows_to_batch(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.RecordBatch:
    """Rows (dicts keyed by column name) -> a record batch of `schema`, built column by column."""
    return columns_to_batch({f.name: [r[f.name] for r in rows] for f in schema}, schema)


def columns_to_batch(columns: dict[str, list[Any]], schema: pa.Schema) -> pa.RecordBatch:
    """Columns (name -> values) -> a record batch of `schema`.

    String columns take `str` or UTF-8 `bytes`; bytes that are not UTF-8 (never expected: they
    were parsed as JSON) are decoded with replacement characters rather than failing.
    """
    import pyarrow as pa

    arrays = []
    for f in schema:
        values = columns[f.name]
        try:
            arrays.append(pa.array(values, type=f.type))
        except pa.ArrowInvalid:
            if not pa.types.is_string(f.type):
                raise
            values = [v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in values]
            arrays.append(pa.array(values, type=f.type))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def write_chunk(settings: ChunkSettings, task: ChunkTask) -> ChunkResult:
    """Run in a worker: export the chunk's conversations into new shards (module docstring)."""
    from trajkit.export.arrow_schema import schema_for
    from trajkit.export.shards import STAGING_DIR, ShardWriter

    out = Path(settings.out_dir)
    writers = {}
    for table in ("conversations", "events"):
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
        )
    result = ChunkResult(task.number)
    seen: dict[str, str] = {}
    try:
        for location, previous in task.items:
            rows = _conversation_rows(location, settings.options, previous)
            if isinstance(rows, ConversationRows):
                result.results.append(_write(rows, writers, seen))
            else:
                result.results.append(rows)
        result.shards = {table: w.close() for table, w in writers.items()}
    except BaseException:
        for w in writers.values():
            w.abort()
            for name in w.closed_shards:
                (w.folder / name).unlink(missing_ok=True)
        raise
    return result


def _conversation_rows(
    location: Path | V0Input, options: RowOptions, previous: str | None
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


def _write(
    rows: ConversationRows, writers: dict[str, Any], seen: dict[str, str]
) -> Exported | Skipped:
    cid = rows.conversation_id
    if cid in seen:
        return Skipped(
            rows.source,
            f"{rows.source}: conversation id {cid} was already exported in this run from "
            f"{seen[cid]}; skipped the copy",
        )
    seen[cid] = rows.source
    conv = rows_to_batch([rows.conversation], writers["conversations"].schema)
    events = columns_to_batch(rows.event_columns, writers["events"].schema)
    return Exported(
        cid,
        rows.source,
        rows.fingerprint,
        writers["conversations"].write(conv),
        writers["events"].write(events),
        events.num_rows,
        rows.n_redactions,
    )


def _names(number: int) -> Callable[[], str]:
    from trajkit.export.shards import shard_name

    count = 0

    def next_name() -> str:
        nonlocal count
        count += 1
        base = shard_name(number)
        return base if count == 1 else base.replace(".parquet", f"-{count - 1:03d}.parquet")

    return next_name
