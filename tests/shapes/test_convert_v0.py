"""`trajkit convert` reads V0 input by migrating it in memory, as ls/stats/view/export do."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tests.support import fixtures as fx
from trajkit.cli import main

V0 = fx.FIXTURES / "v0-synthetic"


def test_v0_eval_output_becomes_chat_messages_in_one_command() -> None:
    result = CliRunner().invoke(main, ["convert", str(V0 / "eval_output.jsonl"), "--to", "chat"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) >= 1
    roles = [m["role"] for m in lines[0]["messages"]]
    assert "user" in roles and "assistant" in roles
    assert "V0 trajectory (eval-jsonl) migrated in memory" in result.stderr


def test_v0_trajectory_json_to_responses() -> None:
    result = CliRunner().invoke(main, ["convert", str(V0 / "every_type.json"), "--to", "responses"])
    assert result.exit_code == 0, result.output
    (line,) = result.stdout.splitlines()
    document = json.loads(line)
    assert document["input"] and document["instructions"] is not None


def test_a_file_that_is_neither_is_still_refused(tmp_path: object) -> None:
    from pathlib import Path

    bad = Path(str(tmp_path)) / "notes.json"
    bad.write_text('{"hello": 1}')
    result = CliRunner().invoke(main, ["convert", str(bad)])
    assert result.exit_code == 1
    assert "Error:" in result.stderr and "Traceback" not in result.output
