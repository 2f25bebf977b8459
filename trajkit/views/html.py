"""`trajkit view`: one self-contained HTML report of a conversation.

The file needs nothing but itself: styles and script are inline, images are `data:` URLs
already present in the events (an `http(s)` image is shown as a link and never loaded), and a
Content-Security-Policy forbids every network fetch (`default-src 'none'; img-src data:`).

Design, so that a conversation of thousands of events opens fast:
- The header (model, status, tokens, cost, problems) is static HTML written here.
- The events are embedded once, as JSON (`Entry` records from `entries.py`), in a
  `<script type="application/json">` block; `<` is written `\\u003c` so no text can close it.
- The script renders one page of entries at a time (`PAGE_SIZE`), draws the timeline on a
  canvas (one bar per event, coloured by role; a click jumps to the event), folds long texts to
  their first lines behind a "Show all" button, and filters entries by the search box.
- Code is highlighted here with pygments (terminal commands, created files by their name, edits
  as unified diffs from difflib, JSON); the script only inserts the prepared HTML.
"""

from __future__ import annotations

import html
import json
from functools import lru_cache
from typing import Any

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.lexers.special import TextLexer
from pygments.util import ClassNotFound

from trajkit.views._report_assets import REPORT_CSS, REPORT_JS
from trajkit.views.entries import Entry, iter_entries, usage_by_response
from trajkit.views.load import LoadedConversation
from trajkit.views.summary import conversation_totals

__all__ = ["PAGE_SIZE", "conversation_to_html", "report_data"]

PAGE_SIZE = 100
"""Entries drawn per page."""
_MAX_HIGHLIGHT = 200_000
"""Code longer than this (characters) is shown plain: highlighting it would only cost time."""
_CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
    "script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
)


def conversation_to_html(loaded: LoadedConversation) -> str:
    """The whole report as one HTML document."""
    data = report_data(loaded)
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    title = f"trajkit · {loaded.id}"
    return "".join(
        [
            '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n',
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
            '<meta name="referrer" content="no-referrer">\n',
            f"<title>{html.escape(title)}</title>\n",
            f"<style>\n{REPORT_CSS}\n{_pygments_css()}\n</style>\n</head>\n<body>\n",
            _header_html(loaded),
            '<main id="transcript" aria-live="polite"></main>\n',
            '<nav class="pager" id="pager-bottom"></nav>\n',
            "<noscript><p>This report needs JavaScript to show the events.</p></noscript>\n",
            f'<script type="application/json" id="trajkit-data">{payload}</script>\n',
            f"<script>\n{REPORT_JS}\n</script>\n</body>\n</html>\n",
        ]
    )


def report_data(loaded: LoadedConversation) -> dict[str, Any]:
    """The JSON document the report's script reads: ids, page size and compact entries."""
    usage = usage_by_response(loaded.state)
    return {
        "id": loaded.id,
        "page_size": PAGE_SIZE,
        "total_events": loaded.total_events,
        "entries": [_entry_data(e) for e in iter_entries(loaded.items, usage)],
    }


def _entry_data(entry: Entry) -> dict[str, Any]:
    data = entry.to_dict()
    data["code"] = [
        {**block, "html": _highlight(block["text"], block["language"])} for block in data["code"]
    ]
    if entry.usage is None:
        data.pop("usage")
    # Leave out empty values: they are most keys of most entries, and the JS treats absent as empty.
    return {k: v for k, v in data.items() if v not in (None, "", [], False) or k == "index"}


def _header_html(loaded: LoadedConversation) -> str:
    t = conversation_totals(loaded.state)
    esc = html.escape
    facts = [
        ("model", t.model or "?"),
        ("status", t.status or "?"),
        ("events", f"{loaded.total_events:,}"),
        ("tokens", f"{t.prompt_tokens:,} prompt · {t.completion_tokens:,} completion"),
        ("cost", f"${t.cost:.4f}" if t.cost is not None else "?"),
        ("source", f"{loaded.path}" + ("" if loaded.origin == "v1" else f" ({loaded.origin})")),
    ]
    out = [
        '<header id="top">\n',
        f'<h1>Conversation <code id="conversation-id">{esc(loaded.id)}</code></h1>\n',
        '<dl class="facts">',
        *(f'<div class="fact fact-{k}"><dt>{k}</dt><dd>{esc(v)}</dd></div>' for k, v in facts),
        "</dl>\n",
    ]
    if loaded.problems:
        out.append('<ul class="problems">')
        out.extend(f"<li>skipped: {esc(p)}</li>" for p in loaded.problems)
        out.append("</ul>\n")
    if loaded.total_events == 0:
        out.append('<p class="problems">This conversation has no events.</p>\n')
    out.append(
        '<div class="toolbar"><input id="search" type="search" placeholder="Search events… (/)" '
        'aria-label="Search events" autocomplete="off"><span id="count"></span></div>\n'
        '<canvas id="timeline" height="28" aria-label="Timeline: one bar per event"></canvas>\n'
        '<nav class="pager" id="pager-top"></nav>\n</header>\n'
    )
    return "".join(out)


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
def _pygments_css() -> str:
    return str(HtmlFormatter(style="default").get_style_defs(".hl"))
