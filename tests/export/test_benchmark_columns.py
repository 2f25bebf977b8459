"""Benchmark columns from evaluation records: export, `ls --json`, `stats` and the outcome."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from tests.support import fixtures as fx
from trajkit.cli import main
from trajkit.shapes import resolve_inputs
from trajkit.views.catalog import source_row

SHARED = next(
    (p for p in (fx.REPO.parent / "shared", fx.REPO.parents[1] / "shared") if p.is_dir()),
    fx.REPO.parent / "shared",
)


def _run(*args: str) -> Any:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def _swe_record(tmp_path: Path) -> Path:
    """The bundled V1 evaluation sample, graded as an OpenHands SWE-bench run records it."""
    lines = (fx.FIXTURES / "shapes" / "eval_output.jsonl").read_text().splitlines()
    out = []
    for n, line in enumerate(lines):
        record = json.loads(line)
        record["instance"] = {"repo": "django/django", "base_commit": "abc123", "x": 1}
        record["test_result"] = {
            "git_patch": "diff --git a/a.py b/a.py\n",
            "report": {"resolved": n == 0},
        }
        out.append(json.dumps(record))
    path = tmp_path / "output.jsonl"
    path.write_text("\n".join(out) + "\n")
    return path


def _conversations(out: Path) -> list[dict[str, Any]]:
    return pq.read_table(sorted((out / "conversations").glob("*.parquet"))).to_pylist()


def test_export_ls_stats_and_outcome_carry_the_record(tmp_path: Path) -> None:
    records = _swe_record(tmp_path)
    _run("export", str(records), "-o", str(tmp_path / "ds"))
    rows = sorted(_conversations(tmp_path / "ds"), key=lambda r: r["instance_id"])
    assert [r["instance_id"] for r in rows] == ["sample-current", "sample-old"]
    by_id = {r["instance_id"]: r for r in rows}
    old = by_id["sample-old"]
    assert (old["repo"], old["base_commit"]) == ("django/django", "abc123")
    assert old["model_patch"] == "diff --git a/a.py b/a.py\n"
    assert old["resolved"] is True and old["score"] == 1.0
    assert old["exit_status"] == "submitted"
    assert json.loads(old["test_result"])["report"] == {"resolved": True}
    assert by_id["sample-current"]["resolved"] is False

    listed = json.loads(_run("ls", str(records), "--json").stdout)["conversations"]
    assert {r["instance_id"]: r["resolved"] for r in listed} == {
        "sample-old": True,
        "sample-current": False,
    }
    stats = json.loads(_run("stats", str(records), "--json").stdout)
    assert stats["resolved_by_model"] == {
        "openai/gpt-4o": {"graded": 2, "resolved": 1, "rate": 0.5}
    }
    table = _run("stats", str(records), "--table").stdout
    assert "Resolved by model" in table and "50.0%" in table
    outcomes = {source_row(s).outcome for s in resolve_inputs([records])}  # type: ignore[arg-type]
    assert outcomes == {"resolved", "not resolved"}


def test_real_records_fill_the_columns(tmp_path: Path) -> None:
    wild = SHARED / "fixtures-wild"
    if not wild.is_dir():
        pytest.skip(f"{wild} is absent (public fixtures live in ../shared)")
    v1 = wild / "benchmarks-v1-output" / "openagentsafety_output.jsonl"
    v0 = wild / "v0-eval-paired" / "gorilla_torch_output.jsonl"
    _run("export", str(v1), str(v0), "--from-v0", "-o", str(tmp_path / "ds"))
    rows = _conversations(tmp_path / "ds")
    assert rows and all(r["instance_id"] for r in rows)
    safety = [r for r in rows if r["source_path"].startswith(str(v1))]
    assert safety and all(json.loads(r["test_result"])["final_score"] for r in safety)
    gorilla = [r for r in rows if r["source_path"].startswith(str(v0))]
    graded = [r["resolved"] for r in gorilla if r["resolved"] is not None]
    assert graded and any(graded) and not all(graded)  # the V0 `correct` verdicts
    stats = json.loads(_run("stats", str(v0), "--json").stdout)
    (rate,) = stats["resolved_by_model"].values()
    assert rate["resolved"] == sum(graded) and rate["graded"] == len(graded)
    outcome = {source_row(s).outcome for s in resolve_inputs([v1])}  # type: ignore[arg-type]
    assert all(o and o.startswith("score ") for o in outcome)  # final_score is recognised
    from trajkit.views.html import conversation_to_html
    from trajkit.views.load import load_conversation

    for ref in resolve_inputs([v1]):  # the report (`view`) shows the same outcome
        loaded = load_conversation(ref)  # type: ignore[arg-type]
        assert loaded.outcome in outcome
        assert f"<dt>outcome</dt><dd>{loaded.outcome}</dd>" in conversation_to_html(loaded)
