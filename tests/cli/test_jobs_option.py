"""One `-j/--jobs` option on every command that maps work over conversations; no engine tests in cli/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support import fixtures as fx
from trajkit.cli import main

CORPUS_COMMANDS = ("validate", "convert", "migrate", "export", "stats")


@pytest.mark.parametrize("command", CORPUS_COMMANDS)
def test_every_corpus_command_takes_jobs(command):
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0
    assert re.search(r"-j, --jobs INTEGER RANGE", result.output), result.output
    assert "--workers" not in result.output  # export's old name is hidden


def test_export_workers_is_a_hidden_alias_of_jobs(tmp_path):
    runner = CliRunner()
    conv = fx.sdk_conversations()[0]
    old = runner.invoke(main, ["export", str(conv), "-o", str(tmp_path / "a"), "--workers", "1"])
    new = runner.invoke(main, ["export", str(conv), "-o", str(tmp_path / "b"), "-j", "1"])
    assert old.exit_code == new.exit_code == 0, old.output + new.output
    assert "exported 1 conversation(s)" in old.stderr and "exported 1 conversation(s)" in new.stderr
    bad = runner.invoke(main, ["export", str(conv), "-o", str(tmp_path / "c"), "--workers", "0"])
    assert bad.exit_code == 2 and "--workers" in bad.stderr


def test_cli_never_asks_which_engine_it_holds():
    """Path preparation and the engines' differences live in `trajkit.engine`, not in commands."""
    cli = Path(__file__).resolve().parents[2] / "trajkit" / "cli"
    offenders = [
        f"{path.name}:{n}"
        for path in sorted(cli.glob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"engine\s*[!=]=|portable_paths|\.absolute\(\)", line)
    ]
    assert offenders == []
