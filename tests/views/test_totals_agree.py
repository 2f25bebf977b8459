"""`ls`, `stats` and `export` report the same cost and tokens: one usage sum (store/usage.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from tests.support import fixtures as fx
from trajkit.cli import main
from trajkit.events.state import EXECUTION_STATUSES
from trajkit.export import RowOptions, conversation_rows
from trajkit.export.rows import ConversationRows
from trajkit.store.usage import Usage, usage_totals


def _cli_json(*args: str) -> Any:
    result = CliRunner().invoke(main, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _two_llm_conversation(tmp_path: Path) -> Path:
    """b_terminal with a second LLM (a condenser) in its stats, and an odd hand-edited entry."""
    source = fx.sdk_conversation("b_terminal")
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    state_path = folder / "base_state.json"
    state = json.loads(state_path.read_text())
    metrics = state["stats"]["usage_to_metrics"]
    metrics["condenser"] = {
        "model_name": "openai/gpt-4o-mini",
        "accumulated_cost": 0.25,
        "accumulated_token_usage": {
            "model": "openai/gpt-4o-mini",
            "prompt_tokens": 1000,
            "completion_tokens": 20,
            "cache_read_tokens": 300,
            "cache_write_tokens": 7,
            "reasoning_tokens": 5,
        },
        "response_latencies": [{"model": "openai/gpt-4o-mini", "latency": 0.1, "response_id": "x"}],
    }
    state_path.write_text(json.dumps(state))
    return folder


def test_ls_stats_and_export_report_the_same_totals(tmp_path: Path) -> None:
    folder = _two_llm_conversation(tmp_path)
    state = json.loads((folder / "base_state.json").read_text())
    agent = state["stats"]["usage_to_metrics"]["agent"]
    expected_cost = agent["accumulated_cost"] + 0.25
    expected_prompt = agent["accumulated_token_usage"]["prompt_tokens"] + 1000
    expected_completion = agent["accumulated_token_usage"]["completion_tokens"] + 20

    (ls_row,) = _cli_json("ls", str(folder))["conversations"]
    stats = _cli_json("stats", str(folder))
    result = conversation_rows(folder, RowOptions(redact=False))
    assert isinstance(result, ConversationRows)
    row = result.conversation

    assert ls_row["cost"] == stats["cost"]["total"] == row["accumulated_cost"]
    assert row["accumulated_cost"] == expected_cost
    assert stats["tokens"]["prompt"] == row["prompt_tokens"] == expected_prompt
    assert stats["tokens"]["completion"] == row["completion_tokens"] == expected_completion
    assert stats["tokens"]["cache_read"] == row["cache_read_tokens"] == 300
    assert stats["tokens"]["reasoning"] == row["reasoning_tokens"] == 5
    assert row["cache_write_tokens"] == 7
    assert row["n_llm_calls"] == len(agent["response_latencies"]) + 1
    assert ls_row["status"] == row["execution_status"] == "finished"
    assert stats["by_status"] == {"finished": 1}


def test_usage_totals_reads_parsed_and_raw_state_alike(tmp_path: Path) -> None:
    from trajkit.events.state import parse_base_state

    folder = _two_llm_conversation(tmp_path)
    raw = json.loads((folder / "base_state.json").read_text())
    assert usage_totals(raw) == usage_totals(parse_base_state(raw))
    assert usage_totals(raw).n_llm_calls == 3
    assert usage_totals(None) == usage_totals({}) == Usage()
    odd = {"stats": {"usage_to_metrics": {"a": {"accumulated_cost": True}, "b": "x"}}}
    assert usage_totals(odd) == Usage()  # a boolean is not a cost, a string not a metrics entry


def test_one_status_list() -> None:
    from trajkit.cli.export import export_command
    from trajkit.sdk.conversation.state import ConversationExecutionStatus

    (status_option,) = [p for p in export_command.params if p.name == "status"]
    assert tuple(status_option.type.choices) == EXECUTION_STATUSES  # type: ignore[attr-defined]
    assert tuple(ConversationExecutionStatus) == EXECUTION_STATUSES
    # the runtime's names spell the values (built from the list: a reordered list shows here)
    assert [s.name.lower() for s in ConversationExecutionStatus] == list(EXECUTION_STATUSES)
    assert EXECUTION_STATUSES[0] == "idle" and len(EXECUTION_STATUSES) == 8
