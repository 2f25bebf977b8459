"""Bad files of the other formats through the reading commands: exit 1, file and pointer named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support import fixtures as fx
from trajkit.cli import main

_ATIF = {"schema_version": "ATIF-v1.6", "agent": {"name": "a", "version": "1"}}
BAD = {
    "steps.json": (_ATIF | {"steps": {"step_id": 1}}, "/steps"),
    "step.json": (_ATIF | {"steps": [{"step_id": 1, "source": "user", "message": "x"}, 3]}, "/steps/1"),
    "run.traj.json": ({"trajectory_format": "mini-swe-agent-1", "messages": "x"}, "/messages"),
    "run.traj": ({"history": [{"role": "user", "content": "x"}, "oops"]}, "/history/1"),
    "log.json": ({"version": 2, "eval": {"task": "t"}, "samples": [{"id": 1, "epoch": 1}]},
                 "/samples/0/messages"),
}  # fmt: skip


@pytest.mark.parametrize("command", ["validate", "convert", "ls", "inspect"])
@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_files_are_named_with_their_pointer(name: str, command: str, tmp_path: Path) -> None:
    content, pointer = BAD[name]
    path = tmp_path / name
    path.write_text(json.dumps(content))
    args = [command, str(path)] + (["--no-pager"] if command == "inspect" else [])
    result = CliRunner().invoke(main, args, env={"COLUMNS": "300"})
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.stderr
    assert f"{path}" in result.output + result.stderr and pointer in result.output + result.stderr


def test_a_truncated_eval_log_says_so(tmp_path: Path) -> None:
    path = tmp_path / "cut.eval"
    path.write_bytes(b"PK\x03\x04 truncated")
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 1
    assert "not a readable .eval log" in result.output + result.stderr


@pytest.mark.parametrize("keep", [[], ["--keep-invalid"]])
@pytest.mark.parametrize("to", ["atif", "anthropic", "inspect"])
def test_bad_conversations_through_the_new_targets(
    to: str, keep: list[str], tmp_path: Path
) -> None:
    out = tmp_path / ("out.eval" if to == "inspect" else "out.jsonl")
    for bad in sorted(p for p in fx.BAD_FIXTURES.iterdir() if p.is_dir()):
        result = CliRunner().invoke(
            main, ["convert", str(bad), "--to", to, "-o", str(out), "--overwrite", *keep]
        )
        assert result.exception is None or isinstance(result.exception, SystemExit), bad
        assert "Traceback" not in result.stderr, bad
        assert result.exit_code in (0, 1), bad
        if result.exit_code == 1:
            assert str(bad) in result.stderr, (bad, result.stderr)
