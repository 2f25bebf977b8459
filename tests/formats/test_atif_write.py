"""`convert --to atif`: validated by the `atif` package's models; both round trips hold."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import atif
import pytest
from click.testing import CliRunner

from tests.formats._shared import needs_formats
from tests.support import fixtures as fx
from trajkit.cli import main
from trajkit.convert import convert_conversation
from trajkit.convert.atif import SCHEMA_VERSION, conversation_to_atif, write_atif
from trajkit.events import dump_event
from trajkit.shapes import ShapeRef, shape_refs
from trajkit.store import open_conversation


def _atif_file(conversation: Path, tmp_path: Path) -> Path:
    out = tmp_path / "trajectory.json"
    result = CliRunner().invoke(
        main, ["convert", str(conversation), "--to", "atif", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out


def test_every_sdk_fixture_validates_with_the_atif_models(
    sdk_conversation_dir: Path, tmp_path: Path
) -> None:
    document = json.loads(_atif_file(sdk_conversation_dir, tmp_path).read_text())
    trajectory = atif.Trajectory.model_validate(document)
    assert trajectory.schema_version == SCHEMA_VERSION == "ATIF-v1.8"
    assert [s.step_id for s in trajectory.steps] == list(range(1, len(trajectory.steps) + 1))


def test_v1_to_atif_to_v1_gives_the_same_chat_and_events(
    sdk_conversation_dir: Path, tmp_path: Path
) -> None:
    ref = ShapeRef("atif", str(_atif_file(sdk_conversation_dir, tmp_path)))
    before, after = convert_conversation(sdk_conversation_dir), convert_conversation(ref)
    assert after["messages"] == before["messages"] and after["tools"] == before["tools"]
    original, back = open_conversation(sdk_conversation_dir), ref.open_conversation()
    assert back.id == original.id
    assert sorted(map(dump_event, back.iter_events())) == sorted(
        map(dump_event, original.iter_events())
    )
    assert back.base_state() == original.base_state()


def test_parallel_calls_are_one_step_with_results_paired() -> None:
    document, _ = conversation_to_atif(fx.sdk_conversation("d_parallel"))
    step = next(s for s in document["steps"] if len(s.get("tool_calls") or []) > 1)
    calls = [c["tool_call_id"] for c in step["tool_calls"]]
    assert calls == ["call_d_parallel_0_0", "call_d_parallel_0_1"]
    assert [r["source_call_id"] for r in step["observation"]["results"]] == calls
    assert step["observation"]["results"][0]["content"].startswith("parallel-one")
    assert step["message"] == "Doing two things at once."


def test_metrics_are_each_calls_usage_and_sum_to_the_accumulated() -> None:
    folder = fx.sdk_conversation("d_parallel")
    document, _ = conversation_to_atif(folder)
    state = json.loads((folder / "base_state.json").read_text())
    agent = state["stats"]["usage_to_metrics"]["agent"]
    steps = [s for s in document["steps"] if "metrics" in s]
    assert [s["metrics"]["prompt_tokens"] for s in steps] == [
        u["prompt_tokens"] for u in agent["token_usages"]
    ]
    assert [s["metrics"]["cost_usd"] for s in steps] == [c["cost"] for c in agent["costs"]]
    final = document["final_metrics"]
    assert final["total_prompt_tokens"] == agent["accumulated_token_usage"]["prompt_tokens"]
    assert final["total_cost_usd"] == pytest.approx(agent["accumulated_cost"])


def test_reasoning_and_condensation() -> None:
    reasoning, _ = conversation_to_atif(fx.sdk_conversation("g_reasoning_chat"))
    assert any(s.get("reasoning_content") for s in reasoning["steps"])
    condensed, _ = conversation_to_atif(fx.sdk_conversation("j_condense"))
    marked = [s for s in condensed["steps"] if s.get("extra", {}).get("context_management")]
    assert [s["extra"]["context_management"] for s in marked] == [
        {"type": "compaction", "boundary": "replace"}
    ]
    assert marked[0]["source"] == "system" and marked[0]["message"]


def test_stream_line_and_document_hold_the_same_trajectory() -> None:
    folder = fx.sdk_conversation("e_persist_restore")
    indented, line = io.BytesIO(), io.BytesIO()
    write_atif(folder, indented)
    write_atif(folder, line, line=True)
    assert b"\n" not in line.getvalue()
    assert json.loads(indented.getvalue()) == json.loads(line.getvalue())


def _strip(value: Any) -> Any:
    """`value` without trajkit's `extra.openhands` (and the objects it leaves empty)."""
    if isinstance(value, dict):
        out = {k: _strip(v) for k, v in value.items() if k != "openhands"}
        return {k: v for k, v in out.items() if v != {}}
    return [_strip(v) for v in value] if isinstance(value, list) else value


def _chain(path: Path) -> list[dict[str, Any]]:
    """The trajectory and each continuation its `continued_trajectory_ref` names beside it."""
    docs = [json.loads(path.read_text())]
    while (follow := docs[-1].get("continued_trajectory_ref")) and (path.parent / follow).is_file():
        docs.append(json.loads((path.parent / follow).read_text()))
    return docs


@needs_formats
@pytest.mark.parametrize("name", fx.ATIF_FILES)
def test_atif_to_v1_to_atif_keeps_every_step_call_result_and_metric(name: str) -> None:
    path = fx.FORMATS / name
    docs = _chain(path)  # a trajectory is read joined with its continuations
    original = docs[0]
    steps = [step for doc in docs for step in doc["steps"]]
    ref = next(iter(shape_refs(path) or []))  # the trajectory (the file has no embedded one)
    document, _ = conversation_to_atif(ref.open_conversation())
    atif.Trajectory.model_validate(document)
    back = _strip(document)
    assert len(back["steps"]) == len(steps)
    for old, new in zip(steps, back["steps"], strict=True):
        for key, value in old.items():
            if key == "step_id" and len(docs) > 1:  # numbered 1, 2, ... over the parts
                continue
            if key == "metrics":  # every metric kept (a cost of 0 may be added)
                assert value.items() <= new[key].items(), (old["step_id"], key)
            else:
                assert _strip(value) == new.get(key), (old["step_id"], key)
    moved = {"continued_trajectory_ref", "final_metrics"} if len(docs) > 1 else set()
    for key in set(original) - {"steps", "schema_version"} - moved:
        assert _strip(original[key]) == back.get(key), key
    if moved:  # each part's root (its file, size, totals) is kept in the root's extra
        parts = back["extra"]["continuations"]
        assert [p["steps"] for p in parts] == [len(d["steps"]) for d in docs]
        assert [p.get("final_metrics") for p in parts] == [d.get("final_metrics") for d in docs]
        assert parts[0]["continued_trajectory_ref"] == original["continued_trajectory_ref"]


@needs_formats
@pytest.mark.parametrize("name", fx.SWE_FILES + fx.INSPECT_FILES)
def test_other_formats_write_valid_atif(name: str) -> None:
    for ref in shape_refs(fx.FORMATS / name) or []:
        document, _ = conversation_to_atif(ref.open_conversation())
        trajectory = atif.Trajectory.model_validate(document)
        chat = convert_conversation(ref)["messages"]
        calls = [c["id"] for m in chat for c in m.get("tool_calls") or []]
        assert [c.tool_call_id for s in trajectory.steps for c in s.tool_calls or []] == calls


@needs_formats
def test_a_harbor_job_folder_is_walked() -> None:
    result = CliRunner().invoke(main, ["ls", "--json", str(fx.FORMATS / "atif")])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.stdout)
    rows = listed if isinstance(listed, list) else listed.get("conversations", [])
    joined = len(fx.ATIF_CONTINUATIONS)  # a continuation is read with its trajectory
    assert len(rows) == len(fx.ATIF_FILES) - joined


def test_many_conversations_give_one_trajectory_a_line(tmp_path: Path) -> None:
    out = tmp_path / "all.jsonl"
    result = CliRunner().invoke(
        main, ["convert", str(fx.SDK_FIXTURES), "--to", "atif", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    lines = out.read_bytes().splitlines()
    assert len(lines) == len(fx.sdk_conversations())
    ids = {atif.Trajectory.model_validate_json(line).session_id for line in lines}
    assert ids == {open_conversation(c).id for c in fx.sdk_conversations()}


def test_usage_without_response_ids_is_paired_in_order(tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / fx.sdk_conversation("d_parallel").name
    shutil.copytree(fx.sdk_conversation("d_parallel"), folder)
    state = json.loads((folder / "base_state.json").read_text())
    usages = state["stats"]["usage_to_metrics"]["agent"]["token_usages"]
    for usage in usages:
        usage["response_id"] = ""  # as an older SDK wrote them
    (folder / "base_state.json").write_text(json.dumps(state))
    document, _ = conversation_to_atif(folder)
    steps = [s for s in document["steps"] if s["source"] == "agent"]
    assert [s["metrics"]["prompt_tokens"] for s in steps] == [u["prompt_tokens"] for u in usages]
    ref = ShapeRef("atif", str(tmp_path / "t.json"))
    Path(ref.file).write_bytes(json.dumps(document).encode())
    assert ref.open_conversation().base_state() == open_conversation(folder).base_state()


def test_a_source_session_id_is_written_once(tmp_path: Path) -> None:
    """An ATIF file's own `session_id` is not written a second time after the steps (a
    duplicate key: readers kept one of the two)."""
    source = tmp_path / "trajectory.json"
    steps = [{"step_id": 1, "source": "user", "message": "hello"},
             {"step_id": 2, "source": "agent", "message": "hi"}]  # fmt: skip
    source.write_text(json.dumps({"schema_version": "ATIF-v1.7", "session_id": "run-7",
                                  "agent": {"name": "harness", "version": "1"}, "steps": steps}))  # fmt: skip
    out = tmp_path / "out.json"
    done = CliRunner().invoke(main, ["convert", str(source), "--to", "atif", "-o", str(out)])
    assert done.exit_code == 0, done.output
    keys: list[list[str]] = []
    json.loads(out.read_text(), object_pairs_hook=lambda pairs: keys.append([k for k, _ in pairs]))
    root = keys[-1]
    assert root.count("session_id") == 1 and root.count("schema_version") == 1, root
    document = json.loads(out.read_text())
    atif.Trajectory.model_validate(document)
    assert document["extra"]["openhands"]["root"]["session_id"] == "run-7"  # kept, once
