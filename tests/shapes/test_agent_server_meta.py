"""The agent server's `meta.json` (title, created/updated, tags, metrics) feeds `ls`, `export`
and `inspect`; it goes through the store's guard and never brings its other fields along."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.support import fixtures as fx
from tests.support.cli import run_trajkit
from trajkit.errors import InputError, UnsafePath
from trajkit.shapes.agent_server import ServerMeta, read_server_meta

SAMPLE = fx.FIXTURES / "shapes" / "agent_server"
HEX = "5a3e0c8d2f1b4e6a9c7d1e2f3a4b5c6d"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def server(tmp_path: Path) -> Path:
    """A copy of the sample whose base state has no cost (meta.json has one) and whose meta.json
    holds an API key in clear in its agent copy (older servers stored the agent there)."""
    root = tmp_path / "conversations"
    shutil.copytree(SAMPLE, root)
    folder = root / HEX / "event_service"
    state = json.loads((folder / "base_state.json").read_text())
    state.pop("stats", None)
    (folder / "base_state.json").write_text(json.dumps(state))
    meta = json.loads((folder / "meta.json").read_text())
    meta["agent"]["llm"]["api_key"] = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
    (folder / "meta.json").write_text(json.dumps(meta))
    return folder


def test_the_fields_a_listing_needs_are_read_and_nothing_else() -> None:
    meta = read_server_meta(SAMPLE / HEX / "event_service")
    assert meta == ServerMeta(
        title="Run echo in the terminal",
        created_at="2026-11-29T08:53:45.003179Z",
        updated_at="2026-11-29T08:53:45.463425Z",
        tags={"team": "evals", "ticket": "tk42"},
        model="openai/gpt-4o",
        cost=0.0123,
        prompt_tokens=2310,
        completion_tokens=142,
    )
    assert read_server_meta(fx.FIXTURES / "shapes" / "old_sdk" / HEX) is None


def test_ls_shows_title_tags_and_fills_model_and_cost(server: Path) -> None:
    result = run_trajkit("ls", "--json", str(server.parent.parent))
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)["conversations"]
    assert row["title"] == "Run echo in the terminal"
    assert row["tags"] == {"team": "evals", "ticket": "tk42"}
    assert row["model"] == "openai/gpt-4o"
    assert row["cost"] == 0.0123  # from metrics: the base state has no stats
    assert "sk-proj" not in result.stdout
    line = run_trajkit("ls", str(server)).stdout
    assert "Run echo in the terminal: Run `echo hello-from-terminal && pwd`." in line


def test_export_rows_carry_title_and_tags_and_never_the_key(server: Path, tmp_path: Path) -> None:
    out = tmp_path / "ds"
    result = run_trajkit("export", str(server), "-o", str(out))
    assert result.returncode == 0, result.stderr
    (row,) = pq.read_table(out / "conversations").to_pylist()
    assert row["title"] == "Run echo in the terminal"
    assert row["tags"] == [{"key": "team", "value": "evals"}, {"key": "ticket", "value": "tk42"}]
    assert row["model"] == "openai/gpt-4o"
    assert row["accumulated_cost"] == 0.0123
    for table in ("conversations", "events"):
        assert "sk-proj" not in json.dumps(pq.read_table(out / table).to_pylist(), default=str)


def test_eval_records_get_their_instance_id_as_title(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    result = run_trajkit(
        "export", str(fx.FIXTURES / "shapes" / "eval_output.jsonl"), "-o", str(out)
    )
    assert result.returncode == 0, result.stderr
    rows = pq.read_table(out / "conversations").to_pylist()
    assert sorted(r["title"] for r in rows) == ["sample-current", "sample-old"]
    current = next(r for r in rows if r["title"] == "sample-current")
    assert {"key": "dataset", "value": "trajkit/samples"} in current["tags"]


def test_inspect_shows_title_times_and_tags(server: Path) -> None:
    result = run_trajkit("inspect", str(server))
    assert result.returncode == 0, result.stderr
    head = result.stdout.split("#0", 1)[0]
    assert "title  Run echo in the terminal" in head
    assert "created 2026-11-29T08:53:45.003179Z, updated 2026-11-29T08:53:45.463425Z" in head
    assert "tags   team=evals, ticket=tk42" in head
    assert "model  openai/gpt-4o" in head
    assert "sk-proj" not in result.stdout


def test_a_meta_json_linking_outside_is_refused_and_the_conversation_still_read(
    server: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps({"title": "from outside"}))
    (server / "meta.json").unlink()
    (server / "meta.json").symlink_to(outside)
    with pytest.raises(UnsafePath):
        read_server_meta(server)
    result = run_trajkit("ls", "--json", str(server))
    assert result.returncode == 1  # the problem is reported, as every unreadable part
    (row,) = json.loads(result.stdout)["conversations"]
    assert "title" not in row
    assert any("outside the conversation folder" in p for p in row["problems"])
    assert "from outside" not in result.stdout
    inspect = run_trajkit("inspect", str(server))
    assert "from outside" not in inspect.stdout
    assert "outside the conversation folder; not read" in inspect.stderr


def test_a_meta_json_fifo_is_refused_without_blocking(server: Path) -> None:
    (server / "meta.json").unlink()
    os.mkfifo(server / "meta.json")
    with pytest.raises(InputError) as caught:
        read_server_meta(server)
    assert "FIFO" in str(caught.value)
    result = run_trajkit("ls", "--json", str(server))  # would hang if the FIFO were opened blocking
    (row,) = json.loads(result.stdout)["conversations"]
    assert any("FIFO" in p for p in row["problems"])


def test_a_broken_meta_json_is_a_problem_not_a_lost_conversation(server: Path) -> None:
    (server / "meta.json").write_text("{not json")
    result = run_trajkit("ls", "--json", str(server))
    (row,) = json.loads(result.stdout)["conversations"]
    assert row["n_events"] == 6
    assert any("meta.json: not valid JSON" in p for p in row["problems"])
