"""`convert --to inspect -o FILE.eval`: one log that inspect_ai's own reader opens."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from inspect_ai.log import read_eval_log

from tests.formats._shared import needs_formats
from tests.support import fixtures as fx
from trajkit.cli import main
from trajkit.convert import convert_conversation


def test_sdk_fixtures_become_one_log_read_by_inspect(tmp_path: Path) -> None:
    out = tmp_path / "run.eval"
    result = CliRunner().invoke(
        main, ["convert", str(fx.SDK_FIXTURES), "--to", "inspect", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    log = read_eval_log(str(out))
    folders = fx.sdk_conversations()
    assert log.status == "success" and len(log.samples or []) == len(folders)
    for sample in log.samples or []:
        folder = next(f for f in folders if str(f) in sample.metadata["source"])  # type: ignore[index]
        chat = convert_conversation(folder)["messages"]
        assert [m.role for m in sample.messages] == [m["role"] for m in chat]
        calls = [(c.id, c.function, c.arguments) for m in sample.messages
                 if m.role == "assistant" for c in m.tool_calls or []]  # fmt: skip
        assert calls == [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
                         for m in chat for c in m.get("tool_calls") or []]  # fmt: skip
        assert sample.model_usage and log.eval.model == "openai/gpt-4o"


def test_inspect_needs_an_eval_output(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["convert", str(fx.SDK_FIXTURES), "--to", "inspect"])
    assert result.exit_code == 2 and "-o FILE.eval" in result.output + result.stderr


@needs_formats
def test_other_formats_round_into_inspect(tmp_path: Path) -> None:
    out = tmp_path / "all.eval"
    result = CliRunner().invoke(
        main, ["convert", str(fx.FORMATS), "--to", "inspect", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    names = [n for n in fx.ATIF_FILES + fx.SWE_FILES + fx.INSPECT_FILES
             if n not in fx.ATIF_CONTINUATIONS]  # fmt: skip
    samples = read_eval_log(str(out)).samples or []
    assert len(samples) >= len(names)
    assert {Path(s.metadata["source"].split("#")[0]) for s in samples} == {  # type: ignore[index]
        fx.FORMATS / n for n in names
    }
