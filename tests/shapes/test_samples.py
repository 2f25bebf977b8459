"""trajkit's own samples of every input shape (`fixtures/shapes/`): read by every command, and
converted exactly as openhands-sdk 1.58.2 converts the same events (`expected/`, recorded once
with `fixtures/shapes/record_sdk.py`)."""

from __future__ import annotations

import json
import tarfile
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support import fixtures as fx
from trajkit.cli import main
from trajkit.convert import convert_conversation
from trajkit.shapes import resolve_inputs

SHAPES = fx.FIXTURES / "shapes"
SAMPLES = {
    "eval_output.sample-old": "eval_output.jsonl#sample-old",
    "eval_output.sample-current": "eval_output.jsonl#sample-current",
    "old_sdk": "old_sdk",
    "agent_server": "agent_server",
    "events_json": "events.json",
    "events_jsonl": "events.jsonl",
    "state_doc": "state_doc.json",
    "bare_events": "bare_events",
    "reused_ids": "reused_ids",
}


def _one(sample: str) -> object:
    (location,) = list(resolve_inputs([str(SHAPES / sample)]))
    return location


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_convert_equals_the_sdk(name: str) -> None:
    expected = json.loads((SHAPES / "expected" / f"{name}.chat_messages.json").read_text())
    document = convert_conversation(_one(SAMPLES[name]), to="chat")  # type: ignore[arg-type]
    assert document["messages"] == expected


def test_reused_tool_call_ids_convert_as_the_sdk_sends_them() -> None:
    # The default --dangling drop keeps the second turn's call: the SDK pairs by id sets.
    document = convert_conversation(_one("reused_ids"), to="chat")  # type: ignore[arg-type]
    assert [m["role"] for m in document["messages"]][-2:] == ["user", "assistant"]
    assert document["messages"][-1]["tool_calls"][0]["id"] == "functions.terminal:0"
    assert not any("without a result" in p for p in document["problems"])


def test_eval_records_are_addressed_by_instance_id_and_carry_their_metadata() -> None:
    locations = list(resolve_inputs([str(SHAPES / "eval_output.jsonl")]))
    assert [str(loc) for loc in locations] == [
        f"{SHAPES}/eval_output.jsonl#sample-old",
        f"{SHAPES}/eval_output.jsonl#sample-current",
    ]
    from trajkit.store import open_conversation

    conv = open_conversation(locations[1])  # type: ignore[arg-type]
    state = conv.base_state()
    assert state is not None
    assert state.agent.llm.model == "openai/gpt-4o"
    assert state.agent.llm.api_key == "**********"  # masked, never in clear
    assert state.execution_status == "error" and state.max_iterations == 10
    assert state.stats is not None and state.stats.usage_to_metrics is not None
    assert state.stats.usage_to_metrics["agent"].accumulated_cost == pytest.approx(0.03424)


def test_old_sdk_sample_reports_each_rule_once() -> None:
    result = CliRunner().invoke(main, ["validate", str(SHAPES / "old_sdk")])
    assert result.exit_code == 0, result.output
    upgraded = [line for line in result.output.splitlines() if "older SDK format" in line]
    assert len(upgraded) == 10 and len(set(upgraded)) == 10
    assert any("agent_status renamed execution_status" in line for line in upgraded)
    strict = CliRunner().invoke(main, ["validate", "--strict", str(SHAPES / "old_sdk")])
    assert strict.exit_code == 1 and "INVALID: 10 errors" in strict.output


def _archive(tmp_path: Path, kind: str) -> Path:
    conv = SHAPES / "old_sdk"
    if kind == "zip":
        out = tmp_path / "download.zip"
        with zipfile.ZipFile(out, "w") as zf:
            for f in sorted(conv.rglob("*.json")):
                zf.write(f, f"conversations/{f.relative_to(conv)}")
        return out
    out = tmp_path / "download.tar.gz"
    with tarfile.open(out, "w:gz") as tf:
        tf.add(conv, arcname="conversations")
    return out


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_archives_are_read_in_place(tmp_path: Path, kind: str) -> None:
    archive = _archive(tmp_path, kind)
    before = sorted(tmp_path.rglob("*"))
    expected = json.loads((SHAPES / "expected" / "old_sdk.chat_messages.json").read_text())
    (location,) = list(resolve_inputs([str(archive)]))
    assert str(location) == f"{archive}#conversations/5a3e0c8d2f1b4e6a9c7d1e2f3a4b5c6d"
    assert convert_conversation(location, to="chat")["messages"] == expected  # type: ignore[arg-type]
    for command in (["validate"], ["ls"], ["stats"], ["inspect", "--no-pager"]):
        result = CliRunner().invoke(main, [*command, str(archive)])
        assert result.exit_code == 0, (command, result.output)
    assert sorted(tmp_path.rglob("*")) == before  # nothing unpacked


def test_archive_member_escaping_is_never_read(tmp_path: Path) -> None:
    out = tmp_path / "evil.zip"
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("../outside/base_state.json", "{}")
    result = CliRunner().invoke(main, ["validate", str(out)])
    assert result.exit_code == 1
    assert "'..'" in result.output and "not read" in result.output


@pytest.mark.parametrize(
    "sample",
    [*SAMPLES.values(), "eval_output.jsonl", "base_state_only"],
)
@pytest.mark.parametrize("command", ["validate", "convert", "ls", "stats", "inspect"])
def test_every_sample_through_every_command(sample: str, command: str, tmp_path: Path) -> None:
    args = {"inspect": ["inspect", "--no-pager"], "convert": ["convert", "--to", "chat"]}
    if command == "inspect" and sample == "eval_output.jsonl":
        sample += "#sample-old"
    result = CliRunner().invoke(main, [*args.get(command, [command]), str(SHAPES / sample)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and result.output.strip()


def test_export_and_view_of_every_sample(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    # (the other samples hold the same conversation ids: export keeps one copy of each)
    paths = ["eval_output.jsonl", "old_sdk", "events.json", "state_doc.json", "base_state_only"]
    result = CliRunner().invoke(
        main, ["export", *(str(SHAPES / p) for p in paths), "-o", str(tmp_path / "ds")]
    )
    assert result.exit_code == 0, result.output
    table = pq.read_table(tmp_path / "ds" / "conversations")
    assert table.num_rows == 6
    formats = sorted(table.column("source_format").to_pylist())
    assert formats == ["v1", "v1", "v1:eval-v1", "v1:eval-v1", "v1:events-json", "v1:state-doc"]
    for sample in ("eval_output.jsonl#sample-old", "bare_events", "state_doc.json"):
        out = tmp_path / f"{sample.replace('#', '_')}.html"
        result = CliRunner().invoke(main, ["view", str(SHAPES / sample), "-o", str(out)])
        assert result.exit_code == 0, result.output
        assert "terminal" in out.read_text() or "echo" in out.read_text()


def test_task_tracker_schema_is_the_sdks() -> None:
    from trajkit.convert.tools import tools_to_chat, unknown_tools

    expected = json.loads((SHAPES / "expected" / "task_tracker_tool.json").read_text())
    tool = {
        "description": expected["function"]["description"],
        "action_type": "TaskTrackerAction",
        "observation_type": "TaskTrackerObservation",
        "annotations": {"readOnlyHint": False, "destructiveHint": False},
        "kind": "TaskTrackerTool",
        "title": "task_tracker",
    }
    assert tools_to_chat([tool], security_risk=False) == [expected]
    assert unknown_tools([tool]) == []
