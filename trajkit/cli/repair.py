"""`trajkit repair DIR...`: quarantine damaged files, fix the head, close unanswered calls."""

from __future__ import annotations

from pathlib import Path

import click

from trajkit.cli._options import json_option, paths_argument


@click.command("repair")
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
    from trajkit.cli._output import display_path, echo_json
    from trajkit.errors import TrajkitError
    from trajkit.repair import repair_conversation
    from trajkit.store import find_conversations
    from trajkit.validate import validate_conversation

    report: list[dict[str, object]] = []
    ok = True
    for folder in find_conversations(paths):
        try:
            fixes = repair_conversation(folder, dry_run=dry_run)
        except TrajkitError as exc:  # refused (a link outside, a live writer): nothing changed
            ok = False
            if as_json:
                report.append({"conversation": display_path(folder), "error": str(exc)})
            else:
                click.echo(f"refused: {exc}")
            continue
        remaining = [f for f in fixes if f.kind == "unfixable"]
        problems = [] if dry_run else list(validate_conversation(folder).problems)
        errors = [p for p in problems if p.severity == "error"]
        ok = ok and not remaining and not errors
        if as_json:
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
            continue
        verb = "would" if dry_run else "did"
        for fix in fixes:
            tag = (
                "cannot fix" if fix.kind == "unfixable" else f"{verb} {fix.kind.replace('_', ' ')}"
            )
            click.echo(f"{tag}: {display_path(fix.path)}: {fix.message}")
        for p in errors:
            click.echo(f"still invalid: {p.format(display_path(p.path))}")
        state = "nothing to repair" if not fixes else ("planned" if dry_run else "repaired")
        click.echo(f"{display_path(folder)}: {state} ({len(fixes)} item(s))")
    if as_json:
        echo_json({"dry_run": dry_run, "ok": ok, "conversations": report})
    ctx.exit(0 if ok else 1)
