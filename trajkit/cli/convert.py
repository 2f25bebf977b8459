"""`trajkit convert`: conversations -> Chat Completions or Responses payloads.

One conversation folder gives one JSON document; several (or a folder holding many) give JSONL,
one conversation per line with its `conversation_id`. Bad conversations are reported on stderr
(`Error: file:pointer: message`) and skipped; the exit code is then 1. Never writes into a
conversation folder.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from trajkit.convert.options import (
        ConversionOptions,
        DanglingPolicy,
        ImagesMode,
        Target,
        ViewName,
    )


@click.command(
    "convert",
    epilog=examples(
        "trajkit convert runs/abc123                  # one conversation: JSON",
        "trajkit convert runs/ --to responses -o all.jsonl",
        "trajkit convert runs/ --status finished --no-reasoning -o sft.jsonl",
    ),
)
@paths_argument()
@click.option(
    "--to",
    "to",
    type=click.Choice(["chat", "responses", "auto"]),
    default="chat",
    show_default=True,
    help="Wire format; auto = the API the conversation's LLM used.",
)
@click.option(
    "--view",
    type=click.Choice(["condensed", "full"]),
    default="condensed",
    show_default=True,
    help="What the model saw after condensation, or every event.",
)
@click.option("--no-reasoning", is_flag=True, help="Drop reasoning content and thinking blocks.")
@click.option(
    "--reasoning-content",
    is_flag=True,
    help="Chat: send reasoning_content on every assistant message that has one "
    "(the SDK sends it back only to the models that need it).",
)
@click.option("--no-system", is_flag=True, help="Drop the system message (instructions).")
@click.option(
    "--images",
    type=click.Choice(["keep", "placeholder"]),
    default="keep",
    show_default=True,
    help="Keep image data URLs or replace each by '[image]'.",
)
@click.option(
    "--dangling",
    type=click.Choice(["drop", "synthesize", "report"]),
    default="drop",
    show_default=True,
    help="Unanswered tool calls: drop them, add an error result, or only report them.",
)
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write here, not stdout.")
@click.option("--overwrite", is_flag=True, help="Replace an existing output file.")
@click.option(
    "--keep-invalid",
    is_flag=True,
    help="Convert conversations validate rejects, with their errors as warnings "
    "(default: skip them).",
)
@filter_options
@jobs_option
@json_option(
    "With -o: print what was written as one JSON document (trajkit.convert/1) on stdout "
    "(without -o the converted documents are the output)."
)
@engine_options
@verbosity_options
def convert_command(
    paths: tuple[Path, ...],
    to: Target,
    view: ViewName,
    no_reasoning: bool,
    reasoning_content: bool,
    no_system: bool,
    images: ImagesMode,
    dangling: DanglingPolicy,
    output: Path | None,
    overwrite: bool,
    keep_invalid: bool,
    jobs: int | None,
    as_json: bool,
    engine: str,
    address: str | None,
    filters: ConversationFilters,
) -> None:
    """Turn conversations into the messages an LLM saw (JSON for one, JSONL for many)."""
    from trajkit.convert.options import ConversionOptions
    from trajkit.store.layout import is_conversation_folder

    if reasoning_content and no_reasoning:
        raise click.UsageError("--reasoning-content and --no-reasoning contradict each other")
    options = ConversionOptions(
        view=view,
        reasoning=not no_reasoning,
        system=not no_system,
        images=images,
        dangling=dangling,
        send_reasoning_content=reasoning_content,
    )
    if as_json and output is None:
        from trajkit.errors import UsageError

        raise UsageError(
            "--json reports what was written: pass -o FILE (without -o, the converted "
            "documents themselves are printed)"
        )
    _check_output(output, paths, overwrite)
    report = _Report(to=to, output=output) if as_json else None
    single = paths[0].parent if len(paths) == 1 and paths[0].name == "events" else paths[0]
    one = len(paths) == 1 and single.is_dir() and is_conversation_folder(single)
    if filters:  # the shape follows what was asked: one document for one folder, else JSONL
        from trajkit.cli._output import select_paths

        paths = tuple(select_paths(paths, filters))
        if not paths:
            click.echo("no conversation left after the filters; nothing written", err=True)
            return
    failed = 0
    if one:
        _convert_one(single, output, to, options, keep_invalid=keep_invalid, report=report)
    else:
        failed = _convert_many(
            paths,
            output,
            jobs,
            to,
            options,
            engine=engine,
            address=address,
            keep_invalid=keep_invalid,
            report=report,
        )
    if report is not None:
        from trajkit.cli._output import echo_json

        echo_json(report.to_json())
    if failed:
        sys.exit(1)


@dataclass
class _Report:
    """What `convert --json` prints (`trajkit.convert/1`)."""

    to: str
    output: Path | None
    converted: int = 0
    skipped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        from trajkit.cli._output import display_path

        written = self.output is not None and self.converted > 0
        return {
            "schema": "trajkit.convert/1",
            "to": self.to,
            "output": display_path(self.output) if written and self.output else None,
            "converted": self.converted,
            "skipped": self.skipped,
            "warnings": self.warnings,
        }


def _convert_one(
    path: Path,
    output: Path | None,
    to: Target,
    options: ConversionOptions,
    *,
    keep_invalid: bool,
    report: _Report | None = None,
) -> None:
    from trajkit.cli._output import QUIET, verbosity
    from trajkit.convert.stream import write_conversation

    with _open_output(output) as out:  # validated before a byte is written; streamed
        written = write_conversation(path, out, to=to, options=options, keep_invalid=keep_invalid)
    warnings = [f"{e} (kept: --keep-invalid)" for e in written.errors]
    warnings += [f"{path}: {p}" for p in written.problems]
    if verbosity() != QUIET:
        for warning in warnings:
            click.echo(f"warning: {warning}", err=True)
    if report is not None:
        report.converted = 1
        report.warnings = warnings


def _convert_many(
    paths: tuple[Path, ...],
    output: Path | None,
    jobs: int | None,
    to: Target,
    options: ConversionOptions,
    *,
    engine: str = "local",
    address: str | None = None,
    keep_invalid: bool = False,
    report: _Report | None = None,
) -> int:
    """Write JSONL; returns the number of conversations skipped."""
    from trajkit.cli._output import Notes, close_iterator, display_path, progress
    from trajkit.convert import convert_corpus
    from trajkit.convert.corpus import count_conversations
    from trajkit.engine import open_engine

    failed = converted = 0
    with open_engine(engine, workers=jobs, address=address) as runner, _open_output(output) as out:
        items = convert_corpus(
            paths, to=to, options=options, engine=runner, keep_invalid=keep_invalid
        )
        with progress("converting", total=lambda: count_conversations(paths)) as bar:
            notes = Notes(lambda line: bar.echo(line, err=True))  # one line per kind (-v: each)
            try:
                for item in items:
                    for problem in item.problems:
                        notes.add(str(item.path), problem)
                    if item.line is None:
                        failed += 1
                        bar.echo(f"Error: {item.error}", err=True)
                    else:
                        converted += 1
                        out.write(item.line + b"\n")
                    if report is not None:
                        report.warnings += [f"{item.path}: {p}" for p in item.problems]
                        report.skipped += [] if item.error is None else [str(item.error)]
                    bar.advance(note=item.path.name)
                notes.close()
            finally:
                close_iterator(items)  # a full disk: the workers stop now, not at exit
        if not converted and output is not None:
            raise _Unpublished  # no empty file: the output stays as it was
    if report is not None:
        report.converted = converted
    note = "" if converted or output is None else f"; {display_path(output)} not written"
    click.echo(f"converted {converted} conversation(s), skipped {failed}{note}", err=True)
    return failed


def _check_output(output: Path | None, paths: tuple[Path, ...], overwrite: bool) -> None:
    from trajkit.cli._output import check_output_file
    from trajkit.errors import UsageError
    from trajkit.store.layout import is_conversation_folder

    if output is None:
        return
    check_output_file(output, overwrite=overwrite)
    for folder in output.resolve().parents:
        if is_conversation_folder(folder):
            raise UsageError(
                f"{output}: inside the conversation folder {folder}; "
                "convert never writes into a conversation, choose another path"
            )


class _Unpublished(Exception):
    """Raised inside `_open_output` to drop the temp file: there was nothing to write."""


@contextmanager
def _open_output(output: Path | None) -> Iterator[IO[bytes]]:
    """stdout, or a temp file next to `output` that replaces it only when the block succeeds.

    Raising `_Unpublished` in the block removes the temp file and leaves `output` as it was.
    """
    if output is None:
        stdout = sys.stdout.buffer
        yield stdout
        stdout.flush()
        return
    from trajkit.cli._output import writing
    from trajkit.store import atomic_writer

    with contextlib.suppress(_Unpublished), writing(output), atomic_writer(output) as f:
        yield f
