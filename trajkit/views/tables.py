"""Text for `trajkit ls` (aligned lines, no rich) and rich tables for `trajkit stats`.

`format_rows()` aligns the columns over all rows and cuts the first user message (whitespace
collapsed) so each line fits `width`; other columns are never cut (a line is longer than `width`
only when they alone are). `print_stats()` draws the
`CorpusStats.to_dict()` document as tables; rich is imported only there.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from trajkit.controls import visible_controls
from trajkit.views.summary import ConversationRow

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["MISSING", "format_cost", "format_rows", "print_stats", "short_model", "sort_rows"]

_MIN_MESSAGE = 4
"""Below this many columns left, the message is left out rather than cut to nothing."""


def sort_rows(
    rows: list[ConversationRow], key: str, *, reverse: bool = False
) -> list[ConversationRow]:
    """Rows ordered by `key` (time, last, events, cost, status, model, id); missing values last."""
    getters: dict[str, Any] = {
        "time": lambda r: r.first_time,
        "last": lambda r: r.last_time,
        "events": lambda r: r.n_events,
        "cost": lambda r: r.cost,
        "status": lambda r: r.status,
        "model": lambda r: r.model,
        "id": lambda r: r.id,
    }
    get = getters[key]
    present = [r for r in rows if get(r) is not None]
    missing = [r for r in rows if get(r) is None]
    present.sort(key=lambda r: (get(r), r.id), reverse=reverse)
    return present + missing


HEADER = ("ID", "STARTED", "LAST", "STATUS", "EVENTS", "MODEL", "COST", "FIRST MESSAGE")
"""The column names `ls` prints above the rows on a terminal."""

MISSING = "-"
"""The one mark for a value a conversation does not record (no time, model, status or cost)."""

_ROOM = 24
"""Columns the first message should keep at a given width; the other columns give way first."""

_MIN_MODEL = 16
"""A model name is never cut below this many characters."""


def short_model(model: str | None) -> str:
    """A model name without its provider route (`litellm_proxy/anthropic/claude-x` -> `claude-x`)."""
    if not model:
        return MISSING
    return model.rstrip("/").rsplit("/", 1)[-1] or model


def format_rows(
    rows: list[ConversationRow], *, width: int | None, header: bool = False
) -> Iterator[str]:
    """Aligned lines: id, first and last time, status, events, model, cost, first message.

    With `header`, a first line names the columns (aligned with the rows). With a `width`, the
    first message keeps about `_ROOM` columns: when the line would leave it less, the times
    drop their seconds, then the LAST column goes, then the model name is cut (never below
    `_MIN_MODEL`); the message takes what is left and is cut with `…`.
    """
    if not rows:
        return
    layout = _Layout(rows, header=header)
    if width is not None:
        for step in (layout.drop_seconds, layout.drop_last, layout.cut_model):
            if layout.room(width) >= _ROOM:
                break
            step(width)
    yield from layout.lines(rows, width)


class _Layout:
    """The columns of `ls` and their widths, narrowed step by step to leave the message room."""

    def __init__(self, rows: list[ConversationRow], *, header: bool) -> None:
        self.header = header
        self.titles = list(HEADER[:-1])
        self.cells = [_cells(r, seconds=True) for r in rows]
        self.rows = rows
        self._measure()

    def _measure(self) -> None:
        table = [*self.cells, self.titles] if self.header else self.cells
        self.widths = [max(len(c[i]) for c in table) for i in range(len(self.titles))]

    def room(self, width: int) -> int:
        return width - (sum(self.widths) + 2 * len(self.widths))

    def drop_seconds(self, width: int) -> None:
        self.cells = [_cells(r, seconds=False) for r in self.rows]  # before any column goes
        self._measure()

    def drop_last(self, width: int) -> None:
        if "LAST" in self.titles:
            self._drop(self.titles.index("LAST"))
            self._measure()

    def _drop(self, column: int) -> None:
        self.titles.pop(column)
        for c in self.cells:
            c.pop(column)

    def cut_model(self, width: int) -> None:
        column = self.titles.index("MODEL")
        target = max(_MIN_MODEL, self.widths[column] - (_ROOM - self.room(width)))
        for c in self.cells:
            if len(c[column]) > target:
                c[column] = c[column][: target - 1] + "…"
        self._measure()

    def lines(self, rows: list[ConversationRow], width: int | None) -> Iterator[str]:
        right = {self.titles.index("EVENTS"), self.titles.index("COST")}

        def join(values: list[str]) -> str:
            return "  ".join(
                v.rjust(w) if i in right else v.ljust(w)
                for i, (v, w) in enumerate(zip(values, self.widths, strict=True))
            )

        if self.header:
            yield f"{join(self.titles)}  {HEADER[-1]}"
        for c, row in zip(self.cells, rows, strict=True):
            line = join(c)
            message = _message(row)
            if width is not None:
                room = width - len(line) - 2
                if len(message) > room:
                    message = message[: room - 1] + "…" if room >= _MIN_MESSAGE else ""
            yield (line + "  " + message).rstrip()


def _message(row: ConversationRow) -> str:
    message = " ".join(row.first_message.split())
    if row.title:  # the agent server's title, an evaluation record's instance id
        message = f"{' '.join(row.title.split())}: {message}" if message else row.title
    return visible_controls(message, keep_layout=False)


def _cells(r: ConversationRow, *, seconds: bool) -> list[str]:
    size = 19 if seconds else 16
    first = _time(r.first_time)[:size]
    last = _time(r.last_time)[:size]
    if r.first_time and r.last_time and r.first_time[:10] == r.last_time[:10]:
        last = last[11:]  # same day: the clock is enough
    cells = [
        r.id,
        first or MISSING,
        last or MISSING,
        r.status or MISSING,
        str(r.n_events),
        short_model(r.model),
        format_cost(r.cost),
    ]
    return [visible_controls(v, keep_layout=False) for v in cells]


def format_cost(cost: float | None) -> str:
    """Dollars to 4 places; `-` when none is recorded or nothing was spent, never `$0.0000`."""
    if not cost:
        return MISSING
    return "<$0.0001" if cost < 0.0001 else f"${cost:.4f}"


def _time(timestamp: str | None) -> str:
    if not timestamp:
        return ""
    return timestamp[:19].replace("T", " ")


def print_stats(doc: dict[str, Any], console: Console) -> None:
    """Draw a `CorpusStats.to_dict()` document as rich tables."""
    from rich.table import Table

    def table(title: str, *columns: str) -> Table:
        t = Table(title=title, title_justify="left", title_style="bold")
        for i, name in enumerate(columns):
            # Identifiers (models, tools, kinds) wrap at the console's width; never cut.
            t.add_column(name, justify="left" if i == 0 else "right", overflow="fold")
        return t

    console.print(
        f"[bold]{doc['conversations']:,}[/] conversations, "
        f"[bold]{doc['events']['total']:,}[/] events"
    )
    for key, title in (("by_status", "By status"), ("by_model", "By model")):
        t = table(title, title.split()[-1], "conversations")
        names = _shown_names(doc[key], models=key == "by_model")
        for name, n in doc[key].items():
            t.add_row(_safe(names[name]), f"{n:,}")
        console.print(t)
    if doc["resolved_by_model"]:
        t = table("Resolved by model", "model", "graded", "resolved", "rate")
        names = _shown_names(doc["resolved_by_model"], models=True)
        for name, r in doc["resolved_by_model"].items():
            t.add_row(
                _safe(names[name]), f"{r['graded']:,}", f"{r['resolved']:,}", f"{r['rate']:.1%}"
            )
        console.print(t)
    t = table("Events by kind", "kind", "events")
    for name, n in doc["events"]["by_kind"].items():
        t.add_row(_safe(name), f"{n:,}")
    console.print(t)
    t = table("Tool calls", "tool", "calls", "errors", "rejected", "error rate")
    for name, s in doc["tools"].items():
        rate = f"{s['error_rate']:.1%}" if s["error_rate"] is not None else "-"
        t.add_row(_safe(name), f"{s['calls']:,}", f"{s['errors']:,}", f"{s['rejections']:,}", rate)
    console.print(t)
    tok = doc["tokens"]
    cost = doc["cost"]["total"]
    console.print(
        f"Tokens: {tok['prompt']:,} prompt, {tok['completion']:,} completion, "
        f"{tok['cache_read']:,} cache read, {tok['reasoning']:,} reasoning; "
        f"cost: {'$' + format(cost, ',.4f') if cost is not None else '-'}"
    )
    t = table("Per conversation", "", "min", "p50", "p90", "p99", "max", "mean")
    for name, p in doc["per_conversation"].items():
        t.add_row(name, *(_num(p[k]) for k in ("min", "p50", "p90", "p99", "max", "mean")))
    console.print(t)
    t = table("Length distribution (events)", "events", "conversations")
    for bucket, n in doc["length_distribution"].items():
        t.add_row(bucket, f"{n:,}")
    console.print(t)


def _shown_names(counts: dict[str, int], *, models: bool) -> dict[str, str]:
    """Names as the tables show them: `-` for unknown; models without their provider route,
    unless two of them would then read the same.
    """
    shown = {n: MISSING if n == "unknown" else short_model(n) if models else n for n in counts}
    clash = {v for v in shown.values() if list(shown.values()).count(v) > 1}
    return {n: (n if v in clash else v) for n, v in shown.items()}


def _safe(name: str) -> str:
    """A name from conversation data, shown as text: no markup, no control characters."""
    from rich.markup import escape

    return escape(visible_controls(str(name), keep_layout=False))


def _num(value: float | None) -> str:
    if value is None:
        return "-"
    if float(value).is_integer():
        return f"{int(value):,}"
    if abs(value) < 1:
        return f"{value:.4f}"
    return f"{value:,.2f}" if abs(value) < 100 else f"{value:,.1f}"
