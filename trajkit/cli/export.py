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
from pathlib import Path
from typing import TYPE_CHECKING

import click

from trajkit.cli import EXIT_INTERRUPTED
from trajkit.cli._options import (
    PATH_OR_URL,
    engine_options,
    examples,
    filter_options,
    jobs_alias,
    jobs_option,
    json_option,
    paths_argument,
)

if TYPE_CHECKING:
    from trajkit.export import ExportReport
    from trajkit.filters import ConversationFilters


def _lean_arrow_pool() -> None:
    """Arrow's jemalloc pool for this export and its workers, unless the user chose a pool.

    Set before pyarrow is imported (the variable is read once, at import). pyarrow 26's default
    pool, mimalloc, keeps freed pages around: an export worker writing row group after row group
    peaked 20-30 MB higher (synthetic 0.3 GB evaluation output, 2 workers: 538 MB for the three
    processes with mimalloc, 498 MB with jemalloc). Linux only, where the wheels have jemalloc.
    """
    if sys.platform.startswith("linux") and "pyarrow" not in sys.modules:
        os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")


@click.command(
    "export",
    epilog=examples(
        "trajkit export runs/ -o dataset/",
        "trajkit export runs/ -o dataset/ --status finished --since 2026-01-01",
        "trajkit export old/ --from-v0 -o dataset/",
    ),
)
@paths_argument()
@click.option("-o", "--output", "out_dir", type=PATH_OR_URL, required=True, metavar="OUT_DIR",
              help="Dataset folder: empty, new, or an earlier export to update.")  # fmt: skip
@click.option("--view", type=click.Choice(["condensed", "full"]), default="condensed",
              show_default=True, help="Messages the model saw after condensation, or every event.")  # fmt: skip
@click.option("--overwrite", is_flag=True, help="Start over: remove an earlier export in OUT_DIR.")
@click.option("--no-redact", is_flag=True, help="Keep secrets and API-key-looking strings.")
@click.option("--keep-invalid", is_flag=True, help="Export conversations validate rejects, their errors in the row's problems (default: skip them).")  # fmt: skip
@click.option("--from-v0", is_flag=True, help="Inputs are OpenHands V0 trajectories (migrated).")
@filter_options
@jobs_option
@jobs_alias("--workers")  # the former name of --jobs here; kept so scripts keep working
@json_option("Print the report as one JSON document on stdout (the summary line still goes to stderr).")  # fmt: skip
@engine_options
def export_command(
    paths: tuple[Path, ...],
    out_dir: Path,
    view: str,
    overwrite: bool,
    no_redact: bool,
    keep_invalid: bool,
    from_v0: bool,
    filters: ConversationFilters,
    jobs: int | None,
    as_json: bool,
    engine: str,
    address: str | None,
) -> None:
    """Export conversations to Parquet tables for training and analysis."""
    _lean_arrow_pool()
    from trajkit.cli._output import (
        check_output_folder,
        display_path,
        progress,
        stop_on_ctrl_c,
        writing,
    )
    from trajkit.export import ExportInterrupted, RowOptions, export_dataset
    from trajkit.export.dataset import count_inputs
    from trajkit.store.location import storage_folder

    if storage_folder(out_dir) is None:
        check_output_folder(Path(out_dir))

    options = RowOptions(
        view=view,  # type: ignore[arg-type]
        redact=not no_redact,
        keep_invalid=keep_invalid,
        filters=filters,
        secret_key=os.environ.get("TRAJKIT_SECRET_KEY") or None,
    )
    started = time.perf_counter()
    from trajkit.engine import open_engine

    with (
        stop_on_ctrl_c("the export"),
        writing(out_dir),
        open_engine(engine, workers=jobs, address=address) as runner,
        progress("exporting", total=lambda: count_inputs(paths, from_v0=from_v0)) as bar,
    ):
        shown = 0

        def on_progress(report: ExportReport) -> None:
            nonlocal shown
            rate = report.processed / max(time.perf_counter() - started, 1e-9)
            note = f"{rate:.1f} conversations/s, {report.events} events"
            bar.advance(report.processed - shown, note=note)
            shown = report.processed

        interrupted: ExportReport | None = None
        try:
            report = export_dataset(
                paths, out_dir, options=options, overwrite=overwrite, from_v0=from_v0,
                progress=on_progress, engine=runner,
            )  # fmt: skip
        except ExportInterrupted as stopped:
            interrupted = stopped.report
        else:
            on_progress(report)  # inputs skipped after the last chunk: the bar ends on the total
    if interrupted is not None:
        click.echo(
            f"interrupted: {interrupted.exported} conversation(s) exported in this run are kept "
            f"in {display_path(out_dir)} (listed in its manifest; unlisted shards removed); run "
            "the same command again to continue",
            err=True,
        )
        sys.exit(EXIT_INTERRUPTED)
    for skipped in report.skipped:
        click.echo(f"Error: {skipped.reason}", err=True)
    if as_json:
        _echo_report(report, display_path(out_dir))
    redacted = "secrets not redacted" if no_redact else f"{report.redactions} secret(s) redacted"
    counts = f"{report.unchanged} unchanged, {report.filtered} filtered out, {len(report.skipped)} skipped"
    if storage_folder(out_dir) is None and not Path(out_dir).exists():
        summary = f"nothing exported ({counts}); {display_path(out_dir)} not created"
    else:
        summary = (
            f"exported {report.exported} conversation(s), {report.events} event(s) to "
            f"{display_path(out_dir)} in {report.seconds:.1f}s; {counts}; {redacted}"
        )
    click.echo(summary, err=True)
    if report.skipped:
        sys.exit(1)


def _echo_report(report: ExportReport, out: str) -> None:
    from trajkit.cli._output import echo_json

    echo_json(
        {
            "schema": "trajkit.export/1",
            "out_dir": out,
            "exported": report.exported,
            "replaced": report.replaced,
            "events": report.events,
            "unchanged": report.unchanged,
            "filtered": report.filtered,
            "skipped": [{"source": s.source, "reason": s.reason} for s in report.skipped],
            "redactions": report.redactions,
            "shards": list(report.shards),
            "seconds": round(report.seconds, 3),
        }
    )
