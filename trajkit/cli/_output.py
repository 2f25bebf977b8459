"""Output helpers for commands: progress on a terminal, JSON documents, path display.

rich is imported only here (and in `views/`), and only when a progress bar is actually shown:
on a pipe or in tests `progress()` is a no-op and rich stays unloaded.
"""

from __future__ import annotations

import contextlib
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

    def echo(self, text: str, *, err: bool = False) -> None:
        """Print a result line (stdout, or stderr with `err`) without gluing it to the bar."""


class _NoProgress:
    def advance(self, n: int = 1, *, note: str = "") -> None:
        return None

    def echo(self, text: str, *, err: bool = False) -> None:
        click.echo(text, err=err)


class _RichProgress:
    def __init__(self, bar: Any, task: Any) -> None:
        self._bar = bar
        self._task = task

    def advance(self, n: int = 1, *, note: str = "") -> None:
        self._bar.update(self._task, advance=n, note=note[-60:])

    def echo(self, text: str, *, err: bool = False) -> None:
        if err or _is_terminal(sys.stdout):
            # Same screen as the bar: rich clears the bar, prints the line, redraws the bar.
            self._bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            click.echo(text)  # stdout is a pipe or a file: the line goes there untouched


def _is_terminal(stream: Any) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)())


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


def check_output_file(path: Path, *, overwrite: bool) -> None:
    """Refuse, before any work, an output file that cannot be written (see `OutputError`)."""
    from trajkit.errors import OutputError, OutputExists

    if path.is_dir():
        raise OutputError(path, "is a folder; give a file name (e.g. out.json)")
    if path.exists() and not overwrite:
        raise OutputExists(path)
    _check_parent(path)


def check_output_folder(path: Path) -> None:
    """Refuse an output folder that is a file, or below a file (missing parents are created)."""
    from trajkit.errors import OutputError

    if path.exists() and not path.is_dir():
        raise OutputError(path, "is a file; choose a folder")
    for parent in Path(os.path.abspath(path)).parents:
        if parent.exists():
            if not parent.is_dir():
                raise OutputError(path, f"{display_path(parent)} is not a folder")
            return


def _check_parent(path: Path) -> None:
    from trajkit.errors import OutputError

    parent = Path(os.path.abspath(path)).parent
    if not parent.exists():
        raise OutputError(
            path, f"the folder {display_path(parent)} does not exist; create it first"
        )
    if not parent.is_dir():
        raise OutputError(path, f"{display_path(parent)} is not a folder")


@contextmanager
def writing(path: Path | str) -> Iterator[None]:
    """Turn an OS error raised while writing `path` into an `OutputError` naming `path`."""
    from trajkit.errors import OutputError

    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError.from_os(path, exc) from None


@contextmanager
def new_folder_removed_if_empty(path: Path) -> Iterator[None]:
    """When `path` does not exist yet: remove it afterwards if the block left it empty."""
    created = not os.path.lexists(path)
    try:
        yield
    finally:
        if created:
            with contextlib.suppress(OSError):
                path.rmdir()  # only an empty folder: nothing to publish


def select_paths(paths: Any, filters: Any) -> list[Any]:
    """PATH... narrowed to the conversations `filters` keep (as given when there are none)."""
    from trajkit.filters import filter_paths

    return [path for path, reason in filter_paths(paths, filters) if reason is None]


@contextmanager
def stop_on_ctrl_c(what: str) -> Iterator[None]:
    """The first Ctrl-C says `stopping <what>...` at once and raises `KeyboardInterrupt`; later
    ones only say that the clean-up is still running (so it cannot be cut half-way)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stopping = False

    def on_sigint(signum: int, frame: Any) -> None:
        nonlocal stopping
        if stopping:
            click.echo("still stopping: cleaning up, please wait", err=True)
            return
        stopping = True
        click.echo(f"stopping {what}...", err=True)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def close_iterator(items: Any) -> None:
    """Close a generator of results now (its worker processes stop), not at interpreter exit.

    A loop that ends by an exception of its own (a full disk, a closed pipe) leaves the
    generator suspended; its process pool would then be joined at exit, which can hang.
    """
    close = getattr(items, "close", None)
    if close is not None:
        close()
