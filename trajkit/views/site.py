"""`trajkit view PATH_WITH_MANY -o site/`: a static, self-contained site of many conversations.

`write_site(paths, out)` writes `out/index.html` (the index with every row embedded, filtered
in the browser) and one report per conversation, `out/c/<key>.html` (the `trajkit view` report
with a link back). Every page works from disk with no server and no network (same CSP as the
report). Conversations are read one at a time; only the rows are kept for the index.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trajkit.errors import TrajkitError
from trajkit.store import atomic_write
from trajkit.store.atomic import make_folder
from trajkit.views.catalog import source_key, source_row
from trajkit.views.html import conversation_to_html
from trajkit.views.index_page import index_to_html, static_row
from trajkit.views.load import load_conversation
from trajkit.views.summary import Skipped, iter_sources

__all__ = ["SiteReport", "write_site"]


@dataclass
class SiteReport:
    """What `write_site` wrote and skipped."""

    pages: int = 0
    problems: list[str] = field(default_factory=list)


def write_site(paths: Iterable[str | os.PathLike[str]], out: Path) -> SiteReport:
    """Write the site (see the module docstring) and report what was done."""
    report = SiteReport()
    make_folder(out / "c")
    rows: list[dict[str, Any]] = []
    for source in iter_sources(paths):
        if isinstance(source, Skipped):
            report.problems.append(str(source))
            continue
        try:
            row = source_row(source)
            loaded = load_conversation(source)
        except TrajkitError as exc:
            report.problems.append(str(exc))
            continue
        key = source_key(source)
        page = conversation_to_html(loaded, back="../index.html")
        atomic_write(out / "c" / f"{key}.html", page.encode("utf-8"))
        rows.append(static_row(row))
        report.problems.extend(loaded.problems)
        report.pages += 1
    config = {"mode": "static", "page_size": 50, "rows": rows}
    atomic_write(out / "index.html", index_to_html(config).encode("utf-8"))
    return report
