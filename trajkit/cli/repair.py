"""`trajkit repair DIR...`: quarantine damaged files, fix the head, close unanswered calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from trajkit.cli._options import examples, json_option, paths_argument


@click.command(
    "repair",
    epilog=examples(
        "trajkit repair runs/abc123 --dry-run   # what it would do",
        "trajkit repair runs/abc123",
    ),
)
@paths_argument()
@click.option("--dry-run", is_flag=True, help="Show what would be done; change nothing.")
@json_option()
@click.pass_context
def repair_command(
    ctx: click.Context, paths: tuple[Path, ...], dry_run: bool, as_json: bool
) -> None:
    """Repair conversation folders after a crash, then validate them.

    Empty, truncated or unparseable event files and leftover temp files are moved to
    `quarantine/` (never deleted); the head in base_state.json is moved to the last complete
    event; a tool call left unanswered gets an error result. Nothing is renumbered. Exit 0 when
    every folder validates afterwards (or would, with --dry-run, once repaired), 1 otherwise.
    """
    from trajkit.cli._output import echo_json
    from trajkit.errors import InputError
    from trajkit.store import find_conversations

    report: list[dict[str, Any]] = []
    refused: list[str] = []
    ok = True
    for folder in _folders(paths, refused, find_conversations, InputError):
        ok = _repair(folder, dry_run, report if as_json else None) and ok
    for line in refused:
        ok = False
        click.echo(line, err=True)
    if as_json:
        echo_json(
            {"schema": "trajkit.repair/1", "dry_run": dry_run, "ok": ok, "conversations": report}
        )
    ctx.exit(0 if ok else 1)


def _repair(folder: Path, dry_run: bool, report: list[dict[str, Any]] | None) -> bool:
    """Repair (or plan) one folder and say what was done: lines, or an entry of `report`.

    Returns whether the folder validates afterwards (with `dry_run`: would, once repaired).
    """
    from trajkit.cli._output import display_path, writing
    from trajkit.errors import OutputError, TrajkitError
    from trajkit.repair import repair_conversation
    from trajkit.validate import validate_conversation

    try:
        with writing(folder):
            fixes = repair_conversation(folder, dry_run=dry_run)
    except OutputError:
        raise  # the folder cannot be written (read-only, full): one line, exit 1
    except TrajkitError as exc:  # refused (a link outside, a live writer): nothing changed
        if report is not None:
            report.append({"conversation": display_path(folder), "error": str(exc)})
        else:
            click.echo(f"refused: {exc}")
        return False
    remaining = [f for f in fixes if f.kind == "unfixable"]
    # Read-only either way: after a repair, what is still wrong; in a dry run, what
    # validate rejects now (said below when repair has nothing to do about it).
    problems = list(validate_conversation(folder).problems)
    errors = [p for p in problems if p.severity == "error"]
    if dry_run and fixes:
        errors = []  # the planned fixes change what validate will say; see "cannot fix"
    if report is not None:
        report.append(
            {
                "conversation": display_path(folder),
                "fixes": [
                    {"kind": f.kind, "path": display_path(f.path), "message": f.message}
                    for f in fixes
                ],
                "remaining_errors": [p.format(display_path(p.path)) for p in errors],
            }
        )
        return not remaining and not errors
    verb = "would" if dry_run else "did"
    for fix in fixes:
        tag = "cannot fix" if fix.kind == "unfixable" else f"{verb} {fix.kind.replace('_', ' ')}"
        click.echo(f"{tag}: {display_path(fix.path)}: {fix.message}")
    for p in errors:
        click.echo(f"{'not crash damage' if not fixes else 'still invalid'}: "
                   f"{p.format(display_path(p.path))}")  # fmt: skip
    click.echo(f"{display_path(folder)}: {_state(fixes, errors, dry_run)}")
    return not remaining and not errors


def _folders(paths: Any, refused: list[str], find: Any, input_error: Any) -> Any:
    """Conversation folders under each PATH; a PATH holding none is said why in `refused`."""
    from trajkit.cli._output import display_path

    for raw in paths:
        found = False
        try:
            for folder in find([raw]):
                found = True
                yield folder
        except input_error as exc:
            refused.append(f"Error: {exc}")
            continue
        if found:
            continue
        what = "a file" if Path(raw).is_file() else "a folder holding no conversation"
        refused.append(
            f"Error: {display_path(raw)}: {what}; repair works on conversation folders "
            "(holding events/ or base_state.json), nothing to repair"
        )


def _state(fixes: list[Any], errors: list[Any], dry_run: bool) -> str:
    done = [f for f in fixes if f.kind != "unfixable"]
    cannot = len(fixes) - len(done)
    if done:
        verb = "planned" if dry_run else "repaired"
        return f"{verb} ({len(done)} fix(es)" + (f", {cannot} it cannot fix)" if cannot else ")")
    if cannot or errors:
        return (
            f"nothing repair can fix: {cannot + len(errors)} problem(s) above (repair moves "
            "damaged files aside, fixes the head and answers interrupted calls; it never edits "
            "or renumbers events)"
        )
    return "nothing to repair: the conversation is intact"
