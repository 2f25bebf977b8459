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
@click.option(
    "--check",
    "check_dir",
    type=click.Path(file_okay=False, path_type=Path),
    is_flag=False,
    flag_value=Path(_SHIPPED),
    default=None,
    help="Exit 1 if the schema files in DIR (default: the ones shipped with trajkit, which "
    "the checkout's schemas/ links to) differ from the models.",
    metavar="[DIR]",
)
@click.option(
    "--write",
    "write_dir",
    type=click.Path(path_type=Path),
    default=None,
    metavar="DIR",
    help="Regenerate the schema files in DIR.",
)
@json_option(
    "Print a listing of the schemas (or what --check found, --write wrote) as one JSON "
    "document (trajkit.schema/1); the schemas themselves are printed by NAME or without it.",
)
@click.pass_context
def schema_command(
    ctx: click.Context,
    name: str | None,
    check_dir: Path | None,
    write_dir: Path | None,
    as_json: bool,
) -> None:
    """Print the JSON Schemas (Draft 2020-12), or check/regenerate the files.

    NAME picks one schema (`event` or `base_state`); without it all are printed as one JSON
    object keyed by file name. NAME may also be a command (`ls`, `stats`, `validate`, ...) or
    its shape name (`trajkit.ls/1`): the schema of that command's `--json` document.
    """
    from trajkit.cli._output import (
        check_output_folder,
        display_path,
        echo_json,
        new_folder_removed_if_empty,
        writing,
    )
    from trajkit.errors import UsageError
    from trajkit.schema import (
        OUTPUT_COMMANDS,
        build_schemas,
        drift,
        output_schema,
        render,
        shipped_dir,
        write_schemas,
    )

    if check_dir is not None and write_dir is not None:
        raise UsageError("--check and --write do not go together")
    if as_json and name is not None:
        raise UsageError("NAME prints that schema (it is JSON already); --json lists them all")
    if write_dir is not None:
        check_output_folder(write_dir)
        with new_folder_removed_if_empty(write_dir), writing(write_dir):
            written = write_schemas(write_dir)
        if as_json:
            echo_json(_listing(written=[display_path(p) for p in written]))
            return
        for path in written:
            click.echo(f"wrote {display_path(path)}")
        return
    if check_dir is not None:
        check_dir = shipped_dir() if str(check_dir) == _SHIPPED else check_dir
        stale = drift(check_dir)
        if as_json:
            check = {"folder": display_path(check_dir), "up_to_date": not stale, "problems": stale}
            echo_json(_listing(check=check))
        else:
            for line in stale:
                click.echo(line)
        if stale:
            ctx.exit(1)
        if not as_json:
            click.echo(f"schemas in {display_path(check_dir)} are up to date")
        return
    if as_json:
        echo_json(_listing())
        return
    schemas = build_schemas()
    if name is None:
        echo_json(schemas)
        return
    if name.removeprefix("trajkit.").removesuffix("/1") in OUTPUT_COMMANDS:
        click.echo(render(output_schema(name)), nl=False)
        return
    matches = [key for key in schemas if key in (name, f"{name}.schema.json")]
    if not matches:
        choices = ", ".join([*(k.removesuffix(".schema.json") for k in schemas), *OUTPUT_COMMANDS])
        raise UsageError(f"no schema named {name!r}; choose one of: {choices}")
    click.echo(render(schemas[matches[0]]), nl=False)


def _listing(**extra: object) -> dict[str, object]:
    """`schema --json` (`trajkit.schema/1`): every schema trajkit ships, and what was done."""
    from trajkit.schema import OUTPUT_COMMANDS, build_schemas, output_schema

    models = [
        {"name": key.removesuffix(".schema.json"), "file": key, "id": doc.get("$id"), "of": "model"}
        for key, doc in build_schemas().items()
    ]
    commands = [
        {
            "name": name,
            "file": f"cli/{name}.schema.json",
            "id": output_schema(name).get("$id"),
            "of": "command",
            "shape": f"trajkit.{name}/1",
        }
        for name in OUTPUT_COMMANDS
    ]
    return {"schema": "trajkit.schema/1", "schemas": [*models, *commands], **extra}
