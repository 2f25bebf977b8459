"""`trajkit schema`: print, check or regenerate the JSON Schemas generated from the models."""

from __future__ import annotations

from pathlib import Path

import click

from trajkit.cli._options import examples, json_option

_SHIPPED = "<shipped>"  # --check without DIR


@click.command(
    "schema",
    epilog=examples(
        "trajkit schema event          # the event schema",
        "trajkit schema --check        # exit 1 if the shipped files are stale",
        "trajkit schema --write schemas/",
    ),
)
@click.argument("name", required=False, metavar="[NAME]")
@click.option("--check", "check_dir", type=click.Path(file_okay=False, path_type=Path),
              is_flag=False, flag_value=Path(_SHIPPED), default=None, metavar="[DIR]",
              help="Exit 1 if the schema files in DIR (default: the ones shipped with trajkit, "
              "which the checkout's schemas/ links to) differ from the models.")  # fmt: skip
@click.option("--write", "write_dir", type=click.Path(path_type=Path), default=None,
              metavar="DIR", help="Regenerate the schema files in DIR.")  # fmt: skip
@json_option(
    "Print a listing of the schemas (or what --check found, --write wrote) as one JSON "
    "document (trajkit.schema/1); the schemas themselves are printed by NAME or without it.",
)
def schema_command(
    name: str | None, check_dir: Path | None, write_dir: Path | None, as_json: bool
) -> None:
    """Print the JSON Schemas (Draft 2020-12), or check/regenerate the files.

    NAME picks one schema (`event` or `base_state`); without it all are printed as one JSON
    object keyed by file name. NAME may also be a command (`ls`, `stats`, `validate`, ...) or
    its shape name (`trajkit.ls/1`): the schema of that command's `--json` document.
    """
    from trajkit.cli._output import echo_json
    from trajkit.errors import UsageError
    from trajkit.schema import schema_listing, schema_text

    if check_dir is not None and write_dir is not None:
        raise UsageError("--check and --write do not go together")
    if as_json and name is not None:
        raise UsageError("NAME prints that schema (it is JSON already); --json lists them all")
    if write_dir is not None:
        _write(write_dir, as_json)
    elif check_dir is not None:
        _check(check_dir, as_json)
    elif as_json:
        echo_json(schema_listing())
    else:
        click.echo(schema_text(name), nl=False)


def _write(folder: Path, as_json: bool) -> None:
    from trajkit.cli._output import (
        check_output_folder,
        display_path,
        echo_json,
        new_folder_removed_if_empty,
        writing,
    )
    from trajkit.schema import schema_listing, write_schemas

    check_output_folder(folder)
    with new_folder_removed_if_empty(folder), writing(folder):
        written = [display_path(p) for p in write_schemas(folder)]
    if as_json:
        echo_json(schema_listing(written=written))
    for path in [] if as_json else written:
        click.echo(f"wrote {path}")


def _check(folder: Path, as_json: bool) -> None:
    from trajkit.cli._output import display_path, echo_json
    from trajkit.schema import drift, schema_listing, shipped_dir

    folder = shipped_dir() if str(folder) == _SHIPPED else folder
    stale = drift(folder)
    if as_json:
        check = {"folder": display_path(folder), "up_to_date": not stale, "problems": stale}
        echo_json(schema_listing(check=check))
    else:
        click.echo(
            "\n".join(stale) if stale else f"schemas in {display_path(folder)} are up to date"
        )
    if stale:
        raise SystemExit(1)
