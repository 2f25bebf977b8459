"""Option bundles shared by several commands, so each command states its options in one line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def paths_argument(*, required: bool = True) -> Callable[[F], F]:
    """`PATH...`: conversation folders, folders holding many conversations, or single files.

    Existence is checked by the library, so a broken link or a symlink loop is reported as a
    problem naming the path (exit 1) rather than as a usage error.
    """
    return click.argument(
        "paths",
        nargs=-1,
        required=required,
        type=click.Path(path_type=Path),
        metavar="PATH...",
    )


def json_option(help_text: str = "Print a machine-readable JSON report.") -> Callable[[F], F]:
    """`--json`: print one JSON document instead of text lines."""
    return click.option("--json", "as_json", is_flag=True, help=help_text)


def jobs_option(f: F) -> F:
    """`--jobs N`: worker processes for many conversations (default: the number of cores, at most 2)."""
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1),
        default=None,
        help="Worker processes for many conversations (default: up to 2).",
    )(f)
