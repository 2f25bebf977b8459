"""A killed export leaves no shard a reader would pick up half-written, and a re-run recovers."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import polars as pl
import pyarrow.parquet as pq
import pytest

from tests.export.conftest import edit_event
from tests.support import fixtures as fx
from trajkit.engine import LocalEngine
from trajkit.export import export_dataset

N_CONVERSATIONS = len(fx.sdk_conversations())
N_EVENTS = sum(len(list((c / "events").glob("event-*.json"))) for c in fx.sdk_conversations())

_KILLER = textwrap.dedent(
    """
    import os, signal, sys
    import trajkit.export.chunks as chunks
    from trajkit.engine import LocalEngine
    from trajkit.export import export_dataset

    real, calls = chunks.conversation_rows, []

    def conversation_rows(*args, **kwargs):
        calls.append(1)
        if len(calls) > int(sys.argv[3]):
            os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no finally: a crash
        return real(*args, **kwargs)

    chunks.conversation_rows = conversation_rows
    export_dataset([sys.argv[1]], sys.argv[2], engine=LocalEngine(1), row_group_rows=3,
                   shard_rows=int(sys.argv[4]), chunk_size=3)
    """
)


def _sql(query: str) -> list[tuple]:
    """Rows of a DuckDB query."""
    relation = duckdb.sql(query)
    assert relation is not None
    return relation.fetchall()


def _kill_midway(corpus: Path, out: Path, after: int, shard_rows: int) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _KILLER, str(corpus), str(out), str(after), str(shard_rows)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == -9, proc.stderr


def _readers_see_only_whole_shards(out: Path) -> None:
    for table in ("conversations", "events"):
        for shard in (out / table).iterdir():
            assert shard.name.endswith(".parquet"), f"stray file {shard}"
            pq.ParquetFile(shard).read()  # whole: footer and every row group readable
        if any((out / table).iterdir()):
            _sql(f"SELECT count(*) FROM '{out}/{table}/*.parquet'")
            pl.read_parquet(out / table)  # a folder read sees no foreign file


def test_killed_first_export_leaves_whole_shards_and_reruns(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _kill_midway(corpus, out, after=5, shard_rows=1000)  # shards stay open: rows in row groups
    staged = list((out / ".staging").glob("*")) if (out / ".staging").exists() else []
    assert staged, "the kill happened while a shard was being written"
    _readers_see_only_whole_shards(out)

    report = export_dataset([corpus], out, engine=LocalEngine(1))
    assert report.exported == N_CONVERSATIONS and not report.skipped
    assert not (out / ".staging").exists()
    assert pq.read_table(out / "conversations").num_rows == N_CONVERSATIONS
    assert pq.read_table(out / "events").num_rows == N_EVENTS
    manifest = json.loads((out / "manifest.json").read_text())
    for table in ("conversations", "events"):
        assert {p.name for p in (out / table).iterdir()} == set(manifest["shards"][table])


def test_killed_update_keeps_the_previous_export(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    export_dataset([corpus], out, engine=LocalEngine(1))
    before = pq.read_table(out / "events").sort_by("event_id")
    for conv in sorted(corpus.iterdir()):

        def touch(data: dict) -> None:
            data["timestamp"] = data["timestamp"][:-1] + "9"

        edit_event(conv, 0, touch)
    _kill_midway(corpus, out, after=4, shard_rows=6)  # some shards closed, one open
    _readers_see_only_whole_shards(out)
    # Leftovers of the killed run (whole shards outside the manifest) go at the next start.
    listed = set(json.loads((out / "manifest.json").read_text())["shards"]["events"])
    orphans = {p.name for p in (out / "events").iterdir()} - listed
    assert orphans, "the killed run had closed some shards"
    report = export_dataset([corpus], out, engine=LocalEngine(1))
    listed = set(json.loads((out / "manifest.json").read_text())["shards"]["events"])
    assert {p.name for p in (out / "events").iterdir()} == listed
    assert (report.exported, report.replaced) == (N_CONVERSATIONS, N_CONVERSATIONS)
    after = pq.read_table(out / "events").sort_by("event_id")
    assert after.num_rows == before.num_rows == N_EVENTS
    assert after["event_json"] != before["event_json"]


@pytest.mark.parametrize("where", ["staging", "table"])
def test_leftovers_are_removed_before_an_incremental_run(
    corpus: Path, tmp_path: Path, where: str
) -> None:
    out = tmp_path / "out"
    export_dataset([corpus], out, engine=LocalEngine(1))
    stray = (
        out / ".staging" / "events.part-00099.parquet.tmp"
        if where == "staging"
        else out / "events" / "part-00099.parquet"
    )
    stray.parent.mkdir(exist_ok=True)
    stray.write_bytes(b"PAR1 half written")
    report = export_dataset([corpus], out, engine=LocalEngine(1))
    assert report.unchanged == N_CONVERSATIONS
    assert not stray.exists()


def test_why_shards_are_staged_outside_the_table_folder(tmp_path: Path) -> None:
    """DuckDB's `*.parquet` glob matches hidden files too, so a temp name inside the table
    folder (even a dotted one) would be read half-written; hence `OUT_DIR/.staging/`."""
    import pyarrow as pa

    pq.write_table(pa.table({"a": [1]}), tmp_path / "part-00000.parquet")
    (tmp_path / ".part-00001.parquet").write_bytes(b"PAR1 half written")
    with pytest.raises(duckdb.Error, match="part-00001"):
        _sql(f"SELECT count(*) FROM '{tmp_path}/*.parquet'")
    (tmp_path / ".part-00001.parquet").unlink()
    (tmp_path / ".part-00001.parquet.tmp").write_bytes(b"PAR1 half written")
    with pytest.raises(Exception, match="extension"):  # Polars refuses a folder of mixed files
        pl.read_parquet(tmp_path)
