"""`export_dataset(paths, out_dir)`: conversations -> `conversations/` and `events/` Parquet tables.

Flow: lock and check OUT_DIR (before any work) -> expand PATH… lazily (`resolve_inputs`: every
shape; V0 input too with `from_v0`) -> chunks of conversations, each with a shard number ->
`chunks.write_chunk` on an engine (default: this machine's worker processes through
`trajkit.corpus.map_conversations`, ordered, a bounded window of chunks in flight), which builds rows with the pure
`rows.conversation_rows` and writes them into its own shards, row group by row group -> this
process folds the per-conversation summaries into the manifest -> at the end, rows of
conversations that changed since the last export (or were exported twice) are removed from
their old shards (each rewritten under a new name), the manifest is replaced, and replaced
shards are deleted.

Memory is bounded by the window (a few chunks) and one row group per table per worker, whatever
the corpus size. If anything fails midway, the shards of this run are removed (a chunk still
running leaves its shards to be removed at the next start), and the previous export (the
manifest and the shards it lists) is untouched.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajkit.errors import OutputError, OutputExists, TrajkitError, UsageError
from trajkit.export.card import CARD_NAME
from trajkit.export.chunks import (
    ChunkResult,
    ChunkSettings,
    ChunkTask,
    Copy,
    Exported,
    write_chunk,
)
from trajkit.export.manifest import MANIFEST_NAME, Manifest, read_manifest, write_manifest
from trajkit.export.rows import (
    Filtered,
    RowOptions,
    Skipped,
    Unchanged,
    location_label,
)
from trajkit.shapes import Input, SkippedInput, V0Policy, resolve_inputs
from trajkit.store.atomic import make_folder

if TYPE_CHECKING:
    from trajkit.engine import Engine

__all__ = ["TABLES", "ExportReport", "export_dataset", "iter_inputs"]

TABLES = ("conversations", "events")
"""The table folders inside OUT_DIR (the analysis tables, every profile writes them)."""
PROFILE_TABLES = ("sft", "rl")
"""The table `--profile sft|rl` adds (`trajkit.export.profiles`)."""


def _tables(profile: str) -> tuple[str, ...]:
    return (profile, *TABLES) if profile in PROFILE_TABLES else TABLES


@dataclass
class ExportReport:
    """What an export did."""

    out_dir: Path
    exported: int = 0
    """Conversations written in this run (new or changed)."""
    replaced: int = 0
    """Of those, conversations that replaced rows of an earlier export."""
    events: int = 0
    """Event rows written in this run."""
    unchanged: int = 0
    """Conversations already exported with the same content."""
    filtered: int = 0
    """Conversations left out by a filter."""
    skipped: list[Skipped] = field(default_factory=list)
    """Invalid inputs, with reasons; one entry per conversation id met in several places."""
    duplicates: int = 0
    """Conversations dropped as exact copies of another's messages and tools (content hash;
    with a training profile, `sft` or `rl`: an analysis export keeps every conversation)."""
    copies: int = 0
    """Inputs not exported because their conversation id was already exported in this run."""
    duplicate_ids: int = 0
    """Conversation ids met in several places (each one `skipped` entry, for all its copies)."""
    redactions: int = 0
    """Secret values masked in the rows written."""
    shards: list[str] = field(default_factory=list)
    """Shard files written (`conversations/part-00000.parquet`, ...)."""
    seconds: float = 0.0
    """Wall time."""

    @property
    def processed(self) -> int:
        """Inputs looked at so far."""
        invalid = len(self.skipped) - self.duplicate_ids
        copies = self.copies + self.duplicates
        return self.exported + self.unchanged + self.filtered + invalid + copies

    def summary(self, out: str, *, created: bool, redact: bool = True) -> str:
        """The line `trajkit export` ends with; `out` is OUT_DIR as the user reads it, `created`
        whether it exists now (an export that wrote nothing leaves none behind).
        """
        counts = (
            f"{self.unchanged} unchanged, {self.filtered} filtered out, {len(self.skipped)} skipped"
        )
        if not created:
            return f"nothing exported ({counts}); {out} not created"
        redacted = f"{self.redactions} secret(s) redacted" if redact else "secrets not redacted"
        if self.duplicates:
            counts += f", {self.duplicates} exact duplicate(s) dropped"
        return (
            f"exported {self.exported} conversation(s), {self.events} event(s) to {out} in "
            f"{self.seconds:.1f}s; {counts}; {redacted}"
        )

    def interrupted(self, out: str) -> str:
        """What an interrupted export kept, and how to continue."""
        return (
            f"interrupted: {self.exported} conversation(s) exported in this run are kept in "
            f"{out} (listed in its manifest; unlisted shards removed); run the same command "
            "again to continue"
        )

    def to_json(self, out: str) -> dict[str, Any]:
        """`export --json` (`trajkit.export/1`)."""
        return {
            "schema": "trajkit.export/1",
            "out_dir": out,
            "exported": self.exported,
            "replaced": self.replaced,
            "events": self.events,
            "unchanged": self.unchanged,
            "filtered": self.filtered,
            "duplicates": self.duplicates,
            "skipped": [{"source": s.source, "reason": s.reason} for s in self.skipped],
            "redactions": self.redactions,
            "shards": list(self.shards),
            "seconds": round(self.seconds, 3),
        }


def export_dataset(
    paths: Iterable[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    *,
    options: RowOptions | None = None,
    overwrite: bool = False,
    from_v0: bool = False,
    progress: Callable[[ExportReport], None] | None = None,
    row_group_rows: int | None = None,
    shard_rows: int | None = None,
    chunk_size: int | None = None,
    engine: Engine | None = None,
    command: str | None = None,
) -> ExportReport:
    """Export conversations under `paths` into `out_dir` (see the module docstring).

    Args:
        paths: conversation folders, folders holding many, any shape (`trajkit.shapes`).
        out_dir: empty or missing folder, or an earlier export (incremental).
        options: view, redaction, filters.
        overwrite: start over: remove an earlier export's files in `out_dir` first.
        from_v0: read V0 trajectories (migrated in memory); without it they are skipped.
        progress: called with the report so far after each chunk of conversations.
        row_group_rows: event rows per row group (conversations use a tenth).
        shard_rows: event rows per shard at most (conversations use a tenth).
        chunk_size: conversations per worker call (each chunk writes its own shards); default
            adaptive: 8 at first, then as many as hold about `CHUNK_EVENTS` events.
        engine: where chunks run (`trajkit.engine`): default `LocalEngine()`, this machine's
            processes (`LocalEngine(1)` runs in this process); a `RayEngine` runs the same
            `write_chunk` on a Ray cluster.
        command: the command line that made the export, for the dataset card (`card`).

    Raises:
        OutputExists: `out_dir` is not empty and holds no export, without `overwrite`.
        UsageError: `out_dir` holds an export made with other options, without `overwrite`.
        TrajkitError: `out_dir` cannot be created or written.
    """
    from trajkit.engine import LocalEngine
    from trajkit.export.arrow_schema import SCHEMA_VERSION
    from trajkit.store.guard import refuse_output_inside
    from trajkit.store.location import check_location, storage_folder

    options = options or RowOptions()
    engine = engine or LocalEngine()
    started = time.perf_counter()
    paths = list(engine.portable(paths))  # the user's PATH... (a few), checked before OUT_DIR
    for path in paths:
        check_location(path)  # storage URLs: credentials and bucket, before any work
    refuse_output_inside(out_dir, paths)
    remote_out = storage_folder(out_dir)
    if remote_out is not None:  # s3://…: export into a local mirror, then publish it
        from trajkit.export.storage import export_to_storage

        def into(mirror: Path) -> ExportReport:
            return export_dataset(
                paths, mirror, options=options, from_v0=from_v0,
                progress=progress, row_group_rows=row_group_rows, shard_rows=shard_rows,
                chunk_size=chunk_size, engine=engine, command=command,
            )  # fmt: skip

        return export_to_storage(remote_out, into, overwrite=overwrite, engine=engine)
    (out,) = engine.portable([Path(out_dir)])  # shards are written by the workers
    created = not out.exists()
    fresh = created or (out.is_dir() and not any(out.iterdir()))
    report: ExportReport | None = None
    try:
        with _export_lock(out):
            manifest = _prepare_out_dir(out, options, overwrite=overwrite, version=SCHEMA_VERSION)
            report = _run_export(
                out, manifest, paths, from_v0=from_v0, progress=progress,
                engine=engine, started=started,
                settings=ChunkSettings(
                    str(out), options, options.view, row_group_rows or 20_000,
                    shard_rows or 1_000_000,
                ),
                chunk_size=chunk_size,
            )  # fmt: skip
            _write_card(out, command, options)  # removed below with the rest if nothing was
    except ExportInterrupted as stopped:
        report = stopped.report  # what finished is kept and listed
        raise
    finally:
        if fresh and (report is None or report.exported == 0):
            _remove_new_export(out, created)  # nothing to publish: leave no empty dataset
    assert report is not None
    return report


def _run_export(
    out: Path,
    manifest: Manifest,
    paths: list[Any],
    *,
    from_v0: bool,
    progress: Callable[[ExportReport], None] | None,
    engine: Engine,
    started: float,
    settings: ChunkSettings,
    chunk_size: int | None,
) -> ExportReport:
    """Map `write_chunk` over the input's chunks and fold the results into OUT_DIR."""
    report = ExportReport(out)
    by_source = manifest.fingerprints_by_source()
    tasks = (
        (loc, by_source.get(location_label(loc)))
        for loc in _locations(paths, from_v0=from_v0, skipped=report.skipped)
    )
    sizer = _ChunkSizer(chunk_size)
    chunks = (
        ChunkTask(manifest.new_shard_number(), items) for items in _batched(tasks, sizer.size)
    )
    results = engine.map(partial(write_chunk, settings), chunks)
    run = _Run(out, manifest, report, _tables(settings.options.profile))
    try:
        for chunk in results:
            sizer.observe(chunk)
            run.add(chunk)
            if progress is not None:
                progress(report)
        run.finish()
    except KeyboardInterrupt:
        # Ctrl-C: keep what finished (listed in the manifest, so a re-run skips it as
        # unchanged) and remove every shard the manifest does not list, including those of
        # chunks that were still being written.
        with contextlib.suppress(KeyboardInterrupt):
            _close_iterator(results)
        run.finish()
        run.remove_unlisted()
        report.seconds = time.perf_counter() - started
        raise ExportInterrupted(report) from None
    except BaseException:
        _close_iterator(results)  # the workers stop now (not at interpreter exit)
        run.abort()
        raise
    report.seconds = time.perf_counter() - started
    return report


class _Run:
    """The parent's side of one export: collect chunk results, fix up, write the manifest."""

    def __init__(
        self, out: Path, manifest: Manifest, report: ExportReport, tables: tuple[str, ...]
    ) -> None:
        self.out = out
        self.manifest = manifest
        self.report = report
        self.tables = tables
        self.new_entries: dict[str, dict[str, Any]] = {}
        self.new_shards: dict[str, list[str]] = {t: [] for t in tables}
        self.contents = {
            e["content_hash"]: cid
            for cid, e in manifest.conversations.items()
            if e.get("content_hash")
        }
        """Content hash -> conversation id, to drop exact duplicates (`ExportReport.duplicates`)."""
        self.stale: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.id_by_source = {e["source"]: cid for cid, e in manifest.conversations.items()}
        self.unchanged: dict[str, str] = {}
        """Conversation id -> source, for the inputs found unchanged in this run."""
        self.copies: dict[str, tuple[str, list[str]]] = {}
        """Conversation id -> (the place exported, the copies skipped) in this run."""

    def add(self, chunk: ChunkResult) -> None:
        report = self.report
        for table, names in chunk.shards.items():
            self.new_shards[table].extend(names)
            report.shards.extend(f"{table}/{n}" for n in names)
        for result in chunk.results:
            if isinstance(result, Skipped):
                report.skipped.append(result)
            elif isinstance(result, Filtered):
                report.filtered += 1
            elif isinstance(result, Copy):
                self._copy(result.conversation_id, result.first, result.source)
            elif isinstance(result, Unchanged):
                report.unchanged += 1
                cid = self.id_by_source.get(result.source)
                if cid is not None:
                    self.unchanged[cid] = result.source
            else:
                self._exported(result)

    def _exported(self, result: Exported) -> None:
        report, cid = self.report, result.conversation_id
        first = self.new_entries[cid]["source"] if cid in self.new_entries else None
        first = first or self.unchanged.get(cid)
        if first is not None:  # the same id met earlier in this run: drop this copy's rows
            self._drop(result)
            self._copy(cid, first, result.source)
            return
        dedupe = result.content_hash and self.tables[0] in PROFILE_TABLES  # training data only
        same = self.contents.get(result.content_hash) if dedupe else None
        if same is not None and same != cid:  # another id, the same messages and tools
            self._drop(result)
            report.duplicates += 1
            return
        self.contents[result.content_hash] = cid
        old = self.manifest.conversations.get(cid)
        if old is not None:
            report.replaced += 1
            for table in self.tables:
                if old.get(f"{table}_shard"):
                    self.stale[(table, old[f"{table}_shard"])].add(cid)
        self.new_entries[cid] = {
            "source": result.source,
            "fingerprint": result.fingerprint,
            "conversations_shard": result.conversations_shard,
            "events_shard": result.events_shard,
            "n_events": result.n_events,
            "content_hash": result.content_hash,
            **{f"{t}_shard": result.profile_shard for t in self.tables if t in PROFILE_TABLES},
        }
        report.exported += 1
        report.events += result.n_events
        report.redactions += result.n_redactions

    def _drop(self, result: Exported) -> None:
        """Mark the rows `result` wrote in this run for removal."""
        for table in self.tables:
            name = result.profile_shard if table in PROFILE_TABLES else None
            name = name or getattr(result, f"{table}_shard", "")
            if name:
                self.stale[(table, name)].add(result.conversation_id)

    def _copy(self, cid: str, first: str, source: str) -> None:
        """Count a copy; the first place seen in this run is the one exported (a chunk's own
        first may be a copy of an earlier chunk's).
        """
        self.report.copies += 1
        self.copies.setdefault(cid, (first, []))[1].append(source)

    def _report_copies(self) -> None:
        """One `Skipped` per conversation id met in several places, naming two of them."""
        for cid, (first, copies) in self.copies.items():
            more = f" and {len(copies) - 1} more" if len(copies) > 1 else ""
            self.report.skipped.append(
                Skipped(
                    copies[0],
                    f"{copies[0]}: conversation id {cid} is also at {first}, which was "
                    f"exported; this copy{more} skipped",
                )
            )
        self.report.duplicate_ids += len(self.copies)
        self.copies.clear()

    def finish(self) -> None:
        self._report_copies()
        manifest = self.manifest
        for table in self.tables:
            manifest.shards.setdefault(table, []).extend(self.new_shards[table])
        manifest.conversations.update(self.new_entries)
        replaced = self._drop_stale_rows()
        write_manifest(self.out / MANIFEST_NAME, manifest)
        for path in replaced:
            path.unlink(missing_ok=True)
        self._remove_staging()

    def _drop_stale_rows(self) -> list[Path]:
        """Rewrite each shard holding replaced rows without them; returns the files to delete."""
        from trajkit.export.shards import STAGING_DIR, filter_shard, shard_name

        manifest = self.manifest
        to_delete: list[Path] = []
        for (table, old_name), ids in sorted(self.stale.items()):
            old = self.out / table / old_name
            new_name = shard_name(manifest.new_shard_number())
            kept = filter_shard(
                old, self.out / table / new_name, ids, staging=self.out / STAGING_DIR
            )
            shards = manifest.shards[table]
            position = shards.index(old_name) if old_name in shards else len(shards)
            if old_name in shards:
                shards.remove(old_name)
            if kept:
                shards.insert(position, new_name)
                self.report.shards.append(f"{table}/{new_name}")
            else:
                (self.out / table / new_name).unlink(missing_ok=True)
            key = f"{table}_shard"
            for entry in manifest.conversations.values():
                if entry.get(key) == old_name:
                    entry[key] = new_name if kept else None
            to_delete.append(old)
        return to_delete

    def _remove_staging(self) -> None:
        from trajkit.export.shards import STAGING_DIR

        with contextlib.suppress(OSError):
            (self.out / STAGING_DIR).rmdir()  # only when empty

    def remove_unlisted(self) -> None:
        """Remove shards and staged files the manifest does not list (after an interruption)."""
        from trajkit.export.shards import remove_leftovers

        for table in self.tables:
            remove_leftovers(self.out / table, self.manifest.shards.get(table, []))
        self._remove_staging()

    def abort(self) -> None:
        """Remove this run's shards (chunks still running leave theirs to the next start)."""
        for table, names in self.new_shards.items():
            for name in names:
                (self.out / table / name).unlink(missing_ok=True)
        self._remove_staging()


class ExportInterrupted(KeyboardInterrupt):
    """Ctrl-C during an export: what finished is in the manifest (`report`), the rest removed.

    A `KeyboardInterrupt`, so callers that do not know it still stop; a re-run of the same
    export continues from what is listed (unchanged conversations are skipped).
    """

    def __init__(self, report: ExportReport) -> None:
        super().__init__("export interrupted")
        self.report = report


def _close_iterator(results: Iterable[Any]) -> None:
    close = getattr(results, "close", None)
    if close is not None:
        close()  # stops the engine's workers (see trajkit.corpus.map_conversations)


CHUNK_EVENTS = 25_000
"""Events a chunk (and so a shard of each table) aims at when the chunk size is adaptive."""


class _ChunkSizer:
    """Conversations per chunk: fixed, or sized from the events per conversation seen so far.

    Shards then hold about `CHUNK_EVENTS` events whether conversations have 5 events or 5,000,
    instead of thousands of tiny files (or a few huge ones). The first chunks are small so both
    workers start at once, and a small corpus is still spread over them.
    """

    def __init__(self, fixed: int | None, *, first: int = 8, limit: int = 4096) -> None:
        self._fixed = fixed
        self._first = first
        self._limit = limit
        self._conversations = 0
        self._events = 0

    def observe(self, chunk: ChunkResult) -> None:
        for result in chunk.results:
            if isinstance(result, Exported):
                self._conversations += 1
                self._events += result.n_events

    def size(self) -> int:
        if self._fixed is not None:
            return max(1, self._fixed)
        if not self._conversations:
            return self._first
        per_conversation = max(1.0, self._events / self._conversations)
        return max(self._first, min(self._limit, int(CHUNK_EVENTS / per_conversation)))


def _batched(items: Iterable[Any], size: Callable[[], int]) -> Iterator[list[Any]]:
    """Lists of `size()` items (asked again for each list). A task carries no record bytes:
    a record travels as its address and byte range, which the worker reads (`ShapeRef.span`).
    """
    it = iter(items)
    while batch := list(islice(it, size())):
        yield batch


def iter_inputs(
    paths: Iterable[str | os.PathLike[str]], *, from_v0: bool = False
) -> Iterator[Input | SkippedInput]:
    """What `export_dataset` looks at, one item each (`ExportReport.processed` when done):
    the conversations under the paths and what is not read (V0 input too, unless `from_v0`).
    """
    v0: V0Policy = "read" if from_v0 else "skip"
    return resolve_inputs(paths, v0=v0, note="pass --from-v0 to export it")


def _locations(
    paths: Iterable[str | os.PathLike[str]], *, from_v0: bool, skipped: list[Skipped]
) -> Iterator[Input]:
    """The conversations of `iter_inputs`, lazily; what is not read is recorded as skipped."""
    for item in iter_inputs(paths, from_v0=from_v0):
        if isinstance(item, SkippedInput):
            skipped.append(Skipped(item.path, str(item)))
        else:
            yield item


# -- OUT_DIR -------------------------------------------------------------------------------


LOCK_NAME = ".trajkit-export.lock"
"""Held (flock) in OUT_DIR while an export writes there, so two exports cannot interleave."""


@contextlib.contextmanager
def _export_lock(out: Path) -> Iterator[None]:
    """Create OUT_DIR if needed, check it is writable, and hold its export lock."""
    import filelock

    if out.exists() and not out.is_dir():
        raise OutputExists(out, "it is a file; choose a folder for the dataset")
    try:
        make_folder(out)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as exc:
        raise OutputError.from_os(out, exc) from None
    lock = filelock.FileLock(out / LOCK_NAME, timeout=0)
    try:
        lock.acquire()
    except filelock.Timeout:
        raise TrajkitError(
            f"{out}: another trajkit export is writing here; wait for it to finish"
        ) from None
    try:
        yield
    finally:
        lock.release()
        # Leave nothing behind (a refused folder stays as it was). Nobody waits on this lock
        # (timeout 0), so removing the file cannot let a waiter in on a stale inode.
        with contextlib.suppress(OSError):
            (out / LOCK_NAME).unlink()


def _write_card(out: Path, command: str | None, options: RowOptions) -> None:
    from trajkit.export.arrow_schema import schema_for
    from trajkit.export.card import write_card

    manifest = read_manifest(out / MANIFEST_NAME)
    schemas = {t: schema_for(t) for t in _tables(options.profile)}  # the first is the default
    described = {"profile": options.profile, "view": options.view, "redact": options.redact}
    write_card(out, manifest.shards, schemas, command=command, options=described)


def _prepare_out_dir(out: Path, options: RowOptions, *, overwrite: bool, version: str) -> Manifest:
    """Check OUT_DIR's content before any work; returns the manifest to extend."""
    from trajkit.export.shards import remove_leftovers

    wanted: dict[str, Any] = {"view": options.view, "redact": options.redact}
    if options.profile != "analysis":  # (an analysis manifest of before profiles has none)
        wanted["profile"] = options.profile
    manifest_path = out / MANIFEST_NAME
    if overwrite:
        _remove_export_files(out)
        return _new_manifest(manifest_path, wanted, version)
    if manifest_path.exists():
        manifest = read_manifest(manifest_path)
        if manifest.options != wanted:
            raise UsageError(
                f"{out}: holds an export made with {_describe(manifest.options)}, not "
                f"{_describe(wanted)}; use the same options, or pass --overwrite to start over"
            )
        if manifest.schema_version != version:
            raise UsageError(
                f"{out}: holds an export with schema version {manifest.schema_version}, this "
                f"trajkit writes {version}; pass --overwrite to start over"
            )
        for table in (*TABLES, *PROFILE_TABLES):
            remove_leftovers(out / table, manifest.shards.get(table, []))
        return manifest
    if any(p.name != LOCK_NAME for p in out.iterdir()):
        raise OutputExists(
            out,
            "the folder is not empty and holds no trajkit export (manifest.json); choose an "
            "empty folder, or pass --overwrite to write the dataset into it",
        )
    return _new_manifest(manifest_path, wanted, version)


def _new_manifest(path: Path, options: dict[str, Any], version: str) -> Manifest:
    """An empty manifest, written at once: a crash in a first run still leaves OUT_DIR an export."""
    manifest = Manifest(options=options, schema_version=version)
    write_manifest(path, manifest)
    return manifest


def _describe(options: dict[str, Any]) -> str:
    return f"--view {options.get('view')}" + ("" if options.get("redact") else " --no-redact")


def _remove_new_export(out: Path, created: bool) -> None:
    """Undo an export that published nothing into a new or empty OUT_DIR (the folder too if new)."""
    with contextlib.suppress(OSError):
        _remove_export_files(out)
        for table in (*TABLES, *PROFILE_TABLES):
            with contextlib.suppress(FileNotFoundError):
                (out / table).rmdir()
        if created:
            out.rmdir()  # only when empty: anything else written there is kept


def _remove_export_files(out: Path) -> None:
    """Remove what an export writes (shards, staged files, manifest); nothing else."""
    from trajkit.export.shards import remove_leftovers

    for table in (*TABLES, *PROFILE_TABLES):
        folder = out / table
        remove_leftovers(folder, ())
        if folder.is_dir() and not any(folder.iterdir()):
            shutil.rmtree(folder)
    (out / MANIFEST_NAME).unlink(missing_ok=True)
    (out / CARD_NAME).unlink(missing_ok=True)
