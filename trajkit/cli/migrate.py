"""`trajkit migrate INPUT... -o OUT_DIR`: V0 trajectories to V1 conversation folders."""

from __future__ import annotations

from pathlib import Path

import click

from trajkit.cli import EXIT_INTERRUPTED
from trajkit.cli import _options as opt


@click.command(
    "migrate",
    epilog=opt.examples(
        "trajkit migrate trajectory.json -o runs/",
        "trajkit migrate output.jsonl sessions/ -o runs/ --tool-names v1",
        "trajkit migrate old/ -o runs/ --json > migrated.json",
    ),
)
@click.argument(
    "inputs", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="INPUT..."
)
@click.option(
    "-o",
    "--output",
    "out_dir",
    required=True,
    type=click.Path(path_type=Path),
    metavar="OUT_DIR",
    help="Folder to write one <uuid hex>/ conversation folder per trajectory into.",
)
@click.option("--overwrite", is_flag=True, help="Replace conversation folders that already exist.")
@click.option(
    "--tool-names",
    type=click.Choice(["keep", "v1"]),
    default="keep",
    show_default=True,
    help="Keep V0 tool names (execute_bash) or use V1 names (terminal, file_editor).",
)
@opt.jobs_option
@opt.json_option("Print one JSON document listing every outcome.")
@opt.verbosity_options
def migrate_command(
    inputs: tuple[Path, ...],
    out_dir: Path,
    overwrite: bool,
    tool_names: str,
    jobs: int | None,
    as_json: bool,
) -> None:
    """Migrate OpenHands V0 trajectories (trajectory.json, session folders, eval output.jsonl).

    Writes OUT_DIR/<uuid hex>/ with base_state.json, events/, migration_report.json and
    v0_sidecar.json. Folders appear whole, so a re-run after an interruption keeps the folders
    already written and finishes the rest. Exits 1 when any input (or jsonl line) had to be
    skipped.
    """
    from trajkit.cli import _output as o
    from trajkit.engine import LocalEngine
    from trajkit.migrate import Migrated, MigrationTally, migrate_paths
    from trajkit.migrate.run import iter_inputs

    o.check_output_folder(out_dir)
    quiet = o.verbosity() == o.QUIET  # -q: the summary and what was skipped only
    tally = MigrationTally(show=o.display_path)
    outcomes = migrate_paths(inputs, out_dir, overwrite=overwrite, tool_names=tool_names,  # type: ignore[arg-type]
                             engine=LocalEngine(jobs))  # fmt: skip
    total = lambda: iter_inputs(inputs, out_dir)  # noqa: E731 - counted in a thread
    try:
        with (
            o.stopping(outcomes),  # whatever ends the loop, the workers stop now
            o.stop_on_ctrl_c("the migration"),
            o.new_folder_removed_if_empty(out_dir),
            o.progress("migrating", total=total, enabled=not as_json) as bar,
        ):
            for item in outcomes:
                for line, skipped in tally.add(item):
                    if not as_json and (skipped or not quiet):
                        bar.echo(line, err=skipped)
                bar.advance(note=item.source if isinstance(item, Migrated) else item.path)
    except KeyboardInterrupt:
        click.echo(tally.interrupted(o.display_path(out_dir)), err=True)
        raise SystemExit(EXIT_INTERRUPTED) from None
    if as_json:
        o.echo_json(tally.to_json())
    else:
        click.echo(tally.summary(o.display_path(out_dir)))
    if tally.skipped:
        raise SystemExit(1)
