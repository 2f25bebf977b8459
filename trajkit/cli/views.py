"""`trajkit ls`, `stats`, `inspect` and `view`: look at conversations without reading JSON.

Each command parses its options, calls `trajkit.views`, and prints. Whatever had to be skipped
(a folder that is no conversation, a broken event file, an empty conversation) is reported on
stderr as `skipped: path:pointer: message` after the rest was shown, and the exit code is 1.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from trajkit.cli import _options as opt

if TYPE_CHECKING:
    from trajkit.filters import ConversationFilters
    from trajkit.redact import SecretMasker

_SORT_KEYS = ("time", "last", "events", "cost", "status", "model", "id")


def _exit_after(problems: Iterable[object], masker: SecretMasker | None = None) -> None:
    """Say how many values were masked, print each problem on stderr as `skipped: …` (keys
    masked); exit 1 when there was any, else 0.
    """
    from trajkit.cli._output import echo_masked_note
    from trajkit.redact import mask_api_keys

    echo_masked_note(masker)
    code = 0
    for problem in problems:
        click.echo(f"skipped: {mask_api_keys(str(problem))}", err=True)
        code = 1
    sys.exit(code)


def _on_terminal() -> bool:
    from trajkit.cli._output import is_terminal

    return is_terminal(sys.stdout)


def _columns(*, on_a_pipe: bool) -> int | None:
    """COLUMNS, else the terminal's width: stdout's, and stderr's too with `on_a_pipe` (tables
    sized for the terminal they were asked on); None (do not cut) when there is none.
    """
    if os.environ.get("COLUMNS", "").isdigit():
        return int(os.environ["COLUMNS"])
    for stream in (sys.stdout, sys.stderr) if on_a_pipe else (sys.stdout,):
        try:
            if on_a_pipe or _on_terminal():
                return os.get_terminal_size(stream.fileno()).columns
        except (OSError, ValueError, AttributeError):
            continue
    return None


def _console() -> Any:
    from rich.console import Console

    return Console(
        file=sys.stdout, highlight=False, soft_wrap=False, width=_columns(on_a_pipe=True)
    )


@click.command(
    "ls",
    epilog=opt.examples(
        "trajkit ls runs/",
        "trajkit ls runs/ --sort cost -r --model claude-sonnet-4",
        "trajkit ls runs/ --json | jq '.conversations[].id'",
    ),
)
@opt.paths_argument()
@click.option(
    "--sort",
    "sort_key",
    type=click.Choice(_SORT_KEYS),
    default="time",
    show_default=True,
    help="Order of the lines.",
)
@click.option("--reverse", "-r", is_flag=True, help="Reverse the order.")
@click.option(
    "--header/--no-header",
    default=None,
    help="Print a line naming the columns (default: on a terminal).",
)
@opt.filter_options
@opt.json_option("Print the rows as one JSON document (trajkit.ls/1).")
@opt.redact_option
def ls_command(
    paths: tuple[Path, ...],
    sort_key: str,
    reverse: bool,
    header: bool | None,
    as_json: bool,
    filters: ConversationFilters,
    masker: SecretMasker | None,
) -> None:
    """List the conversations under PATH...: one line each."""
    from trajkit.cli._output import echo_json, select_paths
    from trajkit.views.load import mask_fields
    from trajkit.views.summary import ConversationRow, iter_rows
    from trajkit.views.tables import format_rows, sort_rows

    rows: list[ConversationRow] = []
    problems: list[object] = []
    for item in iter_rows(select_paths(paths, filters)):
        if isinstance(item, ConversationRow):
            rows.append(mask_fields(item, masker))
            problems.extend(rows[-1].problems)
        else:
            problems.append(item)
    rows = sort_rows(rows, sort_key, reverse=reverse)
    if as_json:
        echo_json(
            {
                "schema": "trajkit.ls/1",
                "conversations": [r.to_dict() for r in rows],
                "problems": [str(p) for p in problems],
            }
        )
    else:
        show_header = _on_terminal() if header is None else header
        for line in format_rows(rows, width=_columns(on_a_pipe=False), header=show_header):
            click.echo(line)
    _exit_after(problems, masker)


@click.command(
    "stats",
    epilog=opt.examples(
        "trajkit stats runs/",
        "trajkit stats runs/ --status error --table",
        "trajkit stats runs/ --json > stats.json",
    ),
)
@opt.paths_argument()
@opt.json_option("Print the summary as JSON (the default when stdout is not a terminal).")
@click.option("--table", "as_table", is_flag=True, help="Print tables even when not on a terminal.")
@opt.filter_options
@opt.jobs_option
@opt.redact_option
def stats_command(
    paths: tuple[Path, ...],
    as_json: bool,
    as_table: bool,
    jobs: int | None,
    filters: ConversationFilters,
    masker: SecretMasker | None,
) -> None:
    """Summarize the conversations under PATH...: statuses, models, events, tools, tokens, cost."""
    from trajkit.cli._output import echo_json, progress, select_paths
    from trajkit.engine import LocalEngine
    from trajkit.views.summary import CorpusStats, Skipped, iter_sources, iter_stats

    corpus = CorpusStats()
    skipped: list[object] = []
    selected = select_paths(paths, filters)
    with progress("reading", total=lambda: iter_sources(selected)) as bar:
        for item in iter_stats(selected, engine=LocalEngine(jobs)):
            if isinstance(item, Skipped):
                skipped.append(item)
            else:
                corpus.add(item)
            bar.advance(note="" if isinstance(item, Skipped) else item.id)
    data = corpus.to_dict() if masker is None else masker.data(corpus.to_dict())
    if as_json or not (as_table or _on_terminal()):
        data["problems"] = [*map(str, skipped), *data["problems"]]
        echo_json({"schema": "trajkit.stats/1", **data}, masker)
    else:
        from trajkit.views.tables import print_stats

        print_stats(data, _console())
    _exit_after([*skipped, *corpus.problems], masker)


@click.command(
    "inspect",
    epilog=opt.examples(
        "trajkit inspect runs/abc123",
        "trajkit inspect trajectory.json --from 10 --to 20 --full",
        "trajkit inspect output.jsonl#django__django-11099",
    ),
)
@click.argument("path", type=click.Path(path_type=Path), metavar="FOLDER_OR_FILE")
@click.option("--full", is_flag=True, help="Show long outputs and tool arguments in full.")
@click.option(
    "--from", "start", type=click.IntRange(min=0), default=0, help="First event (0-based)."
)
@click.option(
    "--to", "stop", type=click.IntRange(min=0), default=None, help="Last event (inclusive)."
)
@click.option(
    "--pager/--no-pager",
    default=None,
    help="Page the output (default: on a terminal, for long conversations).",
)
@opt.json_option(
    "Print the conversation's summary (the header: model, status, counts, tokens, cost, "
    "title, kinds of events) as one JSON document (trajkit.inspect/1), not its events."
)
@opt.redact_option
@opt.verbosity_options
def inspect_command(
    path: Path,
    full: bool,
    start: int,
    stop: int | None,
    pager: bool | None,
    as_json: bool,
    masker: SecretMasker | None,
) -> None:
    """Show one conversation in the terminal.

    FOLDER_OR_FILE is a conversation folder, or a file holding one conversation: a V0
    trajectory, an events array or JSONL, or one record of an evaluation output (FILE#ID).
    """
    from trajkit.errors import UsageError
    from trajkit.views.load import load_conversation
    from trajkit.views.terminal import page_conversation, print_conversation

    if stop is not None and stop < start:
        raise UsageError(f"--to {stop} is before --from {start}")

    loaded = load_conversation(path, event_range=(start, stop), masker=masker)
    if as_json:
        from trajkit.cli._output import echo_json
        from trajkit.views.terminal import conversation_summary

        problems = [*loaded.problems, *_empty(loaded)]
        echo_json({**conversation_summary(loaded), "problems": [str(p) for p in problems]}, masker)
        _exit_after(problems, masker)
    console = _console()
    use_pager = pager if pager is not None else (_on_terminal() and len(loaded.items) > 30)
    if use_pager:
        page_conversation(loaded, console, full=full)
    else:
        print_conversation(loaded, console, full=full)
    _exit_after([*loaded.problems, *_empty(loaded)], masker)


def _empty(loaded: Any) -> list[str]:
    """Notes go to stderr (not with -q); no events is a problem unless a fresh base state says
    there are none.
    """
    from trajkit.cli._output import QUIET, verbosity

    quiet = verbosity() == QUIET
    for note in [] if quiet else loaded.notes:
        click.echo(f"note: {loaded.path}: {note}", err=True)
    fresh = loaded.state is not None and not loaded.state.leaf_event_id
    if loaded.total_events == 0 and not fresh:
        return [f"{loaded.path}: conversation has no events"]
    if loaded.total_events == 0 and not quiet:
        click.echo(f"note: {loaded.path}: no events yet (base state only)", err=True)
    return []


@click.command(
    "view",
    epilog=opt.examples(
        "trajkit view runs/abc123                # abc123.html",
        "trajkit view runs/abc123 -o report.html",
        "trajkit view runs/ -o site/             # index.html + one page each",
    ),
)
@click.argument("path", type=click.Path(path_type=Path), metavar="PATH")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="HTML file to write (default: <conversation folder name>.html); for a folder of many "
    "conversations, the site folder (default: <folder name>-site/).",
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace the output if it exists (a site is otherwise continued: unchanged pages kept).",
)
@opt.filter_options
@opt.json_option("Print what was written as one JSON document (trajkit.view/1).")
@opt.redact_option
@opt.verbosity_options
def view_command(
    path: Path,
    output: Path | None,
    overwrite: bool,
    as_json: bool,
    filters: ConversationFilters,
    masker: SecretMasker | None,
) -> None:
    """Write one self-contained HTML report of a conversation (no network, no external assets).

    PATH holding many conversations gives a static site: index.html (sortable, filterable,
    searchable) and one report per conversation, all opening from disk.
    """
    from trajkit.cli._output import check_output_file, display_path, writing
    from trajkit.filters import filter_paths
    from trajkit.store import atomic_write
    from trajkit.store.guard import refuse_output_inside
    from trajkit.views.html import conversation_to_html
    from trajkit.views.load import holds_many, load_conversation

    if holds_many(path):
        _write_site(path, output, overwrite, as_json, filters, masker)
        return
    out = output if output is not None else Path(f"{path.resolve().name}.html")
    refuse_output_inside(out, [path])
    check_output_file(out, overwrite=overwrite)
    for _, reason in filter_paths([path], filters):
        if reason is not None:
            click.echo(f"{display_path(path)}: filtered out ({reason}); nothing written", err=True)
            return
    loaded = load_conversation(path, masker=masker)
    with writing(out):
        atomic_write(out, conversation_to_html(loaded).encode("utf-8"))
    line = f"wrote {display_path(out)} ({len(loaded.items):,} events)"
    _wrote(
        out, [*loaded.problems, *_empty(loaded)], line, as_json, masker, events=len(loaded.items)
    )


def _write_site(
    path: Path,
    output: Path | None,
    overwrite: bool,
    as_json: bool,
    filters: ConversationFilters,
    masker: SecretMasker | None,
) -> None:
    from trajkit.cli import EXIT_INTERRUPTED
    from trajkit.cli._output import display_path, progress, select_paths, stop_on_ctrl_c, writing
    from trajkit.views.site import SiteInterrupted, write_site
    from trajkit.views.summary import iter_sources

    out = output if output is not None else Path(f"{path.resolve().name}-site")
    index = display_path(out / "index.html")
    selected = select_paths([path], filters)
    total = lambda: iter_sources(selected)  # noqa: E731 - counted in a thread
    try:
        with (
            stop_on_ctrl_c("the site"),
            writing(out),
            progress("writing pages", total=total, enabled=not as_json) as bar,
        ):
            report = write_site(
                selected, out, overwrite=overwrite, on_source=bar.advance, masker=masker
            )
    except SiteInterrupted as stopped:  # said once the bar is gone and Ctrl-C is the shell's
        click.echo(stopped.report.interrupted(index), err=True)
        sys.exit(EXIT_INTERRUPTED)
    counts = {"pages": report.pages, "unchanged": report.unchanged}
    _wrote(out / "index.html", report.problems, report.summary(index), as_json, masker, **counts)


def _wrote(
    out: Path,
    problems: list[Any],
    line: str,
    as_json: bool,
    masker: SecretMasker | None,
    **counts: int,
) -> None:
    """What `view` wrote: `line`, or the JSON document (`trajkit.view/1`); then the problems."""
    from trajkit.cli._output import display_path, echo_json

    if as_json:
        output = {
            "output": display_path(out),
            **counts,
            "masked": masker.count if masker else None,
            "problems": [str(p) for p in problems],
        }
        echo_json({"schema": "trajkit.view/1", **output})
    else:
        click.echo(line)
    _exit_after(problems, masker)
