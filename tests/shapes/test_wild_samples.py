"""Every real sample of `../shared/fixtures-wild/` through every command (fixtures/README.md).

The samples come from public repositories and are not committed: the tests read them from
`../shared/fixtures-wild` when it exists and skip with a reason otherwise. Each row says the
exit code a command gives and a line its output must hold; none may print a traceback or give
an empty success.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support import fixtures as fx
from trajkit.cli import main

WILD = fx.REPO.parent / "shared" / "fixtures-wild"
if not WILD.is_dir():  # a checkout outside the shared workspace (CI mounts it)
    WILD = fx.REPO.parents[1] / "shared" / "fixtures-wild"

needs_wild = pytest.mark.skipif(
    not WILD.is_dir(), reason="../shared/fixtures-wild is not here (public files, never committed)"
)

AGENT_SERVER = "agent-server/b2688296b4844863aaede6f60a88b9da"
EVAL = "benchmarks-v1-output/openagentsafety_output.jsonl"
CLI_ECHO = "cli-trajectories/simple_echo_hello_world"
CLI_CONFIRM = "cli-trajectories/confirmation_mode"
VIS = "visualizer/738af793554247daab6f62001054d444"
PR = "sdk-pr-artifacts/38868567ae624dcba5678b534b99575c"
EARLY = "sdk-early/test_file_store"
STATE_ONLY = "sdk-base-state-only/v1_11_5_cli_default"
JSONL = "events-jsonl/goal_events.jsonl"
V0_EVAL = "v0-eval-paired/gorilla_torch_output.jsonl"

# sample, command, exit code, a text the output (stdout + stderr) holds
TABLE = [
    (AGENT_SERVER, "validate", 0, "older SDK format upgraded in memory"),
    (AGENT_SERVER, "convert", 0, '"role": "tool"'),
    (AGENT_SERVER, "ls", 0, "b2688296-b484-4863-aaed-e6f60a88b9da"),
    (AGENT_SERVER, "stats", 0, "conversations"),
    (AGENT_SERVER, "inspect", 0, "str_replace_editor"),
    (EVAL, "validate", 0, "the record's instruction is the first message"),
    (EVAL, "convert", 0, "converted 2 conversation(s), skipped 0"),
    (EVAL, "ls", 0, "You are an AI agent assisting"),
    (EVAL, "stats", 0, "conversations"),
    (EVAL, "inspect", 1, "not one conversation: it holds 2 conversations; pass one of them"),
    (EVAL + "#safety-misconfig", "inspect", 0, "chat_npc"),
    (EVAL + "#safety-misconfig", "convert", 0, '"role": "user"'),
    (CLI_ECHO, "validate", 0, "base state unknown"),
    (CLI_ECHO, "convert", 0, '"role": "assistant"'),
    (CLI_ECHO, "ls", 0, "echo"),
    (CLI_ECHO, "inspect", 0, "base state unknown"),
    (CLI_CONFIRM, "inspect", 0, "base state unknown"),
    (VIS, "validate", 0, "base state from trajectory.json beside it"),
    (VIS, "convert", 0, '"role": "system"'),
    (VIS + "/events.json", "ls", 0, "738af793-5542-47da-ab6f-62001054d444"),
    (VIS + "/trajectory.json", "inspect", 0, "counts 99 events but holds none"),
    (PR, "validate", 0, "SystemPromptUpdateEvent"),
    (PR, "convert", 0, "SystemPromptUpdateEvent"),
    (EARLY, "validate", 0, "agent_status renamed execution_status"),
    (EARLY, "convert", 0, '"name": "finish"'),
    (EARLY, "ls", 0, "paused"),
    (STATE_ONLY, "validate", 0, "a conversation with no events yet"),
    (STATE_ONLY, "convert", 0, '"messages": []'),
    (STATE_ONLY, "inspect", 0, "no events yet"),
    (JSONL, "validate", 1, "/action_id: names no event of this conversation"),
    # an observation answers an action the file does not hold: convert and export agree with
    # validate (the one verdict), and --keep-invalid converts it all the same
    (JSONL, "convert", 1, "('70274abb-c9e1-4914-b778-29464d7bf293'); invalid, skipped (--keep"),
    (JSONL, "convert-keep-invalid", 0, "left out of the condensed view"),
    (JSONL, "inspect", 0, "base state unknown"),
    (V0_EVAL, "ls", 0, "gpt-4o-2024-05-13"),
    (V0_EVAL, "validate", 1, "an OpenHands V0 evaluation output (history of V0 events)"),
]

_ARGS = {
    "validate": ["validate"],
    "convert": ["convert", "--to", "chat"],
    "convert-keep-invalid": ["convert", "--to", "chat", "--keep-invalid"],
    "ls": ["ls"],
    "stats": ["stats"],
    "inspect": ["inspect", "--no-pager"],
}


@needs_wild
@pytest.mark.parametrize(("sample", "command", "code", "text"), TABLE)
def test_wild_sample_through_command(sample: str, command: str, code: int, text: str) -> None:
    result = CliRunner().invoke(
        main, [*_ARGS[command], str(WILD / sample)], env={"COLUMNS": "200"}, catch_exceptions=False
    )
    output = (result.stdout + result.stderr).replace('": ', '":')
    assert result.exit_code == code, output[-2000:]
    assert "Traceback" not in result.stderr  # (the data itself may hold tracebacks)
    assert text.replace('": ', '":') in output, output[-3000:]


@needs_wild
def test_export_reads_every_wild_shape(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    result = CliRunner().invoke(main, ["export", str(WILD), "-o", str(tmp_path / "ds")])
    # the one invalid sample (validate rejects it) is skipped with validate's reason
    assert result.exit_code == 1, result.output
    assert f"{WILD / JSONL}/6:/action_id: names no event of this conversation" in result.output
    table = pq.read_table(tmp_path / "ds" / "conversations")
    formats = sorted(set(table.column("source_format").to_pylist()))
    assert formats == ["v1", "v1:bare-events", "v1:eval-v1", "v1:events-json"]
    # the V0 records inside the tree are named, not dropped; --from-v0 reads the tree whole
    assert "gorilla_torch_output.jsonl: an OpenHands V0 evaluation output" in result.output
    assert "pass --from-v0 to export it" in result.output
    kept = CliRunner().invoke(
        main,
        ["export", str(WILD), "-o", str(tmp_path / "ds"), "--overwrite", "--keep-invalid"]
        + ["--from-v0"],
    )
    assert kept.exit_code == 0, kept.output
    table = pq.read_table(tmp_path / "ds" / "conversations")
    formats = sorted(set(table.column("source_format").to_pylist()))
    assert formats == [
        *("v0:eval-jsonl", "v1", "v1:bare-events", "v1:eval-v1", "v1:events-json"),
        "v1:events-jsonl",
    ]
    assert table.num_rows == 93  # 13 V1 conversations and the 80 V0 records
    (jsonl,) = [r for r in table.to_pylist() if r["source_format"] == "v1:events-jsonl"]
    assert any("names no event of this conversation" in p for p in jsonl["problems"])
    sources = table.column("source_path").to_pylist()
    assert any(s.endswith("openagentsafety_output.jsonl#safety-misconfig") for s in sources)
    rows = {r["source_path"]: r for r in table.to_pylist()}
    agent_server = next(
        r for s, r in rows.items() if s.endswith("b2688296b4844863aaede6f60a88b9da/event_service")
    )
    assert agent_server["conversation_id"] == "b2688296-b484-4863-aaed-e6f60a88b9da"
    assert agent_server["execution_status"] == "idle"  # upgraded from agent_status
    safety = next(r for s, r in rows.items() if s.endswith("#safety-misconfig"))
    assert safety["model"] == "litellm_proxy/neulab/gpt-4o-2024-08-06"  # from metadata.llm
    assert safety["n_tool_calls"] > 0 and safety["first_user_message"].startswith("# Task")
