"""The index page: one row per conversation (the static site's `index.html`, `trajkit serve`'s /).

`index_to_html(config)` writes the page; its script (`assets/index.js`) reads `config` from a
`<script type="application/json">` block: `mode` `static` carries every row (with a lowercased
`search` text) and filters in the browser; `server` names the JSON API that pages, sorts,
filters and searches on the server. Same strict, nonce-based CSP as the report.
"""

from __future__ import annotations

import html
import json
from typing import Any

from trajkit.views.page import asset, content_security_policy, new_nonce

__all__ = ["STATIC_SEARCH_LIMIT", "index_to_html", "static_row"]

STATIC_SEARCH_LIMIT = 20_000
"""Characters of each conversation's text searchable in the static site's index."""


def static_row(row: Any) -> dict[str, Any]:
    """A `CatalogRow` as the static index embeds it (with its lowercased search text)."""
    data: dict[str, Any] = row.to_dict()
    words = " ".join([row.id, row.model or "", row.status or "", row.first_message, row.text])
    data["search"] = words[:STATIC_SEARCH_LIMIT].lower()
    return data


def index_to_html(
    config: dict[str, Any], *, title: str = "trajkit · conversations", nonce: str | None = None
) -> str:
    """The index page for `config` (see the module docstring)."""
    nonce = nonce or new_nonce()
    server = config.get("mode") == "server"
    payload = json.dumps(config, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    compare = (
        '<button type="button" id="compare" disabled title="tick two rows">Compare selected</button>'
        if server
        else ""
    )
    return "".join(
        [
            '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
            '<meta http-equiv="Content-Security-Policy" '
            f'content="{content_security_policy(nonce, connect=server)}">\n',
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
            '<meta name="referrer" content="no-referrer">\n',
            f"<title>{html.escape(title)}</title>\n",
            f'<style nonce="{nonce}">\n{asset("theme.css")}\n{asset("index.css")}\n</style>\n',
            '</head>\n<body>\n<header id="top">\n',
            f'<h1>{html.escape(title)} <small id="summary"></small> '
            '<small id="indexing"></small></h1>\n',
            '<form class="filters" id="filters" autocomplete="off">'
            '<input id="q" type="search" placeholder="Search all conversations…" '
            'aria-label="Search all conversations">'
            '<select id="f-status" aria-label="status"></select>'
            '<select id="f-model" aria-label="model"></select>'
            '<select id="f-tool" aria-label="tool"></select>'
            '<label>from <input id="f-since" type="date"></label>'
            '<label>to <input id="f-until" type="date"></label>'
            '<label><input id="f-errors" type="checkbox"> has errors</label>'
            f"{compare}</form>\n</header>\n",
            '<main><div class="scroll"><table class="rows"><thead id="head"></thead>'
            '<tbody id="rows"></tbody></table></div>\n<nav class="pager" id="pager"></nav></main>\n',
            f'<script type="application/json" id="trajkit-index">{payload}</script>\n',
            f'<script nonce="{nonce}">\n{asset("index.js")}\n</script>\n</body>\n</html>\n',
        ]
    )
