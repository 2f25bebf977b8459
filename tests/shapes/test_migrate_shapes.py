"""`trajkit migrate` of V1 data that is not a current V1 folder: samples and real files."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tests.shapes.test_wild_samples import WILD, needs_wild
from tests.support import fixtures as fx
from trajkit.cli import main

SHAPES = fx.FIXTURES / "shapes"


def _migrate_and_validate(tmp_path: Path, *inputs: Path) -> tuple[str, str]:
    out = tmp_path / "out"
    migrated = CliRunner().invoke(main, ["migrate", *map(str, inputs), "-o", str(out)])
    strict = CliRunner().invoke(main, ["validate", "--strict", str(out)])
    return migrated.output, strict.output


def test_samples_migrate_to_folders_validate_strict_accepts(tmp_path: Path) -> None:
    output, strict = _migrate_and_validate(tmp_path, SHAPES)
    assert "migrated 5 conversation(s)" in output, output
    assert strict.splitlines()[-1] == "valid: 5 conversations (28 events)", strict
    folders = {p.name for p in (tmp_path / "out").iterdir()}
    assert "5a3e0c8d2f1b4e6a9c7d1e2f3a4b5c6d" in folders  # the older-SDK folder, upgraded
    report = json.loads(
        (
            tmp_path / "out" / "5a3e0c8d2f1b4e6a9c7d1e2f3a4b5c6d" / "migration_report.json"
        ).read_text()
    )
    assert report["container"] == "v1-folder" and report["v1_events"] == 6
    assert any("agent_status renamed execution_status" in w for w in report["warnings"])
    assert not (tmp_path / "out" / "5a3e0c8d2f1b4e6a9c7d1e2f3a4b5c6d" / "v0_sidecar.json").exists()


def test_eval_record_migrates_with_base_state_from_metadata(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["migrate", str(SHAPES / "eval_output.jsonl"), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    states = [json.loads(p.read_text()) for p in sorted(out.glob("*/base_state.json"))]
    assert sorted(s["tags"]["title"] for s in states) == ["sample-current", "sample-old"]
    for state in states:
        assert state["agent"]["llm"]["model"] == "openai/gpt-4o"
        assert state["agent"]["llm"]["api_key"] == "**********"
        assert state["max_iterations"] == 10
    assert sorted(s["execution_status"] for s in states) == ["error", "finished"]


def test_current_v1_folder_needs_no_migration(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["migrate", str(fx.sdk_conversation("a_text")), "-o", str(tmp_path / "o")]
    )
    assert result.exit_code == 1
    assert "already a V1 conversation folder in the current format" in result.output


@needs_wild
def test_real_eval_output_and_old_folders_migrate_to_valid_folders(tmp_path: Path) -> None:
    output, strict = _migrate_and_validate(
        tmp_path,
        WILD / "benchmarks-v1-output" / "openagentsafety_output.jsonl",
        WILD / "sdk-early" / "test_file_store",
        WILD / "agent-server",
        WILD / "cli-trajectories",
        WILD / "visualizer",
    )
    assert "migrated 9 conversation(s)" in output, output
    assert strict.splitlines()[-1] == "valid: 9 conversations (462 events)", strict
