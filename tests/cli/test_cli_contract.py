"""The CLI contract: every command's --help, every --json shape against its shipped schema,
and the shared options meaning the same thing in every command that has them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from tests.support import fixtures as fx
from trajkit.cli import _COMMANDS, _load_command, main
from trajkit.schema import OUTPUT_COMMANDS, output_schema

A_TEXT = fx.sdk_conversation("a_text")
V0_FILE = fx.FIXTURES / "v0-synthetic" / "every_type.json"

FILTERS = ("--status", "--model", "--since", "--until", "--tool")
FILTER_COMMANDS = ("convert", "export", "ls", "stats", "validate", "view")
PATHS_COMMANDS = ("convert", "export", "ls", "repair", "stats", "validate")
JOBS_COMMANDS = ("convert", "migrate", "stats", "validate")


def _options(command: click.Command) -> dict[str, click.Option]:
    return {
        name: p
        for p in command.params
        if isinstance(p, click.Option)
        for name in (*p.opts, *p.secondary_opts)
    }


@pytest.mark.parametrize("name", sorted(_COMMANDS))
def test_every_command_has_help(name: str) -> None:
    result = CliRunner().invoke(main, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Usage: trajkit {name} ")
    assert "-h, --help" in result.output


def _json_args(name: str, tmp: Path) -> list[str]:
    if name == "repair":
        conv = shutil.copytree(fx.BAD_FIXTURES / "empty_event_file", tmp / "conv")
        return ["repair", str(conv), "--json"]
    return {
        "validate": [
            "validate",
            str(fx.SDK_FIXTURES),
            str(fx.BAD_FIXTURES / "index_gap"),
            "--json",
        ],
        "ls": ["ls", str(fx.SDK_FIXTURES), str(tmp / "missing"), "--json"],
        "stats": ["stats", str(fx.SDK_FIXTURES), str(tmp / "missing"), "--json"],
        "migrate": ["migrate", str(V0_FILE), "-o", str(tmp / "m"), "--json"],
        "export": ["export", str(A_TEXT), str(tmp / "missing"), "-o", str(tmp / "ds"), "--json"],
        "view": ["view", str(A_TEXT), "-o", str(tmp / "a.html"), "--json"],
        "convert": [
            "convert",
            str(fx.SDK_FIXTURES),
            str(fx.BAD_FIXTURES / "index_gap"),
            "-o",
            str(tmp / "c.jsonl"),
            "--json",
        ],
        "inspect": ["inspect", str(fx.FIXTURES / "shapes" / "agent_server"), "--json"],
        "schema": ["schema", "--check", "--json"],
    }[name]


def test_every_json_command_has_a_shipped_schema() -> None:
    with_json = {n for n in _COMMANDS if "--json" in _options(_load_command(n))}
    assert with_json == set(OUTPUT_COMMANDS)
    for name in OUTPUT_COMMANDS:
        schema = output_schema(name)
        Draft202012Validator.check_schema(schema)
        assert schema["properties"]["schema"] == {"const": f"trajkit.{name}/1"}


@pytest.mark.parametrize("name", OUTPUT_COMMANDS)
def test_json_output_matches_its_schema(name: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, _json_args(name, tmp_path))
    assert result.exit_code in (0, 1), result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    assert doc["schema"] == f"trajkit.{name}/1"
    errors = sorted(Draft202012Validator(output_schema(name)).iter_errors(doc), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]


def test_a_shape_change_is_caught_by_the_schema() -> None:
    # The schemas are closed (additionalProperties false): a renamed key fails the check.
    doc = {"schema": "trajkit.ls/1", "rows": [], "problems": []}
    assert list(Draft202012Validator(output_schema("ls")).iter_errors(doc))


def test_filters_are_the_same_options_everywhere() -> None:
    reference = _options(_load_command("export"))
    for name in FILTER_COMMANDS:
        options = _options(_load_command(name))
        for flag in FILTERS:
            assert flag in options, f"{name} lacks {flag}"
            mine, theirs = options[flag], reference[flag]
            assert (mine.multiple, mine.help, mine.metavar) == (
                theirs.multiple,
                theirs.help,
                theirs.metavar,
            ), f"{name} {flag}"
            assert type(mine.type) is type(theirs.type)
            assert getattr(mine.type, "choices", None) == getattr(theirs.type, "choices", None)


def test_jobs_and_storage_options_are_shared() -> None:
    for name in JOBS_COMMANDS:
        jobs = _options(_load_command(name)).get("--jobs")
        assert jobs is not None and "-j" in jobs.opts, name
        assert isinstance(jobs.type, click.IntRange) and jobs.type.min == 1
    export = _options(_load_command("export"))
    if "--jobs" in export:  # once export speaks -j/--jobs, its old name stays a hidden alias
        assert "-j" in export["--jobs"].opts
    for name in PATHS_COMMANDS:
        assert "--storage-option" in _options(_load_command(name)), name


@pytest.mark.parametrize("name", FILTER_COMMANDS)
def test_a_filter_selects_the_same_conversations_everywhere(name: str, tmp_path: Path) -> None:
    # `--tool file_editor` keeps the fixtures that called the file editor, in every command.
    args = {
        "ls": ["ls", str(fx.SDK_FIXTURES), "--json"],
        "stats": ["stats", str(fx.SDK_FIXTURES), "--json"],
        "validate": ["validate", str(fx.SDK_FIXTURES), "--json"],
        "convert": ["convert", str(fx.SDK_FIXTURES)],
        "export": ["export", str(fx.SDK_FIXTURES), "-o", str(tmp_path / "ds"), "--json"],
        "view": ["view", str(A_TEXT), "-o", str(tmp_path / "a.html"), "--json"],
    }[name]
    result = CliRunner().invoke(main, [*args, "--tool", "file_editor"])
    assert result.exit_code == 0, result.output
    expected = _conversations_using("file_editor")
    if name == "ls":
        got = {r["id"] for r in json.loads(result.stdout)["conversations"]}
        assert got == expected
    elif name in ("stats", "validate"):
        assert json.loads(result.stdout)["conversations"] == len(expected)
    elif name == "convert":
        got = {json.loads(line)["conversation_id"] for line in result.stdout.splitlines()}
        assert got == expected
    elif name == "export":
        doc = json.loads(result.stdout)
        assert doc["exported"] == len(expected)
        assert doc["filtered"] == len(fx.sdk_conversations()) - len(expected)
    else:  # a_text called no tool: nothing written
        assert not (tmp_path / "a.html").exists()
        assert "filtered out (used none of the tools file_editor)" in result.stderr
    assert 0 < len(expected) < len(fx.sdk_conversations())


def _conversations_using(tool: str) -> set[str]:
    ids = set()
    for folder in fx.sdk_conversations():
        for event in (folder / "events").glob("*.json"):
            data = json.loads(event.read_text())
            if data.get("kind") == "ActionEvent" and data.get("tool_name") == tool:
                ids.add(json.loads((folder / "base_state.json").read_text())["id"])
    return ids
