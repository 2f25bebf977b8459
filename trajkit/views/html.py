"""`trajkit view`: one self-contained HTML report of a conversation (also `trajkit serve`'s page).

The file needs nothing but itself: the stylesheet and script (`assets/report.css`,
`assets/report.js`, package data) are inlined, images are `data:` URLs already present in the
events (an `http(s)` image is shown as a link and never loaded), and a strict
Content-Security-Policy forbids every network fetch and every script or style without the
page's nonce (`default-src 'none'; script-src 'nonce-…'; style-src 'nonce-…'; img-src data:`).

Design, so that a conversation of thousands of events opens fast:
- The header (model, status, events, errors, duration, tokens, cost, outcome, the final diff)
  is static HTML written here.
- The events are embedded once, as JSON (`Entry` records from `entries.py`), in a
  `<script type="application/json">` block; `<` is written `\\u003c` so no text can close it.
- The script renders one page of entries at a time (`PAGE_SIZE`), draws the timeline on a
  canvas, folds long texts, filters by the search box and the errors-only switch, and jumps
  between errors.
- Code is highlighted here with pygments (terminal commands, created files by their name, edits
  as unified diffs from difflib, JSON); agent Markdown is rendered here with markdown-it-py
  (raw HTML disabled) and the result sanitised with nh3 (ammonia); the script only inserts
  the prepared HTML.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.lexers.special import TextLexer
from pygments.util import ClassNotFound

from trajkit.views.entries import (
    Entry,
    add_step_times,
    iter_entries,
    seconds_between,
    usage_by_response,
)
from trajkit.views.load import LoadedConversation
from trajkit.views.page import asset, content_security_policy, new_nonce
from trajkit.views.summary import conversation_totals

__all__ = [
    "PAGE_SIZE",
    "REMOTE_AFTER",
    "asset",
    "content_security_policy",
    "conversation_to_html",
    "entry_data",
    "markdown_to_html",
    "new_nonce",
    "report_data",
    "stub_data",
]

PAGE_SIZE = 100
"""Entries drawn per page."""
REMOTE_AFTER = 2 * PAGE_SIZE
"""A served conversation longer than this (entries) is sent page by page."""
_MAX_HIGHLIGHT = 200_000
"""Code longer than this (characters) is shown plain: highlighting it would only cost time."""
_MAX_MARKDOWN = 100_000
"""Agent text longer than this is shown plain."""


def conversation_to_html(
    loaded: LoadedConversation,
    *,
    nonce: str | None = None,
    back: str | None = None,
    live: str | None = None,
    remote: str | None = None,
) -> str:
    """The whole report as one HTML document.

    `back` is a link to the index it belongs to (site or server); `live` the URL of the
    server-sent events that carry new entries; `remote` the URL that gives full entries by
    position (`?at=3,4,5`): a conversation longer than `REMOTE_AFTER` entries is then served
    page by page, its later entries embedded as stubs (`stub_data`). The server sets these,
    with a per-request `nonce`.
    """
    nonce = nonce or new_nonce()
    paged = remote is not None and max(len(loaded.items), loaded.total_events) > REMOTE_AFTER
    edits = _FileEdits()
    entries: list[Entry] = []
    for entry in iter_entries(edits.watch(loaded.iter_items()), usage_by_response(loaded.state)):
        if paged and len(entries) >= PAGE_SIZE:  # drawn as a stub: drop what a stub lacks
            entry.text, entry.reasoning, entry.args, entry.raw = "", "", None, None
            entry.code, entry.images, entry.notes = [], [], []
        entries.append(entry)
    add_step_times(entries)
    data = report_data(loaded, entries, stubs_after=PAGE_SIZE if paged else None)
    if live:
        data["live"] = live
    if paged:
        data["remote"] = remote
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    title = f"trajkit · {loaded.id}"
    csp = content_security_policy(nonce, connect=bool(live))
    return "".join(
        [
            '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
            f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n',
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
            '<meta name="referrer" content="no-referrer">\n',
            f"<title>{html.escape(title)}</title>\n",
            f'<style nonce="{nonce}">\n{asset("theme.css")}\n{asset("report.css")}\n',
            f"{pygments_css()}\n</style>\n",
            "</head>\n<body>\n",
            _header_html(loaded, entries, edits.diff(loaded), back=back, live=bool(live)),
            '<main id="transcript" aria-live="polite"></main>\n',
            '<nav class="pager" id="pager-bottom"></nav>\n',
            "<noscript><p>This report needs JavaScript to show the events.</p></noscript>\n",
            f'<script type="application/json" id="trajkit-data">{payload}</script>\n',
            f'<script nonce="{nonce}">\n{asset("report.js")}\n</script>\n</body>\n</html>\n',
        ]
    )


def report_data(
    loaded: LoadedConversation,
    entries: list[Entry] | None = None,
    *,
    stubs_after: int | None = None,
) -> dict[str, Any]:
    """The JSON document the report's script reads: ids, page size and compact entries
    (entries from position `stubs_after` on as stubs, when given).
    """
    if entries is None:
        entries = list(iter_entries(loaded.items, usage_by_response(loaded.state)))
        add_step_times(entries)
    cut = len(entries) if stubs_after is None else stubs_after
    return {
        "id": loaded.id,
        "page_size": PAGE_SIZE,
        "total_events": loaded.total_events,
        "entries": [entry_data(e) for e in entries[:cut]] + [stub_data(e) for e in entries[cut:]],
    }


_STUB_FIELDS = ("index", "role", "kind", "time", "title", "tool", "call_id", "error",
                "exit_code", "run_s", "step_s")  # fmt: skip


def stub_data(entry: Entry) -> dict[str, Any]:
    """What the script needs of an entry not on the page: timeline, errors, pager, timing."""
    data = {k: getattr(entry, k) for k in _STUB_FIELDS}
    if entry.usage is not None:
        data["usage"] = dict(entry.usage.__dict__)
    data["stub"] = True
    return {k: v for k, v in data.items() if v is not False and v not in (None, "", [])}


def entry_data(entry: Entry) -> dict[str, Any]:
    """One entry as the script reads it: highlighted code and rendered Markdown added."""
    data = entry.to_dict()
    data["code"] = [
        {**block, "html": _highlight(block["text"], block["language"])} for block in data["code"]
    ]
    if entry.usage is None:
        data.pop("usage")
    if entry.text and entry.role in ("agent", "action") and len(entry.text) <= _MAX_MARKDOWN:
        data["md"] = markdown_to_html(entry.text)
    # Leave out empty values: they are most keys of most entries, and the JS treats absent as empty.
    return {k: v for k, v in data.items() if v is not False and v not in (None, "", [])}


def _header_html(
    loaded: LoadedConversation,
    entries: list[Entry],
    final_diff: tuple[str, str],
    *,
    back: str | None,
    live: bool,
) -> str:
    t = conversation_totals(loaded.state)
    esc = html.escape
    n_errors = sum(1 for e in entries if e.error)
    times = [e.time for e in entries if e.time]
    duration = seconds_between(min(times), max(times)) if times else None
    facts: list[tuple[str, str, str]] = [
        ("model", t.model or "?", ""),
        ("status", t.status or "?", ""),
        ("events", f'<span id="event-count">{loaded.total_events:,}</span>', "html"),
        ("errors", f'<span id="error-count">{n_errors:,}</span>', "html"),
        ("duration", _seconds(duration), ""),
        ("tokens", f"{t.prompt_tokens:,} prompt · {t.completion_tokens:,} completion", ""),
        ("cost", f"${t.cost:.4f}" if t.cost is not None else "?", ""),
    ]
    if loaded.outcome:
        facts.append(("outcome", loaded.outcome, ""))
    facts.append(
        ("source", f"{loaded.path}" + ("" if loaded.origin == "v1" else f" ({loaded.origin})"), "")
    )
    back_link = f'<a class="back" href="{esc(back)}">← all conversations</a>' if back else ""
    out = [
        '<header id="top">\n',
        f'<h1>{back_link}Conversation <code id="conversation-id">{esc(loaded.id)}</code></h1>\n',
        '<dl class="facts">',
        *(_fact(k, v, kind, loaded.outcome, n_errors) for k, v, kind in facts),
        "</dl>\n",
    ]
    if loaded.problems:
        out.append('<ul class="problems">')
        out.extend(f"<li>skipped: {esc(p)}</li>" for p in loaded.problems)
        out.append("</ul>\n")
    if loaded.total_events == 0:
        out.append('<p class="problems">This conversation has no events.</p>\n')
    diff, label = final_diff
    if diff:
        out.append(
            f'<details class="final-diff" id="final-diff"><summary>{esc(label)}</summary>'
            f"{_highlight(diff, 'diff')}</details>\n"
        )
    out.append(
        '</header>\n<div id="bar">\n<div class="toolbar"><input id="search" type="search" '
        'placeholder="Search events… (/)" aria-label="Search events" autocomplete="off">'
        '<label class="errors-only"><input type="checkbox" id="errors-only"> errors only</label>'
        '<button type="button" id="prev-error" title="Previous error (p)">◀ error</button>'
        '<button type="button" id="next-error" title="Next error (n)">error ▶</button>'
        '<span id="count"></span>'
        + ('<span id="live-state">connecting…</span>' if live else "")
        + "</div>\n"
        '<canvas id="timeline" height="28" aria-label="Timeline: one bar per event"></canvas>\n'
        '<nav class="pager" id="pager-top"></nav>\n</div>\n'
    )
    return "".join(out)


def _fact(key: str, value: str, kind: str, outcome: str | None, n_errors: int) -> str:
    cls = f"fact fact-{key}"
    if key == "errors" and n_errors:
        cls += " has"
    if key == "outcome" and outcome:
        cls += " good" if outcome == "resolved" else " bad"
    shown = value if kind == "html" else html.escape(value)
    return f'<div class="{cls}"><dt>{key}</dt><dd>{shown}</dd></div>'


class _FileEdits:
    """The workspace's final change, gathered while the items pass (`watch`): the evaluation's
    `git_patch`, else the file editor's edits folded into one diff per file (first content
    seen -> last).
    """

    def __init__(self) -> None:
        self.first: dict[str, str] = {}
        self.last: dict[str, str] = {}

    def watch(self, items: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
        from trajkit.events import FileEditorObservation, ObservationEvent

        for item in items:
            ev = item[1]
            obs = ev.observation if isinstance(ev, ObservationEvent) else None
            if isinstance(obs, FileEditorObservation) and obs.path is not None:
                if obs.old_content is not None:
                    self.first.setdefault(obs.path, obs.old_content)
                if obs.new_content is not None:
                    self.last[obs.path] = obs.new_content
            yield item

    def diff(self, loaded: LoadedConversation) -> tuple[str, str]:
        """`(diff, label)`: the evaluation's `git_patch` if any, else the edits; `("", "")`."""
        from trajkit.views.entries import unified_diff

        if loaded.patch:
            return loaded.patch.rstrip("\n"), "final patch (git_patch of the evaluation record)"
        first = self.first
        diffs = [
            unified_diff(first.get(path, ""), new, path)
            for path, new in self.last.items()
            if first.get(path, "") != new
        ]
        n = len(diffs)
        label = f"final diff of the files edited ({n} file{'s' if n != 1 else ''})"
        return ("\n".join(diffs), label) if diffs else ("", "")


def markdown_to_html(text: str) -> str:
    """Markdown (CommonMark + tables + strikethrough, raw HTML off) as sanitised HTML."""
    import nh3

    return str(
        nh3.clean(
            _markdown().render(text),
            tags=_MD_TAGS,
            attributes={
                "a": {"href", "title"},
                "code": {"class"},
                "th": {"align"},
                "td": {"align"},
            },
            url_schemes={"http", "https", "mailto"},
            link_rel="noopener noreferrer nofollow",
        )
    )


_MD_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "s", "code",
    "pre", "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip


@lru_cache(maxsize=1)
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(
        ["table", "strikethrough"]
    )


def _seconds(s: float | None) -> str:
    if s is None:
        return "?"
    if s < 60:
        return f"{s:.1f} s"
    m, sec = divmod(round(s), 60)
    return f"{m} min {sec} s" if m < 60 else f"{m // 60} h {m % 60} min"


def _highlight(text: str, language: str) -> str:
    if not text:
        return ""
    if len(text) > _MAX_HIGHLIGHT:
        return f'<pre class="hl">{html.escape(text)}</pre>'
    return str(highlight(text, _lexer(language), _FORMATTER))


_FORMATTER = HtmlFormatter(cssclass="hl", wrapcode=False)


@lru_cache(maxsize=256)
def _lexer(language: str) -> Lexer:
    try:
        if language.startswith("file:"):
            return get_lexer_for_filename(language[5:], stripnl=False)
        return get_lexer_by_name(language, stripnl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False)


@lru_cache(maxsize=1)
def pygments_css() -> str:
    """Highlighting styles: pygments' default, and github-dark under the dark theme."""
    light = HtmlFormatter(style="default").get_style_defs(".hl")
    dark = HtmlFormatter(style="github-dark").get_style_defs(".hl")
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}"
