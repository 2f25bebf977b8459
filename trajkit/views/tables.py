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

__all__ = ["format_rows", "print_stats", "sort_rows"]

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


def format_rows(
    rows: list[ConversationRow], *, width: int | None, header: bool = False
) -> Iterator[str]:
    """Aligned lines: id, first and last time, status, events, model, cost, first message.

    With `header`, a first line names the columns (aligned with the rows).
    """
    cells = [[visible_controls(v, keep_layout=False) for v in _cells(r)] for r in rows]
    if not cells:
        return
    titles = list(HEADER[:-1])
    widths = [max(len(c[i]) for c in [*cells, titles]) if header else max(len(c[i]) for c in cells)
              for i in range(len(cells[0]))]  # fmt: skip
    right = {4, 6}  # events and cost are right-aligned
    if header:
        line = "  ".join(
            v.rjust(w) if i in right else v.ljust(w)
            for i, (v, w) in enumerate(zip(titles, widths, strict=True))
        )
        yield f"{line}  {HEADER[-1]}"
    for c, row in zip(cells, rows, strict=True):
        parts = [
            v.rjust(w) if i in right else v.ljust(w)
            for i, (v, w) in enumerate(zip(c, widths, strict=True))
        ]
        line = "  ".join(parts)
        message = " ".join(row.first_message.split())
        if row.title:  # the agent server's title, an evaluation record's instance id
            message = f"{' '.join(row.title.split())}: {message}" if message else row.title
        message = visible_controls(message, keep_layout=False)
        if width is not None:
            room = width - len(line) - 2
            if len(message) > room:
                message = message[: room - 1] + "…" if room >= _MIN_MESSAGE else ""
        yield (line + "  " + message).rstrip()


def _cells(r: ConversationRow) -> list[str]:
    first = _time(r.first_time)
    last = _time(r.last_time)
    if r.first_time and r.last_time and r.first_time[:10] == r.last_time[:10]:
        last = last[11:]  # same day: the clock is enough
    return [
        r.id,
        first or "-",
        last or "-",
        r.status or "-",
        str(r.n_events),
        r.model or "-",
        f"${r.cost:.4f}" if r.cost is not None else "-",
    ]


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
        for name, n in doc[key].items():
            t.add_row(_safe(name), f"{n:,}")
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
