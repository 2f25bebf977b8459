"""Output helpers for commands: progress on a terminal, JSON documents, path display.

rich is imported only here (and in `views/`), and only when a progress bar is actually shown:
on a pipe or in tests `progress()` is a no-op and rich stays unloaded.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import click

from trajkit.controls import visible_controls


class Progress(Protocol):
    """What a command sees of a progress display."""

    def advance(self, n: int = 1, *, note: str = "") -> None:
        """Count `n` more items done; `note` is a short text such as the item's name."""


class _NoProgress:
    def advance(self, n: int = 1, *, note: str = "") -> None:
        return None


class _RichProgress:
    def __init__(self, bar: Any, task: Any) -> None:
        self._bar = bar
        self._task = task

    def advance(self, n: int = 1, *, note: str = "") -> None:
        self._bar.update(self._task, advance=n, note=note[-60:])


def stderr_is_terminal() -> bool:
    """True when progress can be drawn: stderr is an interactive terminal and not CI."""
    stream = sys.stderr
    return bool(getattr(stream, "isatty", lambda: False)()) and not os.environ.get("CI")


@contextmanager
def progress(label: str, *, total: int | None = None, enabled: bool = True) -> Iterator[Progress]:
    """A progress display on stderr, shown only on a terminal; a no-op elsewhere."""
    if not (enabled and stderr_is_terminal()):
        yield _NoProgress()
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.progress import Progress as RichProgress

    columns = [
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn() if total else TextColumn(""),
        MofNCompleteColumn() if total else TextColumn("{task.completed}"),
        TimeElapsedColumn(),
        TextColumn("[dim]{task.fields[note]}"),
    ]
    console = Console(stderr=True)
    with RichProgress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(label, total=total, note="")
        yield _RichProgress(bar, task)


def echo_json(data: Any) -> None:
    """Print `data` as one indented JSON document on stdout."""
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def display_path(path: Path | str) -> str:
    """A path as the user should read it: relative to the working folder when below it."""
    text = visible_controls(os.fspath(path), keep_layout=False)  # a name cannot forge a line
    if not os.path.isabs(text):
        return text
    try:
        rel = os.path.relpath(text)
    except ValueError:  # another drive on Windows
        return text
    return text if rel.startswith("..") else rel
