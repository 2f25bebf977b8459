"""Property tests for `migrate` and `export`: mutated and random inputs never crash them.

Inputs: real V0 files from fixtures/v0 and fixtures/v0-synthetic with random edits (values
replaced, keys dropped, types changed, action/observation names swapped, lists cut, the text
truncated), hostile bytes under .json and .jsonl names; for export, fixture conversations with a
mutated event file or base_state.json. Each goes through the library and the CLI. Never an
uncaught exception: the library yields a result or a skip reason (and a skip reason is never the
"please report this" of an internal error), the CLI exits 0 or 1 without a traceback, and what
`migrate` writes passes `validate`. CI runs `TRAJKIT_FUZZ_EXAMPLES` (60) inputs per property.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.strategies import FIXTURES, FUZZ, _paths, hostile_bytes, json_values, mutated_events
from tests.support.cli import invoke
from trajkit.errors import OutputExists

ROOT = FIXTURES.parents[0]
V0_FILES = [
    *(ROOT / "v0").glob("*.json"),
    *(ROOT / "v0-synthetic").glob("*.json"),
]
V0_FILES = sorted(p for p in V0_FILES if p.stat().st_size < 200_000)  # tls_scanner: 1 MB
V0_DOCS: list[Any] = [json.loads(p.read_text()) for p in V0_FILES]
V0_DOCS += [
    json.loads(line)
    for name in ("eval_output.jsonl", "resolver_output.jsonl")
    for line in (ROOT / "v0-synthetic" / name).read_text().splitlines()
    if line.strip()
]
V0_NAMES = ["run", "message", "read", "edit", "finish", "think", "delegate", "condensation",
            "recall", "error", "agent_state_changed", "call_tool_mcp", "browse", "nope", "", 3]  # fmt: skip
V1_TEMPLATE = next((FIXTURES / "d_parallel").glob("[0-9a-f]" * 32))
INTERNAL = "please report this"


@st.composite
def mutated_v0(draw: st.DrawFn) -> Any:
    """A real V0 document with 1-4 random edits."""
    doc = copy.deepcopy(draw(st.sampled_from(V0_DOCS)))
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        path = draw(st.sampled_from(_paths(doc)))
        if not path:
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        op = draw(st.sampled_from(["replace", "delete", "wrap", "name", "cut", "null"]))
        if op == "delete" and isinstance(parent, dict):
            del parent[last]
        elif op == "delete" and isinstance(parent, list):
            parent.pop(last)
        elif op == "wrap":
            parent[last] = [parent[last]]
        elif op == "name" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["action", "observation", "source", "cause", "id"]))] = (
                draw(st.sampled_from(V0_NAMES))
            )
        elif op == "cut" and isinstance(parent[last], list | str):
            parent[last] = parent[last][: draw(st.integers(min_value=0, max_value=3))]
        elif op == "null":
            parent[last] = None
        else:
            parent[last] = draw(json_values)
    return doc


@st.composite
def v0_file(draw: st.DrawFn) -> tuple[str, bytes]:
    """(file name, bytes): a mutated document as .json or a .jsonl line, maybe truncated."""
    doc = draw(mutated_v0())
    as_jsonl = isinstance(doc, dict) and draw(st.booleans())
    text = json.dumps(doc).encode()
    if draw(st.integers(min_value=0, max_value=9)) == 0:  # a torn file
        text = text[: draw(st.integers(min_value=0, max_value=len(text)))]
    if as_jsonl:
        return "output.jsonl", text + b"\n" + json.dumps(
            draw(st.sampled_from(V0_DOCS[-3:]))
        ).encode()
    return "trajectory.json", text


def _cli(*args: str) -> Any:
    result = invoke(*args)
    assert result.exit_code in (0, 1), (args, result.output, result.exception)
    assert INTERNAL not in result.output, (args, result.output)
    return result


def _write(tmp: Path, name: str, data: bytes) -> Path:
    path = tmp / "in" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _migrate_library(src: Path, out: Path) -> int:
    from trajkit.migrate import MigratedConversation, SkippedInput, iter_v0_conversations
    from trajkit.migrate.run import write_conversation
    from trajkit.validate import validate_conversation

    written = 0
    for item in iter_v0_conversations([src]):
        if isinstance(item, SkippedInput):
            assert INTERNAL not in item.message, str(item)
            assert item.message
            continue
        assert isinstance(item, MigratedConversation)
        try:
            folder = write_conversation(item, out)
        except OutputExists:  # two jsonl lines with the same content: one conversation
            continue
        errors = [p for p in validate_conversation(folder).problems if p.severity == "error"]
        assert not errors, [p.format() for p in errors]
        written += 1
    return written


@FUZZ
@given(file=v0_file())
def test_migrate_library_on_mutated_v0(tmp_path_factory, file):
    tmp = tmp_path_factory.mktemp("ml")
    _migrate_library(_write(tmp, *file), tmp / "out")


@FUZZ
@given(file=v0_file())
def test_migrate_cli_on_mutated_v0(tmp_path_factory, file):
    tmp = tmp_path_factory.mktemp("mc")
    src = _write(tmp, *file)
    result = _cli("migrate", str(src), "-o", str(tmp / "out"), "-j", "1")
    if result.exit_code == 0:  # nothing skipped: something was written
        assert any((tmp / "out").iterdir())
    if (tmp / "out").exists() and any((tmp / "out").iterdir()):
        assert _cli("validate", str(tmp / "out")).exit_code == 0


@FUZZ
@given(data=hostile_bytes, name=st.sampled_from(["t.json", "output.jsonl", "x.jsonl"]))
def test_migrate_on_hostile_bytes(tmp_path_factory, data, name):
    tmp = tmp_path_factory.mktemp("mh")
    src = _write(tmp, name, data)
    _migrate_library(src, tmp / "out")
    _cli("migrate", str(src), "-o", str(tmp / "out2"), "-j", "1")


@FUZZ
@given(file=v0_file())
def test_export_from_v0_on_mutated_v0(tmp_path_factory, file):
    tmp = tmp_path_factory.mktemp("ev")
    src = _write(tmp, *file)
    _cli("export", "--from-v0", str(src), "-o", str(tmp / "ds"), "--workers", "1")


def _mutated_conversation(tmp: Path, data: st.DataObject) -> Path:
    conv = tmp / V1_TEMPLATE.name
    shutil.copytree(V1_TEMPLATE, conv)
    if data.draw(st.booleans(), label="mutate base_state"):
        state = json.loads((conv / "base_state.json").read_text())
        path = data.draw(st.sampled_from(_paths(state)[1:]), label="state path")
        parent = state
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = data.draw(json_values, label="state value")
        (conv / "base_state.json").write_text(json.dumps(state))
    else:
        files = sorted((conv / "events").glob("event-*.json"))
        target = data.draw(st.sampled_from(files), label="event file")
        target.write_text(json.dumps(data.draw(mutated_events(), label="event")))
    return conv


@FUZZ
@given(data=st.data())
def test_export_on_mutated_conversation(tmp_path_factory, data):
    from trajkit.export import ConversationRows, Filtered, Skipped, Unchanged, conversation_rows

    tmp = tmp_path_factory.mktemp("ex")
    conv = _mutated_conversation(tmp, data)
    result = conversation_rows(conv)
    assert isinstance(result, ConversationRows | Skipped | Filtered | Unchanged)
    if isinstance(result, Skipped):
        assert INTERNAL not in str(result)
    out = _cli("export", str(conv), "-o", str(tmp / "ds"), "--workers", "1")
    assert (out.exit_code == 0) == isinstance(result, ConversationRows | Filtered), out.output


def test_lone_surrogate_in_v0_input_is_migrated_as_replacement_char(tmp_path):
    # Found by the fuzzer: "\udcff" is valid JSON, but UTF-8 output cannot hold it.
    doc = json.loads((ROOT / "v0" / "cli_edit_and_finish.json").read_text())
    doc[0]["message"] = doc[0]["args"]["content"] = "bad \udcff char"
    src = _write(tmp_path, "trajectory.json", json.dumps(doc).encode())
    assert _migrate_library(src, tmp_path / "out") == 1
    result = _cli("migrate", str(src), "-o", str(tmp_path / "out2"), "-j", "1")
    assert result.exit_code == 0, result.output
    (folder,) = (tmp_path / "out2").iterdir()
    text = "".join(p.read_text() for p in folder.rglob("*.json"))
    assert "bad \ufffd" in text and "\\udcff" not in text


def test_capability_overrides_of_another_type_do_not_crash_export(tmp_path):
    # Found by the fuzzer: agent.llm.capability_overrides = 1 crashed the chat conversion.
    from trajkit.export import ConversationRows, conversation_rows

    conv = tmp_path / V1_TEMPLATE.name
    shutil.copytree(V1_TEMPLATE, conv)
    state = json.loads((conv / "base_state.json").read_text())
    state["agent"]["llm"]["capability_overrides"] = 1
    (conv / "base_state.json").write_text(json.dumps(state))
    assert isinstance(conversation_rows(conv), ConversationRows)
    assert _cli("convert", str(conv)).exit_code == 0


def test_recall_with_a_non_string_microagent_name_is_migrated(tmp_path):
    # Found by the fuzzer: a list as microagent_knowledge[].name crashed the recall text.
    doc = json.loads((ROOT / "v0-synthetic" / "every_type.json").read_text())
    recalls = [e for e in doc if e.get("observation") == "recall"]
    for ev in recalls:
        for item in ev["extras"].get("microagent_knowledge") or []:
            item["name"] = ["not", "a", "string"]
    assert any(ev["extras"].get("microagent_knowledge") for ev in recalls)
    src = _write(tmp_path, "trajectory.json", json.dumps(doc).encode())
    assert _migrate_library(src, tmp_path / "out") == 1


def test_result_of_an_action_kept_opaque_is_opaque_too(tmp_path):
    # Found by the fuzzer: a task_tracking action whose command the V1 model refuses became an
    # opaque V0Event, but its observation still named it as action_id: validate rejected that.
    doc = json.loads((ROOT / "v0-synthetic" / "every_type.json").read_text())
    next(e for e in doc if e.get("action") == "task_tracking")["args"]["command"] = []
    src = _write(tmp_path, "trajectory.json", json.dumps(doc).encode())
    assert _migrate_library(src, tmp_path / "out") == 1  # validates without errors
    (folder,) = (tmp_path / "out").iterdir()
    report = json.loads((folder / "migration_report.json").read_text())
    assert any("answering an action kept opaque" in w for w in report["warnings"])
