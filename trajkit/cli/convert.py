"""`trajkit convert`: conversations -> Chat Completions or Responses payloads.

One conversation folder gives one JSON document; several (or a folder holding many) give JSONL,
one conversation per line with its `conversation_id`. Bad conversations are reported on stderr
(`Error: file:pointer: message`) and skipped; the exit code is then 1. Never writes into a
conversation folder.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from trajkit.cli import _options as opt

if TYPE_CHECKING:
    from trajkit.convert.corpus import ConvertReport
    from trajkit.convert.options import ConversionOptions, Target
    from trajkit.filters import ConversationFilters
    from trajkit.redact import SecretMasker


@click.command(
    "convert",
    epilog=opt.examples(
        "trajkit convert runs/abc123                  # one conversation: JSON",
        "trajkit convert runs/ --to responses -o all.jsonl",
        "trajkit convert runs/ --status finished --no-reasoning -o sft.jsonl",
    ),
)
@opt.paths_argument()
@click.option(
    "--to",
    "to",
    type=click.Choice(["chat", "responses", "auto", "atif", "anthropic", "inspect"]),
    default="chat",
    show_default=True,
    help="Wire format; auto = the API the conversation's LLM used; atif = Harbor's "
    "trajectory format; anthropic = a Messages API request; inspect = one Inspect log "
    "(-o FILE.eval), a sample per conversation.",
)
@opt.conversion_options
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write here, not stdout.")
@click.option("--overwrite", is_flag=True, help="Replace an existing output file.")
@click.option(
    "--keep-invalid",
    is_flag=True,
    help="Convert conversations validate rejects, with their errors as warnings (default: skip them).",
)
@opt.filter_options
@opt.json_option(
    "With -o: print what was written as one JSON document (trajkit.convert/1) on stdout (without -o the converted documents are the output)."
)
@opt.engine_options
@opt.redact_option
@opt.verbosity_options
def convert_command(
    paths: tuple[Path, ...],
    to: Target,
    options: ConversionOptions,
    output: Path | None,
    overwrite: bool,
    keep_invalid: bool,
    as_json: bool,
    engine: Callable[[], Any],
    filters: ConversationFilters,
    masker: SecretMasker | None,
) -> None:
    """Turn conversations into the messages an LLM saw (JSON for one, JSONL for many)."""
    from trajkit.cli._output import check_output_file, display_path, echo_json, select_paths
    from trajkit.convert.corpus import (
        ConvertReport,
        refuse_output_in_conversation,
        single_conversation,
    )
    from trajkit.errors import UsageError

    if as_json and output is None:
        raise UsageError("--json reports what was written: pass -o FILE (without -o, the "
                         "converted documents themselves are printed)")  # fmt: skip
    if output is not None:
        check_output_file(output, overwrite=overwrite)
        refuse_output_in_conversation(output)
    one = single_conversation(paths)  # the shape follows what was asked, filters or not
    paths = tuple(select_paths(paths, filters)) if filters else paths
    if not paths:
        click.echo("no conversation left after the filters; nothing written", err=True)
        return
    if to == "inspect":  # one log file for all: no JSON documents
        _convert_inspect(paths, output, options, keep_invalid=keep_invalid, masker=masker)
        return
    report = ConvertReport(to, display_path(output) if output else None, detailed=as_json)
    if one is not None:
        _convert_one(one, output, to, options, keep_invalid=keep_invalid, report=report,
                     masker=masker)  # fmt: skip
    else:
        with engine() as runner:
            _convert_many(paths, output, to, options, engine=runner, keep_invalid=keep_invalid,
                          report=report, masker=masker)  # fmt: skip
    if as_json:
        echo_json({**report.to_json(), "masked": masker.count if masker else None})
    if report.failed:
        sys.exit(1)


def _convert_one(
    path: Path,
    output: Path | None,
    to: Target,
    options: ConversionOptions,
    *,
    keep_invalid: bool,
    report: ConvertReport,
    masker: SecretMasker | None,
) -> None:
    from trajkit.cli._output import QUIET, echo_masked_note, verbosity
    from trajkit.convert.stream import write_conversation

    with _open_output(output, masker) as out:  # validated before a byte is written; streamed
        written = write_conversation(path, out, to=to, options=options, keep_invalid=keep_invalid)
    warnings = [f"{e} (kept: --keep-invalid)" for e in written.errors]
    warnings += [f"{path}: {p}" for p in written.problems]
    for warning in [] if verbosity() == QUIET else warnings:
        click.echo(f"warning: {warning}", err=True)
    report.converted = 1
    echo_masked_note(masker)
    report.warnings = warnings if report.detailed else []


def _convert_many(
    paths: tuple[Path, ...],
    output: Path | None,
    to: Target,
    options: ConversionOptions,
    *,
    engine: Any,
    keep_invalid: bool,
    report: ConvertReport,
    masker: SecretMasker | None,
) -> None:
    """Write JSONL, one line per conversation; what was skipped is said on stderr."""
    from trajkit.cli._output import Notes, masked_note, progress, stopping
    from trajkit.convert import convert_corpus
    from trajkit.convert.corpus import iter_inputs

    with _open_output(output, masker) as out:
        items = convert_corpus(
            paths, to=to, options=options, engine=engine, keep_invalid=keep_invalid
        )
        with progress("converting", total=lambda: iter_inputs(paths)) as bar, stopping(items):
            notes = Notes(lambda line: bar.echo(line, err=True))  # one line per kind (-v: each)
            for item in items:  # a full disk: `stopping` ends the workers now, not at exit
                for problem in item.problems:
                    notes.add(str(item.path), problem)
                if item.line is None:
                    error = masker.text(str(item.error)) if masker else item.error
                    bar.echo(f"Error: {error}", err=True)
                else:
                    out.write(item.line + b"\n")
                report.add(item)
                bar.advance(note=item.path.name)
            notes.close()
        if not report.converted and output is not None:
            raise _Unpublished  # no empty file: the output stays as it was
    click.echo(f"{report.summary()}; {masked_note(masker)}", err=True)


def _convert_inspect(
    paths: tuple[Path, ...],
    output: Path | None,
    options: ConversionOptions,
    *,
    keep_invalid: bool,
    masker: SecretMasker | None,
) -> None:
    from trajkit.cli._output import masked_note, writing
    from trajkit.convert.inspect_log import write_inspect_log
    from trajkit.errors import UsageError

    if output is None or output.suffix != ".eval":
        raise UsageError("--to inspect writes one Inspect log: pass -o FILE.eval")
    from trajkit.store import atomic_writer

    with writing(output), atomic_writer(output) as out:  # replaced only when whole
        report = write_inspect_log(
            paths, out, options=options, keep_invalid=keep_invalid, masker=masker
        )
    for line in [*report.problems, *(f"Error: {e}" for e in report.errors)]:
        line = masker.text(line) if masker else line
        click.echo(line if line.startswith("Error") else f"warning: {line}", err=True)
    click.echo(f"wrote {report.samples} sample(s) to {output}; {masked_note(masker)}", err=True)
    if report.errors:
        sys.exit(1)


class _Unpublished(Exception):
    """Raised inside `_open_output` to drop the temp file: there was nothing to write."""


@contextmanager
def _open_output(output: Path | None, masker: SecretMasker | None) -> Iterator[IO[bytes]]:
    """stdout, or a temp file next to `output` that replaces it only when the block succeeds;
    with secrets masked by `masker` (`cli._output.MaskedWriter`).

    Raising `_Unpublished` in the block removes the temp file and leaves `output` as it was.
    """
    from trajkit.cli._output import masked_output, writing
    from trajkit.store import atomic_writer

    if output is None:
        with masked_output(sys.stdout.buffer, masker) as out:
            yield out
        return
    with (
        contextlib.suppress(_Unpublished),
        writing(output),
        atomic_writer(output) as f,
        masked_output(f, masker) as out,
    ):
        yield out
