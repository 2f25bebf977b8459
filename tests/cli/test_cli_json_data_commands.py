"""`--json` on the commands whose output is data already: convert, inspect, schema (README
"JSON shapes" says what each means); the shapes themselves are checked in test_cli_contract."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tests.support import fixtures as fx
from trajkit.cli import main

AGENT_SERVER = fx.FIXTURES / "shapes" / "agent_server"


def test_convert_json_needs_an_output_file() -> None:
    result = CliRunner().invoke(main, ["convert", str(fx.SDK_FIXTURES), "--json"])
    assert result.exit_code == 2
    assert "--json reports what was written: pass -o FILE" in result.output


def test_convert_json_reports_what_was_written(tmp_path: Path) -> None:
    out = tmp_path / "c.jsonl"
    bad = fx.BAD_FIXTURES / "index_gap"
    result = CliRunner().invoke(
        main, ["convert", str(fx.SDK_FIXTURES), str(bad), "-o", str(out), "--json"]
    )
    assert result.exit_code == 1  # one skipped
    doc = json.loads(result.stdout)
    assert doc["converted"] == len(out.read_text().splitlines()) == 8
    assert len(doc["skipped"]) == 1 and str(bad) in doc["skipped"][0]
    assert doc["output"] and doc["output"].endswith("c.jsonl")
    one = CliRunner().invoke(
        main,
        ["convert", str(fx.sdk_conversation("a_text")), "-o", str(tmp_path / "one.json"), "--json"],
    )
    assert one.exit_code == 0 and json.loads(one.stdout)["converted"] == 1


def test_convert_json_says_nothing_was_written(tmp_path: Path) -> None:
    out = tmp_path / "c.jsonl"
    result = CliRunner().invoke(
        main,
        [
            "convert",
            str(fx.BAD_FIXTURES / "index_gap"),
            str(fx.BAD_FIXTURES / "parent_cycle"),
            "-o",
            str(out),
            "--json",
        ],
    )
    doc = json.loads(result.stdout)
    assert result.exit_code == 1 and doc["converted"] == 0 and doc["output"] is None
    assert not out.exists()


def test_inspect_json_is_the_header_as_data() -> None:
    result = CliRunner().invoke(main, ["inspect", str(AGENT_SERVER), "--json"])
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["title"] == "Run echo in the terminal" and doc["events"] == 6
    assert doc["kinds"] == {
        "ActionEvent": 2, "MessageEvent": 1, "ObservationEvent": 2, "SystemPromptEvent": 1,
    }  # fmt: skip
    assert doc["tags"] == {"team": "evals", "ticket": "tk42"} and doc["problems"] == []
    ranged = json.loads(
        CliRunner()
        .invoke(main, ["inspect", str(AGENT_SERVER), "--json", "--from", "2", "--to", "3"])
        .stdout
    )
    assert ranged["shown"] == [2, 3] and ranged["events"] == 6


def test_inspect_json_of_a_broken_conversation_exits_1_with_its_problems() -> None:
    result = CliRunner().invoke(
        main, ["inspect", str(fx.BAD_FIXTURES / "truncated_event_json"), "--json"]
    )
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["problems"] and "not valid JSON" in " ".join(doc["problems"])


def test_schema_json_lists_every_schema_and_reports_writes(tmp_path: Path) -> None:
    listing = json.loads(CliRunner().invoke(main, ["schema", "--json"]).stdout)
    names = {s["name"] for s in listing["schemas"]}
    assert {"event", "base_state", "ls", "inspect", "convert", "schema"} <= names
    wrote = CliRunner().invoke(main, ["schema", "--write", str(tmp_path / "s"), "--json"])
    assert wrote.exit_code == 0
    assert sorted(Path(p).name for p in json.loads(wrote.stdout)["written"]) == [
        "base_state.schema.json", "event.schema.json",
    ]  # fmt: skip
    stale = CliRunner().invoke(main, ["schema", "--check", str(tmp_path / "empty"), "--json"])
    assert stale.exit_code == 1 and json.loads(stale.stdout)["check"]["up_to_date"] is False
    named = CliRunner().invoke(main, ["schema", "ls", "--json"])
    assert named.exit_code == 2 and "NAME prints that schema" in named.output
