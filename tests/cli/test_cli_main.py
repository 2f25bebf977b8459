"""The `trajkit` group: lazy registry, fast `--help`, one place turning errors into exit codes."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from trajkit import __version__
from trajkit.cli import _COMMANDS, _load_command, main
from trajkit.errors import InputError, UsageError


def test_help_lists_every_registered_command() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    listed = result.output.split("Commands:")[1]
    for name, (_, short_help) in _COMMANDS.items():
        assert f"  {name}" in listed
        assert short_help.split()[0] in listed


def test_version() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"trajkit, version {__version__}\n"


@pytest.mark.parametrize("name", sorted(_COMMANDS))
def test_each_registration_loads_its_command(name: str) -> None:
    command = _load_command(name)
    assert isinstance(command, click.Command)
    assert command.name == name
    assert CliRunner().invoke(main, [name, "--help"]).exit_code == 0


def test_unknown_command_and_option_are_usage_errors() -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["no-such-command"]).exit_code == 2
    result = runner.invoke(main, ["validate", "--no-such-option", "x"])
    assert result.exit_code == 2
    assert "Usage: trajkit validate [OPTIONS] PATH..." in result.output
    assert "Error: No such option '--no-such-option'" in result.output


@pytest.fixture
def extra_commands() -> Iterator[None]:
    @click.command("boom-input")
    def boom_input() -> None:
        raise InputError("some/file.json", "/a/b", "expected integer, got string")

    @click.command("boom-usage")
    def boom_usage() -> None:
        raise UsageError("--x and --y do not go together")

    @click.command("boom-bug")
    def boom_bug() -> None:
        raise RuntimeError("a bug")

    for command in (boom_input, boom_usage, boom_bug):
        main.add_command(command)
    yield
    for name in ("boom-input", "boom-usage", "boom-bug"):
        main.commands.pop(name, None)


def test_trajkit_error_prints_one_line_and_exits_1(extra_commands: None) -> None:
    result = CliRunner().invoke(main, ["boom-input"])
    assert result.exit_code == 1
    assert result.output == "Error: some/file.json:/a/b: expected integer, got string\n"


def test_usage_error_exits_2(extra_commands: None) -> None:
    result = CliRunner().invoke(main, ["boom-usage"])
    assert result.exit_code == 2
    assert result.output == "Error: --x and --y do not go together\n"


def test_other_exceptions_are_bugs_and_keep_their_traceback(extra_commands: None) -> None:
    result = CliRunner().invoke(main, ["boom-bug"])
    assert isinstance(result.exception, RuntimeError)
    assert result.exit_code == 1


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_help_imports_click_only() -> None:
    out = _python(
        "import sys\n"
        "from trajkit.cli import main\n"
        "try: main(['--help'])\n"
        "except SystemExit: pass\n"
        "heavy = [m for m in ('pydantic', 'jsonschema', 'rich', 'litellm', 'trajkit.events', 'trajkit.store')"
        " if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    assert "HEAVY []" in out.stdout, out.stdout + out.stderr


_MODULES_AT_EXIT = """
import atexit, runpy, sys
before = set(sys.modules)  # the interpreter's own, and what site's .pth files load
atexit.register(lambda: sys.stderr.write("MODULES " + " ".join(sorted(set(sys.modules) - before)) + "\\n"))
sys.argv = ["trajkit", "--help"]
runpy.run_module("trajkit", run_name="__main__", alter_sys=True)
"""


def test_help_imports_click_and_the_command_table_only() -> None:
    """`python -m trajkit --help` in a fresh process loads click and `trajkit.cli`, nothing more.

    What can be known on any machine; the start-up time it buys is measured by
    `benchmarks/bench_startup.py` (a bound here failed whenever the machine was busy).
    """
    out = _python(_MODULES_AT_EXIT)
    assert out.returncode == 0 and "Commands:" in out.stdout, out.stderr
    modules = out.stderr.rsplit("MODULES ", 1)[1].split()
    packages = {m.split(".")[0] for m in modules} - set(sys.stdlib_module_names)
    assert packages == {"click", "trajkit"}, packages
    assert sorted(m for m in modules if m.split(".")[0] == "trajkit") == ["trajkit", "trajkit.cli"]
