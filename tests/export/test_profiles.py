"""`export --profile sft|rl`: training rows, the dataset card's default config, filters."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from tests.support import fixtures as fx
from trajkit.cli import main
from trajkit.export.profiles import split_of

SHARED = next(
    (p for p in (fx.REPO.parent / "shared", fx.REPO.parents[1] / "shared") if p.is_dir()),
    fx.REPO.parent / "shared",
)


def _run(*args: str) -> Any:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def _table(out: Path, table: str) -> list[dict[str, Any]]:
    return pq.read_table(sorted((out / table).glob("*.parquet"))).to_pylist()


def _condensed_folders() -> list[Path]:
    roots = [fx.SDK_FIXTURES / "j_condense"]
    if (SHARED / "fixtures-sdk").is_dir():
        roots += [p for p in (SHARED / "fixtures-sdk").iterdir() if p.is_dir()]
    return [
        f
        for root in roots
        for f in root.iterdir()
        if (f / "events").is_dir()
        and any('"Condensation"' in e.read_text() for e in (f / "events").iterdir())
    ]


def _convert_prefix(folder: Path, n_files: int, tmp: Path) -> Any:
    """`trajkit convert --to chat` of the conversation cut before its `n_files`-th event file."""
    cut = tmp / folder.name
    shutil.rmtree(cut, ignore_errors=True)
    (cut / "events").mkdir(parents=True)
    files = sorted((folder / "events").glob("*.json"))[:n_files]
    for f in files:
        shutil.copy(f, cut / "events" / f.name)
    state = json.loads((folder / "base_state.json").read_text())
    state["leaf_event_id"] = json.loads(files[-1].read_text())["id"]
    (cut / "base_state.json").write_text(json.dumps(state))
    return json.loads(_run("convert", str(cut), "--to", "chat").stdout)


def test_sft_rows_are_convert_at_each_condensation_point(tmp_path: Path) -> None:
    folders = _condensed_folders()
    assert folders
    for folder in folders:
        out = tmp_path / f"ds-{folder.name}"
        _run("export", str(folder), "-o", str(out), "--profile", "sft", "--no-redact")
        rows = sorted(_table(out, "sft"), key=lambda r: r["example"])
        files = sorted((folder / "events").glob("*.json"))
        cuts = [n for n, f in enumerate(files) if '"Condensation"' in f.read_text()]
        assert [r["boundary"] for r in rows] == ["condensation"] * len(cuts) + ["final"]
        expected = [_convert_prefix(folder, n, tmp_path) for n in cuts]
        expected.append(json.loads(_run("convert", str(folder), "--to", "chat").stdout))
        for row, want in zip(rows, expected, strict=True):
            assert json.loads(row["request"]) == want
            assert [m["role"] for m in row["messages"]] == [m["role"] for m in want["messages"]]
            assert json.loads(row["tools"]) == want["tools"]
        learned = [m for r in rows for m in r["messages"] if m["train"]]
        assert learned and all(m["role"] == "assistant" for m in learned)
        kept = [m for r in rows[1:] for m in r["messages"] if m["role"] == "assistant"]
        earlier = {json.dumps({**m, "train": None}) for m in rows[0]["messages"]}
        for m in kept:  # an assistant turn an earlier example holds is context, not learned
            assert m["train"] is (json.dumps({**m, "train": None}) not in earlier)


def test_sft_folder_loads_in_one_call_in_trl_layout(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets", reason="the test extra installs `datasets`")
    out = tmp_path / "ds"
    _run("export", str(fx.SDK_FIXTURES), "-o", str(out), "--profile", "sft")
    data = datasets.load_dataset(str(out), split="train", cache_dir=str(tmp_path / "cache"))
    assert data.num_rows == len(_table(out, "sft")) > 0
    # What TRL's SFTTrainer takes as a conversational dataset: a `messages` column of
    # {role, content} dicts (tool calls in the OpenAI shape), `tools` as JSON text.
    assert {"messages", "tools"} <= set(data.column_names)
    first = data[0]
    assert first["messages"][0]["role"] == "system"
    for message in first["messages"]:
        assert message["role"] in ("system", "user", "assistant", "tool")
        assert message["content"] is None or isinstance(message["content"], str)
        for call in message["tool_calls"] or []:
            assert (
                call["type"] == "function" and json.loads(call["function"]["arguments"]) is not None
            )
    assert isinstance(json.loads(first["tools"]), list)
    assert set(data["split"]) <= {"train", "test"}


def test_rl_rows_one_per_llm_call(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    folder = fx.sdk_conversation("j_condense")
    _run("export", str(folder), "-o", str(out), "--profile", "rl")
    rows = sorted(_table(out, "rl"), key=lambda r: r["call"])
    agent_calls = {
        e["llm_response_id"]
        for e in _table(out, "events")
        if e["source"] == "agent" and e["llm_response_id"] and e["kind"] != "Condensation"
    }  # the condenser's call is not the agent's
    assert {r["llm_response_id"] for r in rows} == agent_calls and len(rows) == 4
    for row in rows:
        assert [m["role"] for m in row["completion"]] == ["assistant"]
        assert row["prompt"][-1]["role"] in ("user", "tool")
        assert row["token_source"] == "none" and row["prompt_token_ids"] is None
        assert row["reward"] is None  # no evaluation record


def test_split_is_stable_per_task() -> None:
    keys = [f"task-{n}" for n in range(1000)]
    splits = [split_of(k) for k in keys]
    assert splits == [split_of(k) for k in keys]
    assert 50 < splits.count("test") < 150


def test_training_filters_and_exact_duplicates(tmp_path: Path) -> None:
    line = (fx.FIXTURES / "shapes" / "eval_output.jsonl").read_text().splitlines()[1]
    records = []
    for n, resolved in enumerate((True, False, True)):
        record = json.loads(line)
        record["instance_id"] = f"task-{n}"
        record["test_result"] = {"report": {"resolved": resolved}}
        if n == 1:  # another task: another request
            record["instruction"] += " Then list the folder."
        records.append(json.dumps(record))
    path = tmp_path / "output.jsonl"
    path.write_text("\n".join(records) + "\n")  # task-0 and task-2: the same conversation
    report = json.loads(_run("export", str(path), "-o", str(tmp_path / "a"), "--json").stdout)
    assert (report["exported"], report["duplicates"]) == (3, 0)  # analysis keeps every one
    a = tmp_path / "a-rl"
    report = json.loads(_run("export", str(path), "-o", str(a), "--json", "--profile", "rl").stdout)
    assert (report["exported"], report["duplicates"]) == (2, 1)
    assert len(_table(a, "conversations")) == 2
    assert {r["instance_id"] for r in _table(a, "rl")} == {"task-0", "task-1"}
    report = json.loads(
        _run(
            "export", str(path), "-o", str(tmp_path / "b"), "--json", "--resolved-only",
            "--profile", "sft",
        ).stdout
    )  # fmt: skip
    assert (report["exported"], report["filtered"], report["duplicates"]) == (1, 1, 1)
    assert {r["instance_id"] for r in _table(tmp_path / "b", "sft")} == {"task-0"}
    result = CliRunner().invoke(
        main, ["export", str(path), "-o", str(tmp_path / "c"), "--min-steps", "99", "--json"]
    )
    assert json.loads(result.stdout)["filtered"] == 3


def test_rl_prompts_are_convert_before_each_call(tmp_path: Path) -> None:
    folder = fx.sdk_conversation("j_condense")
    out = tmp_path / "ds"
    _run("export", str(folder), "-o", str(out), "--profile", "rl", "--no-redact")
    files = sorted((folder / "events").glob("*.json"))
    firsts: dict[str, int] = {}
    for n, f in enumerate(files):
        event = json.loads(f.read_text())
        rid = event.get("llm_response_id")
        if rid and event.get("source") == "agent" and event["kind"] != "Condensation":
            firsts.setdefault(rid, n)
    for row in _table(out, "rl"):
        want = _convert_prefix(folder, firsts[row["llm_response_id"]], tmp_path)["messages"]
        assert [(m["role"], m["tool_call_id"]) for m in row["prompt"]] == [
            (m["role"], m.get("tool_call_id")) for m in want
        ]


def test_token_ids_go_to_the_call_that_follows_them() -> None:
    from trajkit.convert.options import ConversionOptions
    from trajkit.events import TokenEvent, parse_event
    from trajkit.export.profiles import rl_rows
    from trajkit.export.summary import Loaded
    from trajkit.shapes.eval_output import BENCHMARK_FIELDS

    folder = fx.sdk_conversation("j_condense")
    events = [parse_event(f.read_bytes()) for f in sorted((folder / "events").glob("*.json"))]
    call = next(
        i for i, e in enumerate(events) if e.source == "agent" and e.__dict__.get("llm_response_id")
    )
    tokens = TokenEvent(source="agent", prompt_token_ids=[1, 2], response_token_ids=[3])
    events.insert(call, tokens)
    loaded = Loaded("c", "v1", None, None, [])
    conversation = {"conversation_id": "c", "model": None, **dict.fromkeys(BENCHMARK_FIELDS)}
    for keep_all in (True, False):
        rows = list(rl_rows(events, loaded, conversation, ConversionOptions(), keep_all=keep_all))
        found = [(r["call"], r["prompt_token_ids"], r["completion_token_ids"]) for r in rows]
        assert found[0] == (0, [1, 2], [3]) and len(found) > 1
        assert {r["token_source"] for r in rows[1:]} == {"none"}


def _with_completion_log(tmp_path: Path, response: dict[str, Any]) -> Path:
    """A copy of `b_terminal` ending with a completion log (`LLMCompletionLogEvent`), as an
    agent server streams it with `log_completions=True`, holding `response`."""
    folder = tmp_path / "conv"
    shutil.copytree(fx.sdk_conversation("b_terminal"), folder)
    files = sorted((folder / "events").glob("event-*.json"))
    last = json.loads(files[-1].read_bytes())
    log = {
        "id": "5d1f2e3a-0000-4000-8000-0000000010c0",
        "timestamp": last["timestamp"],
        "source": "environment",
        "parent_id": last["id"],
        "filename": "gpt__x-1.json",
        "log_data": json.dumps({"messages": [], "response": response}),
        "model_name": "gpt-x",
        "usage_id": "default",
        "kind": "LLMCompletionLogEvent",
    }
    (folder / "events" / f"event-{len(files):05d}-{log['id']}.json").write_text(json.dumps(log))
    state = json.loads((folder / "base_state.json").read_text())
    state["leaf_event_id"] = log["id"]
    (folder / "base_state.json").write_text(json.dumps(state))
    return folder


def test_rl_rows_take_logprobs_from_the_completion_log_of_their_call(tmp_path: Path) -> None:
    """A completion log whose provider response (Chat Completions) holds `logprobs` fills
    `completion_logprobs` of the call with that response id; other calls stay null."""
    calls = [
        json.loads(f.read_bytes()).get("llm_response_id")
        for f in sorted((fx.sdk_conversation("b_terminal") / "events").glob("*.json"))
    ]
    rid = next(r for r in calls if r)
    content = [{"token": "ls", "logprob": -0.25}, {"token": "\n", "logprob": -1.5}]
    response = {"id": rid, "choices": [{"index": 0, "logprobs": {"content": content}}]}
    folder = _with_completion_log(tmp_path, response)
    _run("export", str(folder), "-o", str(tmp_path / "out"), "--profile", "rl")
    rows = {r["llm_response_id"]: r for r in _table(tmp_path / "out", "rl")}
    assert rows[rid]["completion_logprobs"] == [-0.25, -1.5]
    assert [r["completion_logprobs"] for k, r in rows.items() if k != rid] == [None] * (
        len(rows) - 1
    )
    assert len(rows) >= 2


def test_responses_api_logprobs_are_read_and_a_log_without_them_fills_nothing() -> None:
    from trajkit.events import LLMCompletionLogEvent
    from trajkit.export.profiles import completion_logprobs

    def log(response: dict[str, Any]) -> LLMCompletionLogEvent:
        data = json.dumps({"response": response})
        return LLMCompletionLogEvent(filename="f.json", log_data=data)

    parts = [{"type": "output_text", "text": "hi", "logprobs": [{"token": "hi", "logprob": -0.5}]}]
    responses = {"id": "resp_1", "output": [{"type": "message", "content": parts}]}
    plain = {"id": "chatcmpl-2", "choices": [{"index": 0, "message": {"content": "x"}}]}
    events = [log(responses), log(plain), LLMCompletionLogEvent(filename="g", log_data="not json")]
    assert completion_logprobs(events) == {"resp_1": [-0.5]}


def test_rl_rows_take_token_ids_and_logprobs_an_atif_trajectory_recorded(tmp_path: Path) -> None:
    """A real Harbor ATIF trajectory records token ids and log-probabilities in each agent
    step's `metrics`: every call's row carries its step's, `token_source` `ATIF`."""
    path = SHARED / "fixtures-formats" / "atif" / "harbor-terminus2-summarization"
    if not path.is_dir():
        pytest.skip(f"{path} is absent (public fixtures live in ../shared)")
    trajectory = json.loads((path / "trajectory.json").read_text())
    metrics = [s["metrics"] for s in trajectory["steps"] if s["source"] == "agent"]
    _run("export", str(path / "trajectory.json"), "-o", str(tmp_path / "out"), "--profile", "rl")
    rows = sorted(_table(tmp_path / "out", "rl"), key=lambda r: r["call"])
    assert len(rows) == len(metrics) > 0
    for row, m in zip(rows, metrics, strict=True):
        assert row["token_source"] == "ATIF"
        assert row["prompt_token_ids"] == m["prompt_token_ids"]
        assert row["completion_token_ids"] == m["completion_token_ids"]
        assert row["completion_logprobs"] == m["logprobs"]
