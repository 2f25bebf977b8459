"""`trajkit migrate INPUT... -o OUT_DIR`: V0 trajectories to V1 conversation folders."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from trajkit.cli import EXIT_INTERRUPTED
from trajkit.cli._options import examples, jobs_option, json_option

if TYPE_CHECKING:
    from trajkit.migrate import Migrated


@click.command(
    "migrate",
    epilog=examples(
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
@jobs_option
@json_option("Print one JSON document listing every outcome.")
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
    from trajkit.cli._output import (
        check_output_folder,
        close_iterator,
        display_path,
        echo_json,
        new_folder_removed_if_empty,
        progress,
        stop_on_ctrl_c,
    )
    from trajkit.engine import LocalEngine
    from trajkit.migrate import AlreadyMigrated, Migrated, migrate_paths
    from trajkit.migrate.run import count_inputs

    check_output_folder(out_dir)
    done: list[Migrated] = []
    skipped: list[str] = []
    existing: list[str] = []
    outcomes = migrate_paths(
        inputs,
        out_dir,
        overwrite=overwrite,
        tool_names=tool_names,  # type: ignore[arg-type]
        engine=LocalEngine(jobs),
    )
    try:
        with (
            stop_on_ctrl_c("the migration"),
            new_folder_removed_if_empty(out_dir),
            progress(
                "migrating", total=lambda: count_inputs(inputs, out_dir), enabled=not as_json
            ) as bar,
        ):
            for item in outcomes:
                if isinstance(item, AlreadyMigrated):
                    existing.append(item.folder)
                elif isinstance(item, Migrated):
                    done.append(item)
                    if not as_json:
                        warn = len(item.report["warnings"])
                        bar.echo(
                            f"{display_path(item.source)} -> {display_path(item.folder)} "
                            f"({item.events} events, {item.report['dropped']} dropped, {warn} warning(s))"
                        )
                else:
                    skipped.append(str(item))
                    if not as_json:
                        bar.echo(f"skipped {item}", err=True)
                bar.advance(note=item.source if isinstance(item, Migrated) else item.path)
    except KeyboardInterrupt:
        click.echo(
            f"interrupted: {len(done)} conversation(s) migrated in this run are complete in "
            f"{display_path(out_dir)} (folders appear whole); run the same command again to "
            "migrate the rest",
            err=True,
        )
        raise SystemExit(EXIT_INTERRUPTED) from None
    finally:
        close_iterator(outcomes)  # whatever ended the loop, the workers stop now
    if as_json:
        echo_json(
            {
                "schema": "trajkit.migrate/1",
                "migrated": [vars(m) for m in done],
                "already_migrated": existing,
                "skipped": skipped,
            }
        )
    else:
        click.echo(_summary(done, len(skipped), display_path(out_dir), len(existing)))
    if skipped:
        click.get_current_context().exit(1)


def _summary(done: list[Migrated], skipped: int, out: str, existing: int = 0) -> str:
    events = sum(m.events for m in done)
    dropped = sum(m.report["dropped"] for m in done)
    synth = sum(m.report["synthesized"] for m in done)
    warnings = sum(len(m.report["warnings"]) for m in done)
    return (
        f"migrated {len(done)} conversation(s) into {out}: {events} events, {dropped} V0 events "
        f"dropped, {synth} synthesized, {warnings} warning(s) (see migration_report.json); "
        f"{skipped} input(s) skipped"
        + (f"; {existing} already migrated (kept; --overwrite rewrites them)" if existing else "")
    )
