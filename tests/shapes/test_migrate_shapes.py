"""`trajkit migrate` of V1 data that is not a current V1 folder: samples and real files."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
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


SDK_PYTHON = Path(os.environ.get("TRAJKIT_SDK_PYTHON", "/work/sdk-venv/bin/python"))
_SDK_LOAD = """
import sys
from pathlib import Path
import openhands.tools  # noqa: F401  (registers the tools' action and observation kinds)
from openhands.sdk.conversation.state import ConversationState
from openhands.sdk.event import Event
for folder in sorted(p for p in Path(sys.argv[1]).iterdir() if p.is_dir()):
    state = ConversationState.model_validate_json((folder / "base_state.json").read_text())
    names = sorted((folder / "events").glob("event-*.json"))
    events = [Event.model_validate_json(f.read_text()) for f in names]
    assert str(state.id).replace("-", "") == folder.name, folder
    print("loaded", folder.name, len(events))
"""


@pytest.mark.skipif(
    not SDK_PYTHON.exists(), reason=f"no openhands-sdk 1.58.2 venv at {SDK_PYTHON} (optional)"
)
def test_migrated_folders_load_in_openhands_sdk(tmp_path: Path) -> None:
    inputs = [SHAPES]
    if WILD.is_dir():
        inputs += [
            WILD / "benchmarks-v1-output" / "openagentsafety_output.jsonl",
            WILD / "sdk-early" / "test_file_store",
            WILD / "agent-server",
        ]
    out = tmp_path / "out"
    migrated = CliRunner().invoke(main, ["migrate", *map(str, inputs), "-o", str(out)])
    assert "migrated" in migrated.output, migrated.output
    folders = sorted(p.name for p in out.iterdir() if p.is_dir())
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # litellm's bundled prices: no network
        "OPENHANDS_SUPPRESS_BANNER": "1",
        # the SDK refuses, when an LLM is built, a model whose context window litellm does not
        # know as long enough (a runtime check of the configuration, not of the format)
        "ALLOW_SHORT_CONTEXT_WINDOWS": "true",
    }
    env.pop("PYTHONPATH", None)
    result = subprocess.run(
        [str(SDK_PYTHON), "-c", _SDK_LOAD, str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    loaded = [line.split()[1] for line in result.stdout.splitlines() if line.startswith("loaded ")]
    assert loaded == folders and len(folders) >= 5
