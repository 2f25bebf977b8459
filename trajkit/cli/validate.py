"""`trajkit validate PATH...`: check conversations; one line per problem, then a summary."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from trajkit.cli import _options as opt

if TYPE_CHECKING:
    from trajkit.filters import ConversationFilters


@click.command(
    "validate",
    epilog=opt.examples(
        "trajkit validate runs/                  # every conversation under runs/",
        "trajkit validate runs/abc123 --strict   # warnings count as errors",
        "trajkit validate runs/ --json > report.json",
    ),
)
@opt.paths_argument()
@click.option(
    "--strict", is_flag=True, help="Treat warnings (unknown kinds, stray files, …) as errors."
)
@opt.json_option("Print one JSON document (trajkit.validate/1).")
@opt.filter_options
@opt.engine_options
@click.option(
    "--thorough",
    is_flag=True,
    help="Also check every file with jsonschema, not only those the model refuses (slower).",
)
@click.option(
    "--max-file-size",
    type=click.IntRange(min=1),
    default=None,
    metavar="MB",
    help="Refuse files larger than this many MB without reading them (default 100).",
)
@opt.verbosity_options
@click.pass_context
def validate_command(
    ctx: click.Context,
    paths: tuple[Path, ...],
    strict: bool,
    as_json: bool,
    thorough: bool,
    max_file_size: int | None,
    engine: Callable[[], Any],
    filters: ConversationFilters,
) -> None:
    """Check conversation folders, folders of many conversations, or single event files.

    Each file is checked against the JSON Schemas and the event model, and each conversation
    as a whole (indices, ids, parents, tool-call pairing, base_state.json, secrets). Prints
    `file:json-pointer: message` per problem, then a summary. Exit status: 0 valid, 1 problems
    found, 2 usage error. Never modifies anything.
    """
    from trajkit.cli import _output as o
    from trajkit.validate import MAX_FILE_BYTES, Summary, iter_targets, validate_paths

    paths = tuple(o.select_paths(paths, filters))
    limit = max_file_size * 1024 * 1024 if max_file_size else MAX_FILE_BYTES
    summary, problems = Summary(), list[dict[str, Any]]()
    total = lambda: iter_targets(paths)  # noqa: E731 - counted in a thread
    with engine() as runner, o.progress("validating", total=total, enabled=not as_json) as bar:
        notes = o.Notes(bar.echo)  # a warning repeated over conversations: one line (-v: each)
        reports = validate_paths(paths, strict=strict, max_file_bytes=limit, thorough=thorough,
                                 engine=runner)  # fmt: skip
        with o.stopping(reports):  # `validate | head`: the workers stop now, not at exit
            for report in reports:
                summary.add(report)
                _say(report, bar, notes, problems if as_json else None)
                bar.advance(note=report.path.name)
        notes.close()
    if as_json:
        o.echo_json({"schema": "trajkit.validate/1", **summary.to_json(), "problems": problems})
    elif (ending := summary.line()) is not None:
        click.echo(ending)
    ctx.exit(0 if summary.valid else 1)


def _say(report: Any, bar: Any, notes: Any, problems: list[Any] | None) -> None:
    """One report's problems: kept for the JSON document, or printed (the warnings grouped)."""
    from trajkit.cli._output import display_path
    from trajkit.validate.corpus import names_nothing

    for problem in report.problems:
        where = display_path(problem.path)
        if problems is not None:
            problems.append(problem.to_json(where))
        elif names_nothing(report):  # a missing PATH: an error, not a file checked
            bar.echo(f"Error: {problem.format(where)}", err=True)
        elif problem.severity == "warning":
            notes.add(display_path(report.path), problem.message, line=problem.format(where))
        else:
            bar.echo(problem.format(where))
