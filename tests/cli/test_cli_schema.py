"""`trajkit schema`: print, check and write the generated JSON Schemas."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tests.support import fixtures as fx
from trajkit.cli import main
from trajkit.schema import build_schemas, render

SCHEMAS = fx.REPO / "schemas"


def test_prints_all_schemas_keyed_by_file_name() -> None:
    result = CliRunner().invoke(main, ["schema"])
    assert result.exit_code == 0
    assert json.loads(result.output) == build_schemas()


def test_prints_one_schema_as_the_file_holds_it() -> None:
    result = CliRunner().invoke(main, ["schema", "event"])
    assert result.exit_code == 0
    assert result.output == (SCHEMAS / "event.schema.json").read_text(encoding="utf-8")


def test_unknown_name_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["schema", "nope"])
    assert result.exit_code == 2
    assert result.output == (
        "Error: no schema named 'nope'; choose one of: event, base_state, convert, export, "
        "inspect, ls, migrate, repair, schema, stats, validate, view\n"
    )


def test_check_passes_on_the_checked_in_files() -> None:
    result = CliRunner().invoke(main, ["schema", "--check", str(SCHEMAS)])
    assert result.exit_code == 0, result.output
    assert "up to date" in result.output


def test_write_then_check_then_drift(tmp_path: Path) -> None:
    runner = CliRunner()
    written = runner.invoke(main, ["schema", "--write", str(tmp_path)])
    assert written.exit_code == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["base_state.schema.json", "event.schema.json"]
    for name, schema in build_schemas().items():
        assert (tmp_path / name).read_text(encoding="utf-8") == render(schema)
    assert runner.invoke(main, ["schema", "--check", str(tmp_path)]).exit_code == 0

    (tmp_path / "event.schema.json").write_text("{}\n", encoding="utf-8")
    stale = runner.invoke(main, ["schema", "--check", str(tmp_path)])
    assert stale.exit_code == 1
    assert "event.schema.json: out of date" in stale.output


def test_check_and_write_together_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["schema", "--check", str(tmp_path), "--write", str(tmp_path)]
    )
    assert result.exit_code == 2
