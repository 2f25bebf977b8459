"""`trajkit view PATH_WITH_MANY -o site/`: a static, self-contained site of many conversations.

`write_site(paths, out)` writes `out/index.html` (the index with every row embedded, filtered
in the browser) and one report per conversation, `out/c/<key>.html` (the `trajkit view` report
with a link back). Every page works from disk with no server and no network (same CSP as the
report). Conversations are read one at a time; only the rows are kept for the index.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trajkit.errors import TrajkitError
from trajkit.shapes.memory import ShapeRef
from trajkit.store import atomic_write
from trajkit.store.atomic import make_folder
from trajkit.store.location import is_location
from trajkit.views.catalog import source_key, source_row
from trajkit.views.html import conversation_to_html
from trajkit.views.index_page import index_to_html, static_row
from trajkit.views.load import LoadedConversation, load_conversation, migrated_to_loaded
from trajkit.views.summary import Skipped, iter_sources

__all__ = ["SiteReport", "load_source", "write_site"]


@dataclass
class SiteReport:
    """What `write_site` wrote and skipped."""

    pages: int = 0
    problems: list[str] = field(default_factory=list)


def load_source(source: Any) -> LoadedConversation:
    """A V1 folder or a V0 input (migrated in memory) loaded for viewing."""
    if is_location(source) or isinstance(source, ShapeRef):  # ShapeRef: trajkit.shapes
        return load_conversation(source)
    from trajkit.migrate import v0_to_v1

    return migrated_to_loaded(Path(source.path), v0_to_v1(source.load()), source.container)


def write_site(
    paths: Iterable[str | os.PathLike[str]],
    out: Path,
    *,
    on_source: Callable[[], None] | None = None,
) -> SiteReport:
    """Write the site (see the module docstring) and report what was done.

    `on_source` is called after each conversation (written or skipped), for a progress display.
    """
    report = SiteReport()
    make_folder(out / "c")
    rows: list[dict[str, Any]] = []
    for source in iter_sources(paths):
        _write_page(source, out, rows, report)
        if on_source is not None:
            on_source()
    config = {"mode": "static", "page_size": 50, "rows": rows}
    atomic_write(out / "index.html", index_to_html(config).encode("utf-8"))
    return report


def _write_page(source: Any, out: Path, rows: list[dict[str, Any]], report: SiteReport) -> None:
    """One conversation's page and index row, or the reason it has none."""
    if isinstance(source, Skipped):
        report.problems.append(str(source))
        return
    try:
        row = source_row(source)
        loaded = load_source(source)
    except TrajkitError as exc:
        report.problems.append(str(exc))
        return
    key = source_key(source)
    page = conversation_to_html(loaded, back="../index.html")
    atomic_write(out / "c" / f"{key}.html", page.encode("utf-8"))
    rows.append(static_row(row))
    report.problems.extend(loaded.problems)
    report.pages += 1
