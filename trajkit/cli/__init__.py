"""The `trajkit` command line: a click group whose commands are imported only when they run.

Design:
- `_COMMANDS` is the registry. A command is one line: its name, the `module:function` that
  defines it, and the one-line help shown by `trajkit --help`. Listing commands therefore
  imports nothing but click, so `trajkit --help` starts fast; the command module (and the
  library it calls) is imported when that command is invoked or asked for its own `--help`.
- Errors are turned into output in one place (`TrajkitGroup.invoke`): a `TrajkitError` prints
  `Error: …` to stderr and exits 1 (`trajkit.errors.UsageError` exits 2); click usage errors
  exit 2 (click's own handling); an `OSError` that escaped a command (the machine refused
  something: a full disk, a read-only file system) prints its file and reason and exits 1;
  Ctrl-C exits 130 (128 + SIGINT, what shells report); any other exception is a bug and keeps
  its traceback.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from typing import Any

import click

from trajkit import __version__

# name -> ("module:function", one-line help). Add a command by adding one line here.
_COMMANDS: dict[str, tuple[str, str]] = {
    "validate": (
        "trajkit.cli.validate:validate_command",
        "Check conversations against the format.",
    ),
    "schema": ("trajkit.cli.schema:schema_command", "Print, check or regenerate the JSON Schemas."),
    "migrate": (
        "trajkit.cli.migrate:migrate_command",
        "Migrate OpenHands V0 trajectories to V1 folders.",
    ),
    "ls": ("trajkit.cli.views:ls_command", "List conversations: one line each."),
    "stats": (
        "trajkit.cli.views:stats_command",
        "Summarize a corpus: statuses, tools, tokens, cost.",
    ),
    "inspect": ("trajkit.cli.views:inspect_command", "Show one conversation in the terminal."),
    "view": (
        "trajkit.cli.views:view_command",
        "Write a self-contained HTML report of a conversation.",
    ),
    "convert": (
        "trajkit.cli.convert:convert_command",
        "Turn conversations into Chat or Responses payloads.",
    ),
    "repair": ("trajkit.cli.repair:repair_command", "Quarantine damaged files and fix the head."),
    "export": ("trajkit.cli.export:export_command", "Export conversations to Parquet tables."),
    "serve": (
        "trajkit.cli.serve:serve_command",
        "Browse conversations in a local web app (live, compare).",
    ),
}


class TrajkitGroup(click.Group):
    """A group that imports each command's module only when the command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*_COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        if cmd_name not in _COMMANDS:
            return None
        return _load_command(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Listing uses the registry's help text, so `trajkit --help` imports no command module.
        rows = [(name, _COMMANDS[name][1]) for name in sorted(_COMMANDS)]
        rows += [(n, c.get_short_help_str()) for n, c in sorted(self.commands.items())]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        from trajkit.errors import TrajkitError, UsageError

        _tolerate_unencodable_output()
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            click.echo(f"Error: {_one_line(exc)}", err=True)
            ctx.exit(2)
        except TrajkitError as exc:
            click.echo(f"Error: {_one_line(exc)}", err=True)
            ctx.exit(1)
        except BrokenPipeError:
            # `trajkit validate … | head`: the reader went away; not an error of ours.
            _quiet_stdout()
            ctx.exit(1)
        except OSError as exc:  # a full disk, a read-only output folder: one line, no traceback
            where = f"{exc.filename}: " if exc.filename else ""
            message = _one_line(Exception(where + (exc.strerror or str(exc))))
            click.echo(f"Error: {message}", err=True)
            ctx.exit(1)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(EXIT_INTERRUPTED)


def _one_line(exc: Exception) -> str:
    """The error as one line: control characters from a file name or data shown escaped, API
    keys masked (`trajkit.redact`; an error line has no `--no-redact`).
    """
    from trajkit.controls import visible_controls
    from trajkit.redact import mask_api_keys

    return visible_controls(mask_api_keys(str(exc)), keep_layout=False)


EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report an interrupted program."""


def _quiet_stdout() -> None:
    # Point stdout at /dev/null so the interpreter's final flush cannot raise again.
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _tolerate_unencodable_output() -> None:
    # Input may hold lone surrogates ("\udcff" is valid JSON); echoing them must not crash.
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def _load_command(name: str) -> click.Command:
    target, _ = _COMMANDS[name]
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name)
    command = getattr(module, attr)
    if not isinstance(command, click.Command):
        raise TypeError(f"{target} is not a click command")
    return command


@click.group("trajkit", cls=TrajkitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="trajkit")
def main() -> None:
    """Read, validate, convert, migrate and export OpenHands agent conversations."""


__all__ = ["main"]
