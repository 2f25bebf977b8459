"""One long conversation's export: rows spooled as they are built, the view holding only what
the model still saw (issue 29's bounded memory). `benchmarks/bench_export_memory.py` measures
the peaks; these check that the streamed rows are the rows held in memory."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import trajkit.export.event_rows as event_rows
from tests.export.conftest import FAKE_KEY, SECRET, add_secrets
from tests.support import fixtures as fx
from trajkit.engine import LocalEngine
from trajkit.export import RowOptions, export_dataset
from trajkit.export.view_tracker import ViewTracker


def _export(paths: list[Path], out: Path, profile: str = "analysis", **kwargs) -> None:  # noqa: ANN003
    options = RowOptions(profile=profile)  # type: ignore[arg-type]
    export_dataset([str(p) for p in paths], out, engine=LocalEngine(1), options=options, **kwargs)


def _table(out: Path, name: str) -> pa.Table:
    table = pq.read_table(sorted((out / name).glob("*.parquet")))
    keys = [k for k in ("conversation_id", "index", "example", "call") if k in table.column_names]
    return table.sort_by([(k, "ascending") for k in keys])


@pytest.mark.parametrize("profile", ["analysis", "sft", "rl"])
def test_spooled_rows_equal_rows_held(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, profile: str
) -> None:
    """Every event cut and spooled (thresholds of one byte), shards rotating every few rows:
    the same tables, secrets masked alike, and each conversation's events in one shard."""
    add_secrets(next(iter(sorted(corpus.iterdir()))))
    _export([corpus], tmp_path / "held", profile)
    monkeypatch.setattr(event_rows, "CUT_BYTES", 1)
    monkeypatch.setattr(event_rows, "SPOOL_BYTES", 1)
    _export([corpus], tmp_path / "spooled", profile, row_group_rows=3, shard_rows=5)
    tables = ["conversations", "events", *([profile] if profile != "analysis" else [])]
    for name in tables:
        held, spooled = _table(tmp_path / "held", name), _table(tmp_path / "spooled", name)
        assert spooled.num_rows == held.num_rows > 0
        assert spooled.equals(held), name
    events = _table(tmp_path / "spooled", "events").to_pylist()
    text = "".join(str(r["event_json"]) + str(r["llm_text"]) for r in events)
    assert FAKE_KEY not in text and SECRET not in text and "<secret-hidden>" in text
    shards = sorted((tmp_path / "spooled" / "events").glob("*.parquet"))
    assert len(shards) > 1  # rotated, but never inside a conversation:
    owners: dict[str, set[str]] = {}
    for shard in shards:
        for cid in set(pq.read_table(shard, columns=["conversation_id"])[0].to_pylist()):
            owners.setdefault(cid, set()).add(shard.name)
    assert owners and all(len(names) == 1 for names in owners.values())


def test_the_view_lets_go_of_what_a_condensation_forgot() -> None:
    """`ViewTracker` holds the LLM events of the view only: a condensation's forgotten events
    are let go (the conversation row is built from the rest: `test_export`'s rows equal
    convert's); a log that branches keeps everything."""
    from trajkit.events import parse_event

    folder = fx.sdk_conversation("j_condense")
    events = [parse_event(f.read_bytes()) for f in sorted((folder / "events").glob("*.json"))]
    (condensation,) = [e for e in events if e.kind == "Condensation"]
    forgotten = set(condensation.forgotten_event_ids)  # type: ignore[attr-defined]
    view = ViewTracker()
    for e in events:
        view.add(e)
    kept = {e.id for e in view.kept.values()}
    assert forgotten and not kept & forgotten
    assert len(view.entries) == len(events) and kept
    branching = ViewTracker()
    for e in [events[0], *(e.model_copy(update={"parent_id": events[0].id}) for e in events[1:])]:
        branching.add(e)
    assert forgotten <= {e.id for e in branching.kept.values()}
