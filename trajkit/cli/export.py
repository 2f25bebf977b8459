"""`trajkit export`: conversations -> `conversations/` and `events/` Parquet tables in OUT_DIR.

Prints one summary line on stderr; each skipped conversation is an `Error: file:pointer: message`
line, and the exit code is then 1. A progress bar with conversations/s is drawn on a terminal.
When `TRAJKIT_SECRET_KEY` holds the SDK's cipher key, encrypted registered secrets are decrypted
in memory so their values can be masked wherever they appear.
"""

from __future__ import annotations

import os
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import click

from trajkit.cli._options import (
    PATH_OR_URL,
    engine_options,
    jobs_alias,
    jobs_option,
    paths_argument,
)
from trajkit.events.state import EXECUTION_STATUSES  # loaded only when `export` is used


def _parse_time(value: str | None, *, end: bool) -> datetime | None:
    """`2026-01-31` or an ISO date-time; a bare date as `--until` means the end of that day."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date (YYYY-MM-DD) or ISO date-time") from None
    if end and len(value) == 10:  # a date: include the whole day
        return datetime.combine(date.fromisoformat(value), datetime.min.time()) + timedelta(days=1)
    if parsed.tzinfo is not None:  # timestamps are naive; compare in UTC
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed


@click.command("export")
@paths_argument()
@click.option("-o", "--output", "out_dir", type=PATH_OR_URL, required=True, metavar="OUT_DIR",
              help="Dataset folder: empty, new, or an earlier export to update.")  # fmt: skip
@click.option("--view", type=click.Choice(["condensed", "full"]), default="condensed",
              show_default=True, help="Messages the model saw after condensation, or every event.")  # fmt: skip
@click.option("--overwrite", is_flag=True, help="Start over: remove an earlier export in OUT_DIR.")
@click.option("--no-redact", is_flag=True, help="Keep secrets and API-key-looking strings.")
@click.option("--from-v0", is_flag=True, help="Inputs are OpenHands V0 trajectories (migrated).")
@click.option("--status", multiple=True, type=click.Choice(EXECUTION_STATUSES), help="Keep this status (repeatable).")  # fmt: skip
@click.option("--model", multiple=True, help="Keep this model: name, name without provider, or glob.")  # fmt: skip
@click.option("--since", help="Keep conversations started at or after this date/time.")
@click.option("--until", help="Keep conversations started before this date/time (a date: through that day).")  # fmt: skip
@click.option("--tool", multiple=True, help="Keep conversations that called this tool (repeatable).")  # fmt: skip
@jobs_option
@jobs_alias("--workers")  # the former name of --jobs here; kept so scripts keep working
@engine_options
def export_command(
    paths: tuple[Path, ...],
    out_dir: Path,
    view: str,
    overwrite: bool,
    no_redact: bool,
    from_v0: bool,
    status: tuple[str, ...],
    model: tuple[str, ...],
    since: str | None,
    until: str | None,
    tool: tuple[str, ...],
    jobs: int | None,
    engine: str,
    address: str | None,
) -> None:
    """Export conversations to Parquet tables for training and analysis."""
    from trajkit.cli._output import display_path, progress
    from trajkit.export import ExportFilters, ExportReport, RowOptions, export_dataset

    filters = ExportFilters(
        statuses=status,
        models=model,
        since=_parse_time(since, end=False),
        until=_parse_time(until, end=True),
        tools=tool,
    )
    options = RowOptions(
        view=view,  # type: ignore[arg-type]
        redact=not no_redact,
        filters=filters,
        secret_key=os.environ.get("TRAJKIT_SECRET_KEY") or None,
    )
    started = time.perf_counter()
    from trajkit.engine import open_engine

    with (
        open_engine(engine, workers=jobs, address=address) as runner,
        progress("exporting") as bar,
    ):
        shown = 0

        def on_progress(report: ExportReport) -> None:
            nonlocal shown
            rate = report.processed / max(time.perf_counter() - started, 1e-9)
            note = f"{rate:.1f} conversations/s, {report.events} events"
            bar.advance(report.processed - shown, note=note)
            shown = report.processed

        report = export_dataset(
            paths, out_dir, options=options, overwrite=overwrite, from_v0=from_v0,
            progress=on_progress, engine=runner,
        )  # fmt: skip
    for skipped in report.skipped:
        click.echo(f"Error: {skipped.reason}", err=True)
    redacted = "secrets not redacted" if no_redact else f"{report.redactions} secret(s) redacted"
    click.echo(
        f"exported {report.exported} conversation(s), {report.events} event(s) to "
        f"{display_path(out_dir)} in {report.seconds:.1f}s; {report.unchanged} unchanged, "
        f"{report.filtered} filtered out, {len(report.skipped)} skipped; {redacted}",
        err=True,
    )
    if report.skipped:
        sys.exit(1)
