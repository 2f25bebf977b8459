"""`trajkit export`: conversations -> `conversations/` and `events/` Parquet tables in OUT_DIR.

Prints one summary line on stderr; each skipped conversation is an `Error: file:pointer: message`
line, and the exit code is then 1. A progress bar with conversations/s is drawn on a terminal.
When `TRAJKIT_SECRET_KEY` holds the SDK's cipher key, encrypted registered secrets are decrypted
in memory so their values can be masked wherever they appear.
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from trajkit.cli import EXIT_INTERRUPTED
from trajkit.cli import _options as opt

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
    epilog=opt.examples(
        "trajkit export runs/ -o dataset/",
        "trajkit export runs/ -o dataset/ --status finished --since 2026-01-01",
        "trajkit export old/ --from-v0 -o dataset/",
    ),
)
@opt.paths_argument()
@click.option("-o", "--output", "out_dir", type=opt.PATH_OR_URL, required=True, metavar="OUT_DIR",
              help="Dataset folder: empty, new, or an earlier export to update.")  # fmt: skip
@click.option("--view", type=click.Choice(["condensed", "full"]), default="condensed",
              show_default=True, help="Messages the model saw after condensation, or every event.")  # fmt: skip
@click.option("--overwrite", is_flag=True, help="Start over: remove an earlier export in OUT_DIR.")
@opt.redact_option
@click.option("--keep-invalid", is_flag=True, help="Export conversations validate rejects, their errors in the row's problems (default: skip them).")  # fmt: skip
@click.option("--from-v0", is_flag=True, help="Inputs are OpenHands V0 trajectories (migrated).")
@click.option("--profile", type=click.Choice(["analysis", "sft", "rl"]), default="analysis", show_default=True,
              help="sft: add a table of training examples (one per condensation point and the final request); rl: one row per LLM call.")  # fmt: skip
@click.option("--resolved-only", is_flag=True, help="Only conversations an evaluation record marks resolved.")  # fmt: skip
@click.option("--min-steps", type=click.IntRange(min=0), default=0, help="Only conversations with at least N LLM calls.")  # fmt: skip
@opt.filter_options
@opt.jobs_alias("--workers")  # the former name of --jobs here; kept so scripts keep working
@opt.json_option("Print the report as one JSON document on stdout (the summary line still goes to stderr).")  # fmt: skip
@opt.engine_options
def export_command(
    paths: tuple[Path, ...],
    out_dir: Path,
    view: str,
    overwrite: bool,
    keep_invalid: bool,
    from_v0: bool,
    profile: str,
    resolved_only: bool,
    min_steps: int,
    filters: ConversationFilters,
    as_json: bool,
    engine: Callable[[], Any],
    masker: Any,
) -> None:
    """Export conversations to Parquet tables for training and analysis."""
    _lean_arrow_pool()
    from trajkit.cli._output import (
        check_output_folder,
        display_path,
        echo_json,
        stop_on_ctrl_c,
        writing,
    )
    from trajkit.export import ExportInterrupted, RowOptions, export_dataset
    from trajkit.store.location import storage_folder

    local = storage_folder(out_dir) is None
    if local:
        check_output_folder(Path(out_dir))
    key = os.environ.get("TRAJKIT_SECRET_KEY") or None
    options = RowOptions(view=view, redact=masker is not None, keep_invalid=keep_invalid,  # type: ignore[arg-type]
                         filters=filters, secret_key=key, profile=profile,  # type: ignore[arg-type]
                         resolved_only=resolved_only, min_steps=min_steps)  # fmt: skip
    out = display_path(out_dir)
    try:
        with (
            stop_on_ctrl_c("the export"),
            writing(out_dir),
            engine() as runner,
            _progress(paths, from_v0) as on_progress,
        ):
            report = export_dataset(paths, out_dir, options=options, overwrite=overwrite,
                                    from_v0=from_v0, progress=on_progress, engine=runner,
                                    command=shlex.join(["trajkit", *sys.argv[1:]]))  # fmt: skip
            on_progress(report)  # inputs skipped after the last chunk: the bar ends on the total
    except ExportInterrupted as stopped:  # said once the workers are stopped and the bar gone
        click.echo(stopped.report.interrupted(out), err=True)
        sys.exit(EXIT_INTERRUPTED)
    for skipped in report.skipped:
        click.echo(f"Error: {skipped.reason}", err=True)
    if as_json:
        echo_json(report.to_json(out))
    created = not local or Path(out_dir).exists()
    click.echo(report.summary(out, created=created, redact=masker is not None), err=True)
    if report.skipped:
        sys.exit(1)


@contextmanager
def _progress(paths: tuple[Path, ...], from_v0: bool) -> Iterator[Callable[[ExportReport], None]]:
    """The progress display, fed by `export_dataset`'s report after each chunk."""
    from trajkit.cli._output import progress
    from trajkit.export.dataset import iter_inputs

    started = time.perf_counter()
    with progress("exporting", total=lambda: iter_inputs(paths, from_v0=from_v0)) as bar:
        shown = 0

        def on_progress(report: ExportReport) -> None:
            nonlocal shown
            rate = report.processed / max(time.perf_counter() - started, 1e-9)
            bar.advance(report.processed - shown, note=f"{rate:.1f}/s, {report.events} events")
            shown = report.processed

        yield on_progress
