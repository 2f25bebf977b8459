"""Output helpers for commands: progress on a terminal, JSON documents, path display.

rich is imported only here (and in `views/`), and only when a progress bar is actually shown:
on a pipe or in tests `progress()` is a no-op and rich stays unloaded.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from trajkit.controls import visible_controls


class Progress:
    """What a command sees of a progress display; this one draws nothing (a pipe, a file, CI)."""

    def advance(self, n: int = 1, *, note: str = "") -> None:
        """Count `n` more items done; `note` is a short text such as the item's name."""

    def echo(self, text: str, *, err: bool = False) -> None:
        """Print a result line (stdout, or stderr with `err`) without gluing it to the bar."""
        click.echo(text, err=err)


class _RichProgress(Progress):
    def __init__(self, bar: Any, task: Any) -> None:
        self._bar = bar
        self._task = task

    def advance(self, n: int = 1, *, note: str = "") -> None:
        self._bar.update(self._task, advance=n, note=note[-40:])

    def echo(self, text: str, *, err: bool = False) -> None:
        if err or is_terminal(sys.stdout):
            # Same screen as the bar: rich clears the bar, prints the line, redraws the bar.
            self._bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            click.echo(text)  # stdout is a pipe or a file: the line goes there untouched

    def count_in_background(self, listing: Callable[[], Iterable[object]]) -> None:
        """Learn the total by counting `listing()` in a thread: the work starts at once, the bar
        shows done/total, percent and time left once the count is in.
        """
        import threading

        def run() -> None:
            try:
                total = sum(1 for _ in listing())
            except Exception:  # noqa: BLE001 - a count is a courtesy; the work reports errors
                return
            self._bar.update(self._task, total=total)

        threading.Thread(target=run, name="trajkit-progress-count", daemon=True).start()


def is_terminal(stream: Any) -> bool:
    """Whether `stream` (sys.stdout, sys.stderr) is an interactive terminal."""
    return bool(getattr(stream, "isatty", lambda: False)())


Total = int | Callable[[], Iterable[object]] | None
"""How many items a run has: known; the listing the run reads, one item per item done, which
is counted in a thread while the work starts (so the total cannot disagree with the work);
or unknown.
"""


@contextmanager
def progress(label: str, *, total: Total = None, enabled: bool = True) -> Iterator[Progress]:
    """The one progress display of every long command, on stderr and only on a terminal.

    It shows `done/total`, the percent and the time left (`total` known or counted), or the
    count and the time spent (unknown); a no-op elsewhere (a pipe, a file, CI), where rich
    is not even imported. The last frame drawn is the final count, so the bar agrees with the
    summary the command prints.
    """
    if not (enabled and is_terminal(sys.stderr)) or os.environ.get("CI"):  # CI: a log file
        yield Progress()
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn
    from rich.progress import Progress as RichProgress

    columns = [
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(bar_width=30),
        MofNCompleteColumn(),
        _rate_column(),
        TextColumn("[dim]{task.fields[note]}"),
    ]
    console = Console(stderr=True)
    with RichProgress(*columns, console=console, transient=True) as bar:
        known = total if isinstance(total, int) else None
        task = bar.add_task(label, total=known, note="")
        shown = _RichProgress(bar, task)
        if callable(total):
            shown.count_in_background(total)
        yield shown


def _rate_column() -> Any:
    """`45%  eta 0:01:20` once the total is known and the rate measured, else the time spent."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class PercentAndTimeLeft(ProgressColumn):
        def render(self, task: Any) -> Text:
            if not task.total:
                return Text(_clock(task.elapsed or 0), style="dim")
            percent = f"{min(100.0, 100 * task.completed / task.total):3.0f}%"
            left = task.time_remaining
            if task.finished or left is None:
                return Text(f"{percent}  {_clock(task.elapsed or 0)}")
            return Text(f"{percent}  eta {_clock(left)}")

    return PercentAndTimeLeft()


def _clock(seconds: float) -> str:
    seconds = int(max(0, seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def echo_json(data: Any, masker: Any = None) -> None:
    """Print `data` as one indented JSON document on stdout (its secrets masked by `masker`)."""
    if masker is not None:
        data = masker.data(data)
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
    ones only say that the clean-up is still running (so it cannot be cut half-way).
    """
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


@contextmanager
def stopping(items: Any) -> Iterator[None]:
    """Close a generator of results when the block ends (its worker processes stop now), not
    at interpreter exit.

    A loop that ends by an exception of its own (a full disk, a closed pipe) leaves the
    generator suspended; its process pool would then be joined at exit, which can hang.
    """
    try:
        yield
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()


QUIET, NORMAL, VERBOSE = -1, 0, 1
"""Verbosity levels (`-q`, none, `-v`); see `verbosity_options` in `cli/_options.py`."""

_COUNT = re.compile(r" \((\d[\d,]*) events?\)")
"""The per-conversation count in a warning ("(110 events)"), summed when warnings are grouped."""

_MAX_RULES = 10_000
"""Distinct warnings held back for grouping; past this many, new ones are printed at once."""


def verbosity() -> int:
    """The current command's `-q`/`-v` level (`NORMAL` outside a command)."""
    ctx = click.get_current_context(silent=True)
    return int(ctx.meta.get("trajkit.verbosity", NORMAL)) if ctx is not None else NORMAL


@dataclass
class _Rule:
    line: str
    """The first occurrence, as printed when it stays the only one."""
    message: str
    """The warning without its per-conversation count."""
    last: str = ""
    places: int = 0
    times: int = 0
    events: int = 0


class Notes:
    """Warnings that repeat over many conversations, said once per rule with a count.

    `add(where, message)` takes one warning about the conversation `where`; `close()` prints,
    for each distinct message (its per-conversation event count aside), the line itself when it
    was seen once, else one line saying in how many conversations (and events).
    With `-v` every line is printed as it comes, nothing grouped; with `-q` none is printed.
    Errors never go through here.
    """

    def __init__(self, echo: Callable[[str], None], *, label: str = "warning") -> None:
        self._echo = echo
        self._label = label
        self._level = verbosity()
        self._rules: dict[str, _Rule] = {}

    def add(self, where: str, message: str, *, line: str | None = None) -> None:
        """One warning `message` about the conversation `where`; `line`: how to print it alone."""
        if self._level == QUIET:
            return
        line = line if line is not None else f"{self._label}: {where}: {message}"
        key = _COUNT.sub("", message)
        rule = self._rules.get(key)
        if self._level == VERBOSE or (rule is None and len(self._rules) >= _MAX_RULES):
            self._echo(line)
            return
        if rule is None:
            rule = self._rules[key] = _Rule(line, key)
        if where != rule.last:  # one conversation's warnings come together
            rule.places, rule.last = rule.places + 1, where
        rule.times += 1
        counted = _COUNT.search(message)
        rule.events += int(counted.group(1).replace(",", "")) if counted else 0

    def close(self) -> None:
        """Print what was held back, one line per rule, in the order first seen."""
        for rule in self._rules.values():
            if rule.times == 1:
                self._echo(rule.line)
                continue
            count = f"{rule.events:,} events in " if rule.events else ""
            if not rule.events and rule.times != rule.places:
                count = f"{rule.times:,} times in "
            self._echo(
                f"{self._label}: {rule.message} ({count}{rule.places:,} conversations; "
                "-v lists each)"
            )
        self._rules.clear()


def masked_note(masker: Any) -> str:
    """What a summary says of `--no-redact` (`cli._options.redact_option`)."""
    if masker is None:
        return "secrets not masked (--no-redact)"
    return f"{masker.count:,} secret(s) masked"


def echo_masked_note(masker: Any) -> None:
    """Say on stderr how many secrets were masked, when any were (commands without a summary)."""
    if masker is not None and masker.count:
        click.echo(f"note: {masked_note(masker)} (--no-redact shows them)", err=True)


_KEY_BYTES = bytes(range(48, 58)) + bytes(range(65, 91)) + bytes(range(97, 123)) + b"_-.+/="
"""Every byte a key, a JSON Web Token or base64 is made of (`trajkit.redact`'s patterns)."""


class MaskedWriter:
    """A binary stream that writes to `out` with secrets masked by `masker` (`SecretMasker`).

    The trailing run of `_KEY_BYTES` of each write waits for the next one (up to 64 KiB), so a
    key cut between two writes is seen whole; `finish()` writes what is left. Bytes the fast
    scan clears are written as they came; the others are masked as UTF-8 text (invalid bytes
    kept as they were).
    """

    def __init__(self, out: Any, masker: Any) -> None:
        self._out, self._masker, self._held = out, masker, b""
        self.flush = out.flush

    def write(self, chunk: bytes) -> int:
        data = self._held + bytes(chunk)
        tail = data[-(1 << 16) - 1 :]  # the run looked for in the tail: no copy of the chunk
        run = len(tail) - len(tail.rstrip(_KEY_BYTES))
        cut = len(data) - run if run <= 1 << 16 else len(data)
        self._held = data[cut:]
        self._out.write(self._mask(data[:cut]))
        return len(chunk)

    def _mask(self, data: bytes) -> bytes:
        return self._masker.raw(data)  # type: ignore[no-any-return]

    def finish(self) -> None:
        """Write what was held back."""
        self._out.write(self._mask(self._held))
        self._held = b""


@contextmanager
def masked_output(out: Any, masker: Any) -> Iterator[Any]:
    """`out` as a `MaskedWriter` (itself when `masker` is None: `--no-redact`), finished and
    flushed when the block ends without an error.
    """
    writer = MaskedWriter(out, masker) if masker is not None else out
    yield writer
    if masker is not None:
        writer.finish()
    out.flush()
