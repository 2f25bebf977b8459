"""validate, convert and export agree on which conversations are invalid (one shared check)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from tests.support import fixtures as fx
from trajkit.cli import main
from trajkit.engine import LocalEngine
from trajkit.export import RowOptions, export_dataset
from trajkit.validate.verdict import conversation_errors, invalid_reason

BAD = sorted(p for p in fx.BAD_FIXTURES.iterdir() if p.is_dir())


@pytest.mark.parametrize("folder", BAD, ids=[p.name for p in BAD])
def test_the_three_commands_give_one_verdict(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # paths print whole (the fixtures are not below tmp_path)
    validated = CliRunner().invoke(main, ["validate", str(folder), "--json"])
    doc = json.loads(validated.stdout)
    # A secret in clear is an error for validate that export masks instead (verdict.py).
    structural = [p for p in doc["problems"] if p["severity"] == "error" and p["code"] != "secret"]
    invalid = bool(structural)
    errors = conversation_errors(folder)
    assert errors == [
        f"{p['path']}:{p['pointer']}: {p['message']}" if p["pointer"] else f"{p['path']}: {p['message']}"
        for p in structural
    ]  # fmt: skip
    assert doc["valid"] == (doc["errors"] == 0)

    converted = CliRunner().invoke(main, ["convert", str(folder), "-j", "1"])
    report = export_dataset([folder], tmp_path / "ds", engine=LocalEngine(1))
    if invalid:
        reason = invalid_reason(errors)
        assert converted.exit_code == 1 and f"Error: {reason}\n" in converted.stderr
        assert [s.reason for s in report.skipped] == [reason]
        assert report.exported == 0
    else:
        assert converted.exit_code == 0, converted.output
        assert report.exported == 1 and not report.skipped


@pytest.mark.parametrize("name", ["index_gap", "duplicate_index", "wrong_field_types"])
def test_keep_invalid_records_the_problems_in_the_row(name: str, tmp_path: Path) -> None:
    folder = fx.BAD_FIXTURES / name  # the fixtures share one conversation id: one per export
    options = RowOptions(keep_invalid=True)
    report = export_dataset([folder], tmp_path / "ds", options=options, engine=LocalEngine(1))
    assert report.exported == 1 and not report.skipped
    (row,) = pq.read_table(tmp_path / "ds" / "conversations").to_pylist()
    errors = conversation_errors(folder)
    assert errors and row["problems"][: len(errors)] == errors


def test_keep_invalid_in_the_cli(tmp_path: Path) -> None:
    gap = str(fx.BAD_FIXTURES / "index_gap")
    result = CliRunner().invoke(main, ["export", gap, "-o", str(tmp_path / "ds"), "--keep-invalid"])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["convert", gap, "--keep-invalid"])
    assert result.exit_code == 0
    assert result.stderr.startswith(f"warning: {gap}/events: index gap: no event file with index 3")
    assert "(kept: --keep-invalid)" in result.stderr
    assert json.loads(result.stdout)["messages"]
