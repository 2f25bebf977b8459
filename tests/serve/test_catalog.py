"""The serve index cache: rows from the ls/stats summary code, kept by fingerprint, paged,
sorted, filtered and searched in SQLite."""

from __future__ import annotations

import json
from pathlib import Path

from tests.views.conftest import (
    UNIQUE_WORD,
    failing_command_events,
    make_corpus,
    write_conversation,
)
from trajkit.serve.catalog import Catalog, fts_query
from trajkit.views.summary import conversation_stats, iter_rows


def test_rows_match_ls_and_stats(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus")
    catalog = Catalog([str(tmp_path / "corpus")], tmp_path / "cache.sqlite3")
    assert catalog.scan() == 3
    rows = {r["id"]: r for r in catalog.query(size=10)["rows"]}
    for folder in corpus.values():
        stats = conversation_stats(folder)
        ls = next(r for r in iter_rows([folder]) if hasattr(r, "first_message"))
        row = rows[stats.id]
        assert row["events"] == stats.n_events
        assert row["tool_calls"] == sum(stats.tool_calls.values())
        assert row["tool_errors"] == sum(stats.tool_errors.values())
        assert row["cost"] == stats.totals.cost and row["status"] == stats.status
        assert row["first_message"] == ls.first_message[:300]  # type: ignore[union-attr]


def test_second_scan_reads_only_what_changed(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "corpus")
    db = tmp_path / "cache.sqlite3"
    assert Catalog([str(tmp_path / "corpus")], db).scan() == 3
    again = Catalog([str(tmp_path / "corpus")], db)  # a new start over the same cache
    assert again.scan() == 0
    state = json.loads((corpus["plain"] / "base_state.json").read_text())
    state["execution_status"] = "finished"
    (corpus["plain"] / "base_state.json").write_text(json.dumps(state) + " ")
    assert again.scan() == 1
    assert again.query(status="running")["total"] == 0
    write_conversation(tmp_path / "corpus" / ("4d" * 16), failing_command_events())
    assert again.scan() == 1 and again.query()["all"] == 4


def test_query_sorts_filters_searches_and_pages(tmp_path: Path) -> None:
    make_corpus(tmp_path / "corpus")
    catalog = Catalog([str(tmp_path / "corpus")], tmp_path / "cache.sqlite3")
    catalog.scan()
    events = [r["events"] for r in catalog.query(sort="events", order="asc")["rows"]]
    assert events == sorted(events) == [2, 5, 12]
    assert catalog.query(model="anthropic/claude-sonnet-4")["total"] == 1
    assert catalog.query(tool="file_editor")["total"] == 1
    assert catalog.query(errors=True)["total"] == 2
    assert catalog.query(since="2999-01-01")["total"] == 0
    assert catalog.query(until="1999-01-01")["total"] == 0
    found = catalog.query(q=UNIQUE_WORD.upper())
    assert found["total"] == 1 and UNIQUE_WORD in found["rows"][0]["first_message"]
    assert catalog.query(q="seq forty")["total"] == 1  # a command and a message, one conversation
    assert catalog.query(q='"); DROP TABLE rows; --')["all"] == 3  # typed text is only words
    page = catalog.query(sort="events", order="asc", size=2, page=1)
    assert page["total"] == 3 and [r["events"] for r in page["rows"]] == [12]
    assert catalog.query(sort="nonsense; DROP")["total"] == 3
    assert catalog.facets()["tool"] == ["file_editor", "terminal"]


def test_fts_query_quotes_words() -> None:
    assert fts_query('say "hi" OR x*') == '"say"* "hi"* "OR"* "x"*'
    assert fts_query("  ") == ""


def test_evaluation_outputs_are_listed_with_their_outcome(tmp_path: Path) -> None:
    from tests.views.test_report_extras import EVAL_RECORD
    from trajkit.serve.app import load_source

    evals = tmp_path / "evals"
    evals.mkdir()
    failed = {**EVAL_RECORD, "instance_id": "demo__demo-2"}
    failed["test_result"] = {"git_patch": "", "report": {"resolved": False}}
    (evals / "output.jsonl").write_text(json.dumps(EVAL_RECORD) + "\n" + json.dumps(failed) + "\n")
    catalog = Catalog([str(evals)], tmp_path / "cache.sqlite3")
    assert catalog.scan() == 2
    rows = catalog.query(sort="outcome", order="asc")["rows"]
    assert [r["outcome"] for r in rows] == ["not resolved", "resolved"]
    source = catalog.source(rows[1]["key"])
    assert source is not None and source.path == f"{evals / 'output.jsonl'}#demo__demo-1"
    loaded = load_source(catalog, source)
    assert loaded.outcome == "resolved" and loaded.patch and "+x = 2" in loaded.patch


def test_the_server_starts_without_the_event_model_or_pygments() -> None:
    import subprocess
    import sys

    code = (
        "import sys, trajkit.cli.serve, trajkit.serve.app, trajkit.serve.catalog;"
        "print([m for m in ('trajkit.events', 'pygments', 'litellm', 'trajkit.sdk') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"  # the first index page needs none of them


def test_serve_refuses_a_missing_path_and_a_busy_port(tmp_path: Path) -> None:
    import socket

    from click.testing import CliRunner

    from trajkit.cli import main

    missing = CliRunner().invoke(main, ["serve", str(tmp_path / "nope")])
    assert missing.exit_code == 1 and "no such file or folder" in missing.output
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        result = CliRunner().invoke(
            main, ["serve", str(tmp_path), "--port", str(port), "--cache", str(tmp_path / "c.db")]
        )
    assert result.exit_code == 2 and f"cannot listen on 127.0.0.1:{port}" in result.output
