"""`trajkit inspect`: a conversation drawn in the terminal with rich.

Layout: a header (id, model, status, events, tokens, cost), then one block per entry: a rule
naming the position, role, tool, time and, on the first event of an LLM response, its tokens
and cost; then the body. Messages are plain text; reasoning is dimmed; commands, file edits and
diffs are syntax-highlighted; tool results longer than `FOLD_LINES` lines are folded to their
head and tail unless `full`; errors and rejections are red; condensations magenta; unknown
kinds are printed as raw JSON. On a pipe the same text is printed without colour.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.rule import Rule
from rich.syntax import Syntax
from rich.text import Text

from trajkit.controls import safe_entry, visible_controls
from trajkit.views.entries import (
    CodeBlock,
    Entry,
    Usage,
    iter_entries,
    seconds_between,
    usage_by_response,
)
from trajkit.views.load import LoadedConversation
from trajkit.views.summary import Totals, conversation_totals
from trajkit.views.tables import MISSING, format_cost

__all__ = ["FOLD_LINES", "page_conversation", "print_conversation", "render_conversation"]

FOLD_LINES = 24
"""Longer bodies are folded to their first and last lines unless `full` is asked for."""
_HEAD, _TAIL = 14, 6
MAX_CHARS = 20_000
"""A value longer than this is cut (with a note) unless `full` is asked for."""
MAX_CHARS_FULL = 1_000_000
"""Even with `full`, a value is cut here: rendering is then bounded (a 50 MB tool output took
rich 13 minutes and 950 MB); the note says where the whole value is."""
MAX_HIGHLIGHT = 200_000
"""Longer code is shown without syntax highlighting (pygments is the slow part)."""

_ROLE_STYLE = {
    "system": "bold blue",
    "user": "bold cyan",
    "agent": "bold green",
    "action": "bold yellow",
    "observation": "bold white",
    "error": "bold red",
    "rejection": "bold red",
    "condensation": "bold magenta",
    "status": "dim",
    "unknown": "bold blue",
    "broken": "bold red reverse",
}


def print_conversation(loaded: LoadedConversation, console: Console, *, full: bool = False) -> None:
    """Print the header and every entry of `loaded` on `console`.

    Off a terminal, each block is printed as plain text with trailing spaces removed. The
    header is never wrapped (a long path stays on one line).
    """
    for n, renderable in enumerate(render_conversation(loaded, full=full)):
        soft = n == 0
        if console.is_terminal:
            console.print(renderable, soft_wrap=soft)
            continue
        with console.capture() as capture:
            console.print(renderable, soft_wrap=soft)
        lines = capture.get().split("\n")
        console.file.write("\n".join(line.rstrip() for line in lines))


def page_conversation(
    loaded: LoadedConversation, console: Console, *, full: bool = False, pager: str | None = None
) -> None:
    """Stream the transcript into a pager (`$PAGER`, else `less -R`) as it is rendered.

    The pager shows the first screen at once, and quitting it stops the rendering (the broken
    pipe ends the loop), where rich's own pager would render everything before showing anything.
    Without a pager program, prints to `console`.
    """
    argv = shlex.split(pager or os.environ.get("PAGER") or "less -R")
    if not argv or shutil.which(argv[0]) is None:
        print_conversation(loaded, console, full=full)
        return
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    stream = io.TextIOWrapper(proc.stdin, encoding="utf-8", errors="replace")
    paged = _PipeConsole(
        file=stream,
        force_terminal=True,
        color_system=console.color_system,  # type: ignore[arg-type]
        width=console.width,
        highlight=False,
    )
    try:
        print_conversation(loaded, paged, full=full)
        stream.close()
    except BrokenPipeError:  # the reader quit the pager early
        with contextlib.suppress(OSError):
            stream.close()  # flushing the rest fails again; the pipe is closed all the same
    finally:
        proc.wait()


class _PipeConsole(Console):
    """A console writing into a pager's pipe: a closed pipe raises `BrokenPipeError`.

    rich's default answer to a broken pipe (`Console.on_broken_pipe`) points the process's
    stdout at /dev/null and raises `SystemExit(1)`, which is right for a console on stdout but
    not for a pager the user quit: the command must stop rendering and exit as usual.
    """

    def on_broken_pipe(self) -> None:
        self.quiet = True  # drop whatever is still buffered
        raise BrokenPipeError("the pager was closed")


def render_conversation(
    loaded: LoadedConversation, *, full: bool = False
) -> Iterator[RenderableType]:
    """Renderables for the header and each entry, in order (streamed)."""
    yield _header(loaded)
    usage = usage_by_response(loaded.state)
    for entry in iter_entries(loaded.items, usage):
        yield _entry(safe_entry(entry), full=full)  # control characters shown, not obeyed
    if not loaded.items:
        yield Text("(no events to show)", style="dim")


def _totals(loaded: LoadedConversation) -> Totals:
    t = conversation_totals(loaded.state)
    meta = loaded.meta
    if meta is not None:  # the agent server's meta.json fills what the base state lacks
        t.model = t.model or meta.model
        t.cost = t.cost if t.cost is not None else meta.cost
        if not t.prompt_tokens and not t.completion_tokens:
            t.prompt_tokens = meta.prompt_tokens or 0
            t.completion_tokens = meta.completion_tokens or 0
    return t


def conversation_summary(loaded: LoadedConversation) -> dict[str, Any]:
    """What `inspect` shows above the events, as data (`inspect --json`, `trajkit.inspect/1`)."""
    from collections import Counter

    t = _totals(loaded)
    meta = loaded.meta
    times = [ts for _, ev in loaded.items if (ts := getattr(ev, "timestamp", ""))]
    kinds = Counter(getattr(ev, "kind", "unreadable") for _, ev in loaded.items)
    shown = [loaded.items[0][0], loaded.items[-1][0]] if loaded.items else None
    return {
        "schema": "trajkit.inspect/1",
        "id": loaded.id,
        "path": str(loaded.path),
        "origin": loaded.origin,
        "title": meta.title if meta is not None else None,
        "model": t.model,
        "status": t.status,
        "events": loaded.total_events,
        "shown": shown,
        "errors": sum(1 for e in iter_entries(loaded.items) if e.error),
        "first_time": min(times) if times else None,
        "last_time": max(times) if times else None,
        "duration_s": seconds_between(min(times), max(times)) if times else None,
        "tokens": {"prompt": t.prompt_tokens, "completion": t.completion_tokens},
        "cost": t.cost,
        "outcome": loaded.outcome,
        "created_at": meta.created_at if meta is not None else None,
        "updated_at": meta.updated_at if meta is not None else None,
        "tags": dict(meta.tags) if meta is not None else {},
        "kinds": dict(sorted(kinds.items())),
        "notes": list(loaded.notes),
    }


def _header(loaded: LoadedConversation) -> RenderableType:
    facts = conversation_summary(loaded)
    text = Text()
    text.append(f"Conversation {visible_controls(loaded.id, keep_layout=False)}\n", style="bold")
    rows = [("title", facts["title"])] if facts["title"] else []
    seconds = facts["duration_s"]
    rows += [
        ("path", str(loaded.path) + ("" if loaded.origin == "v1" else f"  [{loaded.origin}]")),
        ("model", facts["model"] or MISSING),
        ("status", facts["status"] or MISSING),
        ("events", f"{loaded.total_events:,}" + _range_note(loaded)),
        ("errors", str(facts["errors"])),
        ("duration", MISSING if seconds is None else f"{seconds:.1f}s"),
        ("tokens", _tokens(facts["tokens"])),
        ("cost", format_cost(facts["cost"])),
    ]
    if facts["created_at"] or facts["updated_at"]:
        created, updated = facts["created_at"] or MISSING, facts["updated_at"] or MISSING
        rows.append(("created", f"{created}, updated {updated}"))
    if facts["tags"]:
        rows.append(("tags", ", ".join(f"{k}={v}" for k, v in sorted(facts["tags"].items()))))
    if loaded.outcome:
        rows.append(("outcome", loaded.outcome))
    for key, value in rows:
        text.append(f"  {key:<7}" if len(key) < 7 else f"  {key} ", style="dim")
        text.append(visible_controls(value, keep_layout=False) + "\n")
    return text


def _tokens(tokens: dict[str, int]) -> str:
    if not (tokens["prompt"] or tokens["completion"]):
        return MISSING  # no usage recorded: the one mark, not "0 prompt, 0 completion"
    return f"{tokens['prompt']:,} prompt, {tokens['completion']:,} completion"


def _range_note(loaded: LoadedConversation) -> str:
    if not loaded.items or len(loaded.items) == loaded.total_events:
        return ""
    first, last = loaded.items[0][0], loaded.items[-1][0]
    return f" (showing {first}–{last})"


def _entry(entry: Entry, *, full: bool) -> RenderableType:
    parts: list[RenderableType] = [_title(entry)]
    body: list[RenderableType] = []
    if entry.reasoning:
        body.append(_text(_fold(entry.reasoning, full), style="dim italic"))
    if entry.text:
        style = "red" if entry.error else ("magenta" if entry.role == "condensation" else "")
        if entry.role == "system":
            body.append(_text(_fold(entry.text, full, head=6, tail=0), style="dim"))
        else:
            body.append(
                _text(_fold(entry.text, full or entry.role in ("user", "agent")), style=style)
            )
    for block in entry.code:
        if full or not block.detail:
            body.append(_code(block, full))
    if entry.args and (entry.args_primary or full):
        body.append(_code(CodeBlock("arguments", "json", entry.args), full))
    for url in entry.images:
        body.append(Text(f"[image] {_short_url(url)}", style="cyan"))
    for note in entry.notes:
        body.append(Text(note, style="dim"))
    if entry.raw:
        body.append(_code(CodeBlock("raw JSON", "json", entry.raw), full))
    if body:
        parts.append(Padding(Group(*body), (0, 0, 0, 2), expand=False))
    return Group(*parts)


def _title(entry: Entry) -> Rule:
    style = _ROLE_STYLE.get(entry.role, "")
    if entry.error and entry.role in ("observation", "status", "action"):
        style = "bold red"  # a failed tool result, a non-zero exit code, a failed hook
    label = f"#{entry.index} {entry.role}"
    if entry.role in ("action", "observation") and entry.tool:
        label += f" · {entry.tool}"
    elif entry.title and entry.title != entry.role:
        label += f" · {entry.title}"
    if entry.error and entry.role == "observation":
        label += " · ERROR"
    if entry.exit_code is not None and entry.exit_code != 0:
        label += f" · exit {entry.exit_code}"
    if entry.run_s is not None:
        label += f" · ran {entry.run_s:.1f}s"
    if entry.time:
        label += f" · {_clock(entry.time)}"
    if entry.usage is not None:
        label += f" · {_usage(entry.usage)}"
        if entry.usage.latency is not None:
            label += f" · LLM {entry.usage.latency:.1f}s"
    return Rule(Text(label, style=style), align="left", style=style if entry.error else "dim")


def _code(block: CodeBlock, full: bool) -> RenderableType:
    text = _fold(block.text.rstrip("\n"), full)
    lexer = block.language
    if lexer.startswith("file:"):
        lexer = Syntax.guess_lexer(lexer[5:], code=text)
    label = Text(block.label, style="dim")
    if not text:
        return label
    if lexer == "bash" and "\n" not in text:
        return Text.assemble(("$ " if block.label == "command" else "> ", "dim"), (text, "bold"))
    if len(text) > MAX_HIGHLIGHT:
        return Group(label, Text(text))
    syntax = Syntax(text, lexer, theme="ansi_dark", word_wrap=True, background_color="default")
    return Group(label, syntax)


_LONG_TEXT = 32_768
"""Texts longer than this are rendered in pieces (see `_LongText`)."""


def _text(text: str, *, style: str = "") -> RenderableType:
    return Text(text, style=style) if len(text) <= _LONG_TEXT else _LongText(text, style)


class _LongText:
    """A long text rendered as pieces of whole wrapped rows, so the work stays linear.

    rich renders one `Text` as one segment and then splits it at every newline of the wrapped
    result, copying the rest of the segment each time: quadratic in the text's length (a 4 M
    character line took 19 s). Pieces hold whole lines; a line longer than a piece is cut at
    a multiple of the width it is given (known only at render time), so a line without
    spaces wraps exactly as before (with spaces, the rows next to a cut may break earlier).
    """

    def __init__(self, text: str, style: str) -> None:
        self.text = text
        self.style = style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        step = max(options.max_width, 1) * 64
        piece: list[str] = []
        size = 0
        for line in self.text.split("\n"):
            if len(line) > step:
                if piece:
                    yield Text("\n".join(piece), style=self.style)
                    piece, size = [], 0
                start = 0
                while start < len(line):
                    end = start + step
                    if end < len(line):  # cut after a space when there is one: words stay whole
                        space = line.rfind(" ", start + step // 2, end)
                        end = space + 1 if space >= 0 else end
                    yield Text(line[start:end], style=self.style)
                    start = end
                continue
            piece.append(line)
            size += len(line) + 1
            if size >= step:
                yield Text("\n".join(piece), style=self.style)
                piece, size = [], 0
        if piece:
            yield Text("\n".join(piece), style=self.style)


def _fold(text: str, full: bool, *, head: int = _HEAD, tail: int = _TAIL) -> str:
    text = _cut(text.rstrip("\n"), MAX_CHARS_FULL if full else MAX_CHARS, full)
    if full or text.count("\n") < max(FOLD_LINES, head + tail + 1):
        return text
    lines = text.split("\n")
    hidden = len(lines) - head - tail
    notice = f"… {hidden} more lines folded (--full shows them) …"
    return "\n".join([*lines[:head], notice, *(lines[-tail:] if tail else [])])


def _cut(text: str, limit: int, full: bool) -> str:
    """`text` cut to about `limit` characters (its start and end) with a note in between."""
    if len(text) <= limit:
        return text
    keep = limit // 2
    hidden = len(text) - 2 * keep
    where = (
        "the whole value is in the event file (trajkit convert or any JSON reader shows it)"
        if full
        else "--full shows up to 1,000,000"
    )
    notice = f"\n… {hidden:,} more characters not shown ({len(text):,} in all; {where}) …\n"
    return text[:keep] + notice + text[-keep:]


def _usage(u: Usage) -> str:
    text = f"{u.prompt_tokens:,} in / {u.completion_tokens:,} out"
    if u.cost is not None:
        text += f" · ${u.cost:.4f}"
    return text


def _clock(timestamp: str) -> str:
    # ISO "2026-11-29T08:53:45.003179" -> "08:53:45"
    return timestamp[11:19] if len(timestamp) >= 19 else timestamp


def _short_url(url: str) -> str:
    if url.startswith("data:"):
        head = url.split(",", 1)[0]
        return f"{head},… ({len(url):,} characters)"
    return url
