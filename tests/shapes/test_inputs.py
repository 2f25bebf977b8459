"""One input registry for every command (`trajkit.shapes.resolve_inputs`, issues 25 and 26).

A folder tree that mixes V1 folders, V1 evaluation records and V0 trajectories is read whole by
every command (or the part a command does not read is named), and every address `ls` prints
(`file.jsonl#key` for a record) opens with inspect, view, convert and export.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.shapes.test_wild_samples import WILD, needs_wild
from tests.support import fixtures as fx
from trajkit.cli import main

V0_SESSION = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """A tree of 7 conversations in 5 shapes, and files that are no conversation."""
    tree = tmp_path / "runs"
    conv = fx.sdk_conversation("a_text")
    shutil.copytree(conv, tree / "v1" / conv.name)  # a V1 folder
    (tree / "eval").mkdir(parents=True)
    shutil.copy(fx.FIXTURES / "shapes" / "eval_output.jsonl", tree / "eval")  # 2 V1 records
    (tree / "v0" / "sessions").mkdir(parents=True)
    shutil.copy(fx.FIXTURES / "v0" / "cli_edit_and_finish.json", tree / "v0" / "trajectory.json")
    synthetic = fx.FIXTURES / "v0-synthetic"
    shutil.copy(synthetic / "eval_output.jsonl", tree / "v0" / "output.jsonl")  # 2 V0 records
    shutil.copytree(synthetic / "sessions" / V0_SESSION, tree / "v0" / "sessions" / V0_SESSION)
    (tree / "notes").mkdir()
    (tree / "notes" / "README.md").write_text("not a conversation\n")
    (tree / "notes" / "settings.json").write_text('{"name": "x", "version": 1}\n')
    return tree


V0_INPUTS = ("v0/output.jsonl", f"v0/sessions/{V0_SESSION}", "v0/trajectory.json")


def _run(*args: object) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


def _ls(*paths: object) -> dict[str, object]:
    code, out, err = _run("ls", "--json", *paths)
    assert code == 0, err
    data: dict[str, object] = json.loads(out)
    return data


def test_resolve_inputs_reads_the_tree_whole_or_names_what_it_skips(mixed: Path) -> None:
    from trajkit.shapes import ShapeRef, SkippedInput, resolve_inputs

    found = list(resolve_inputs([mixed]))
    assert not [i for i in found if isinstance(i, SkippedInput)]
    shapes = sorted(i.shape if isinstance(i, ShapeRef) else "v1-folder" for i in found)
    assert shapes == [
        *("eval-v1", "eval-v1", "v0-json", "v0-jsonl", "v0-jsonl", "v0-session"),
        "v1-folder",
    ]
    # the policy that skips V0 names each V0 file or folder once, with the command's note
    skipped = [
        i for i in resolve_inputs([mixed], v0="skip", note="N") if isinstance(i, SkippedInput)
    ]
    assert sorted(Path(s.path).relative_to(mixed).as_posix() for s in skipped) == sorted(V0_INPUTS)
    assert all(s.message.endswith("not read here; N") for s in skipped)
    # strays: a JSON file below the tree that no shape takes is given to be reported
    strays = [i for i in resolve_inputs([mixed], strays=True) if i not in found]
    assert [Path(str(s)).name for s in strays] == ["settings.json"]


def test_every_command_reads_a_mixed_tree_whole(mixed: Path, tmp_path: Path) -> None:
    data = _ls(mixed)
    assert len(data["conversations"]) == 7 and data["problems"] == []  # type: ignore[arg-type]
    code, out, err = _run("stats", "--json", mixed)
    assert code == 0 and json.loads(out)["conversations"] == 7, err
    code, _, err = _run("convert", mixed, "-o", tmp_path / "chat.jsonl")
    assert code == 0, err
    assert len((tmp_path / "chat.jsonl").read_text().splitlines()) == 7
    code, _, err = _run("view", mixed, "-o", tmp_path / "site")
    assert code == 0, err
    assert len(list((tmp_path / "site" / "c").glob("*.html"))) == 7
    # export reads V0 only when asked, and names each V0 input it leaves out
    code, out, err = _run("export", mixed, "-o", tmp_path / "ds")
    assert code == 1 and "exported 3 conversation(s)" in out + err
    for name in V0_INPUTS:
        assert f"{mixed / name}: an OpenHands V0" in err and "pass --from-v0" in err, err
    code, out, err = _run("export", mixed, "-o", tmp_path / "ds2", "--from-v0")
    assert code == 0 and "exported 7 conversation(s)" in out + err, err
    from trajkit.serve.catalog import Catalog  # serve's index: the same 7 rows, no problem

    catalog = Catalog([str(mixed)], tmp_path / "cache.sqlite3")
    assert catalog.scan() == 7 and catalog.problems == []
    # validate checks V1 and names the V0 part (a warning: the V1 conversations were checked)
    code, out, err = _run("validate", mixed)
    assert code == 0, out + err
    for name in V0_INPUTS:
        assert f"{mixed / name}: warning: not checked: an OpenHands V0" in out + err, out


def test_every_id_ls_prints_opens_everywhere(mixed: Path, tmp_path: Path) -> None:
    rows = {r["path"]: r for p in (mixed / "v0", mixed) for r in _ls(p)["conversations"]}  # type: ignore[attr-defined]
    for row in rows.values():
        address = row["path"]
        code, out, err = _run("inspect", "--json", address)
        assert code == 0 and json.loads(out)["id"] == row["id"], (address, err)
        code, _, err = _run("view", address, "-o", tmp_path / "one.html", "--overwrite")
        assert code == 0 and (tmp_path / "one.html").stat().st_size > 0, (address, err)
        code, out, err = _run("convert", address)
        document = json.loads(out)
        assert code == 0 and document["messages"], (address, err)
        assert document.get("conversation_id", row["id"]) == row["id"]
        assert _ls(address)["conversations"] == [row]  # ls of the address: the same row
    addresses = list(rows)
    assert len(addresses) == 7 and sum("#" in a for a in addresses) == 4  # file.jsonl#key
    assert f"{mixed}/v0/output.jsonl#django__django-11099" in addresses
    code, out, err = _run("export", *addresses, "-o", tmp_path / "ds", "--from-v0")
    assert code == 0 and "exported 7 conversation(s)" in out + err, err


@needs_wild
def test_ls_of_the_wild_tree_lists_the_v0_records_inside_it() -> None:
    rows = _ls(WILD)["conversations"]
    v0 = [r for r in rows if "gorilla_torch_output.jsonl" in r["path"]]  # type: ignore[attr-defined]
    assert len(rows) == 93 and len(v0) == 80  # 13 V1 conversations and the 80 V0 records
    address = v0[0]["path"]
    assert address == f"{WILD}/v0-eval-paired/gorilla_torch_output.jsonl#1"
    code, out, err = _run("inspect", "--json", address)
    assert code == 0 and json.loads(out)["id"] == v0[0]["id"], err


def test_shapes_reads_v0_without_migrate() -> None:
    """V0 reading is pure mapping in `shapes/v0`: nothing in `shapes/` imports `migrate/`."""
    shapes = Path(__file__).resolve().parents[2] / "trajkit" / "shapes"
    for module in sorted(shapes.rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text())):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            assert not any(n.startswith("trajkit.migrate") for n in names), module


@pytest.mark.parametrize("command", ["inspect", "convert", "ls"])
def test_a_lone_v1_event_file_is_named_for_what_it_is(command: str) -> None:
    event = next((fx.sdk_conversation("a_text") / "events").glob("event-*.json"))
    code, out, err = _run(command, event)
    assert code == 1 and "V0" not in out + err
    reason = f"one V1 event (SystemPromptEvent), not a whole conversation: give its conversation folder, {event.parent.parent}"
    assert (out + err).count(str(event)) == 1 and f"{event}: {reason}" in err, err
