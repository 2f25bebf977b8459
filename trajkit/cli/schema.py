"""`trajkit schema`: print, check or regenerate the JSON Schemas generated from the models."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("schema")
@click.argument("name", required=False, metavar="[NAME]")
@click.option(
    "--check",
    "check_dir",
    type=click.Path(file_okay=False, path_type=Path),
    is_flag=False,
    flag_value=Path("schemas"),
    default=None,
    help="Exit 1 if the schema files in DIR (default: schemas) differ from the models.",
    metavar="[DIR]",
)
@click.option(
    "--write",
    "write_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    metavar="DIR",
    help="Regenerate the schema files in DIR.",
)
@click.pass_context
def schema_command(
    ctx: click.Context, name: str | None, check_dir: Path | None, write_dir: Path | None
) -> None:
    """Print the JSON Schemas (Draft 2020-12), or check/regenerate the files.

    NAME picks one schema (`event` or `base_state`); without it all are printed as one JSON
    object keyed by file name.
    """
    from trajkit.cli._output import display_path, echo_json
    from trajkit.errors import UsageError
    from trajkit.schema import build_schemas, drift, render, write_schemas

    if check_dir is not None and write_dir is not None:
        raise UsageError("--check and --write do not go together")
    if write_dir is not None:
        for path in write_schemas(write_dir):
            click.echo(f"wrote {display_path(path)}")
        return
    if check_dir is not None:
        stale = drift(check_dir)
        for line in stale:
            click.echo(line)
        if stale:
            ctx.exit(1)
        click.echo(f"schemas in {display_path(check_dir)} are up to date")
        return
    schemas = build_schemas()
    if name is None:
        echo_json(schemas)
        return
    matches = [key for key in schemas if key in (name, f"{name}.schema.json")]
    if not matches:
        choices = ", ".join(key.removesuffix(".schema.json") for key in schemas)
        raise UsageError(f"no schema named {name!r}; choose one of: {choices}")
    click.echo(render(schemas[matches[0]]), nl=False)
