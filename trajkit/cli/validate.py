"""`trajkit validate PATH...`: check conversations; one line per problem, then a summary."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from trajkit.cli._options import (
    engine_options,
    examples,
    filter_options,
    jobs_option,
    json_option,
    paths_argument,
    verbosity_options,
)

if TYPE_CHECKING:
    from trajkit.filters import ConversationFilters
    from trajkit.validate import ConversationReport, Summary


@click.command(
    "validate",
    epilog=examples(
        "trajkit validate runs/                  # every conversation under runs/",
        "trajkit validate runs/abc123 --strict   # warnings count as errors",
        "trajkit validate runs/ --json > report.json",
    ),
)
@paths_argument()
@click.option(
    "--strict", is_flag=True, help="Treat warnings (unknown kinds, stray files, …) as errors."
)
@json_option("Print one JSON document (trajkit.validate/1).")
@filter_options
@jobs_option
@engine_options
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
@verbosity_options
@click.pass_context
def validate_command(
    ctx: click.Context,
    paths: tuple[Path, ...],
    strict: bool,
    as_json: bool,
    jobs: int | None,
    thorough: bool,
    max_file_size: int | None,
    engine: str,
    address: str | None,
    filters: ConversationFilters,
) -> None:
    """Check conversation folders, folders of many conversations, or single event files.

    Each file is checked against the JSON Schemas and the event model, and each conversation
    as a whole (indices, ids, parents, tool-call pairing, base_state.json, secrets). Prints
    `file:json-pointer: message` per problem, then a summary. Exit status: 0 valid, 1 problems
    found, 2 usage error. Never modifies anything.
    """
    from trajkit.cli._output import (
        Notes,
        close_iterator,
        display_path,
        echo_json,
        progress,
        select_paths,
    )
    from trajkit.engine import open_engine
    from trajkit.validate import MAX_FILE_BYTES, Summary, count_targets, validate_paths

    paths = tuple(select_paths(paths, filters))
    limit = max_file_size * 1024 * 1024 if max_file_size else MAX_FILE_BYTES

    summary = Summary()
    problems: list[dict[str, Any]] = []
    unchecked: list[dict[str, Any]] = []
    with (
        open_engine(engine, workers=jobs, address=address) as runner,
        progress("validating", total=lambda: count_targets(paths), enabled=not as_json) as bar,
    ):
        notes = Notes(bar.echo)
        reports = validate_paths(
            paths, strict=strict, max_file_bytes=limit, thorough=thorough, engine=runner
        )
        try:
            for report in reports:
                if _unreadable(report):  # a PATH that does not exist: an error, not a file
                    for problem in report.problems:
                        unchecked.append(problem.to_json(display_path(problem.path)))
                        bar.echo(f"Error: {problem.format(display_path(problem.path))}", err=True)
                    bar.advance(note=report.path.name)
                    continue
                summary.add(report)
                for problem in report.problems:
                    where = display_path(problem.path)
                    if as_json:
                        problems.append(problem.to_json(where))
                    elif problem.severity == "warning":  # one line per kind (-v: each)
                        notes.add(
                            display_path(report.path), problem.message, line=problem.format(where)
                        )
                    else:
                        bar.echo(problem.format(where))
                bar.advance(note=report.path.name)
            notes.close()
        finally:
            close_iterator(reports)  # `validate | head`: the workers stop now, not at exit
    if as_json:
        counts = {**summary.to_json(), "valid": summary.valid and not unchecked}
        counts["errors"] = summary.errors + len(unchecked)
        echo_json({"schema": "trajkit.validate/1", **counts, "problems": unchecked + problems})
    elif summary.conversations or summary.files or not unchecked:
        click.echo(_summary_line(summary, len(unchecked)))
    ctx.exit(0 if summary.valid and not unchecked else 1)


def _unreadable(report: ConversationReport) -> bool:
    """A PATH that names nothing to check (missing, a broken link): said on stderr, not counted."""
    return (
        not report.is_conversation
        and all(p.code == "path" for p in report.problems)
        and bool(report.problems)
    )


def _summary_line(summary: Summary, unchecked: int = 0) -> str:
    checked = []
    if summary.conversations:
        checked.append(_plural(summary.conversations, "conversation"))
    if summary.files:
        checked.append(_plural(summary.files, "file"))
    what = ", ".join(checked) or "nothing"
    scope = f"{what} ({_plural(summary.events, 'event')})"
    if unchecked:
        scope += f"; {_plural(unchecked, 'path')} not checked (above)"
    if summary.valid and not summary.warnings:
        return f"valid: {scope}"
    counts = f"{_plural(summary.errors, 'error')}, {_plural(summary.warnings, 'warning')}"
    verdict = "valid with warnings" if summary.valid else "INVALID"
    return f"{verdict}: {counts} in {scope}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
