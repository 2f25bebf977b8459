"""`trajkit view PATH_WITH_MANY -o site/`: a static, self-contained site of many conversations.

`write_site(paths, out)` writes `out/index.html` (the index with every row embedded, filtered
in the browser) and one report per conversation, `out/c/<key>.html` (the `trajkit view` report
with a link back). Every page works from disk with no server and no network (same CSP as the
report). Conversations are read one at a time; only the rows are kept for the index.

A site is published the way an export is (`trajkit.export.manifest`): `out/.trajkit-site.json`
lists each page with the fingerprint of its conversation (`catalog.source_fingerprint`), its
index row and its problems. It is written first (so even a killed run leaves a folder the next
run recognises), and again at the end or on Ctrl-C, before `index.html`; pages the manifest no
longer lists are deleted last. Every page is written whole (`store.atomic_write`), so at any
instant the index lists pages that are all there. A run into a folder holding a site continues
it: a page whose conversation is unchanged is kept, the others are written (a conversation in
object storage has no cheap fingerprint, so its page is always written again); pages of
conversations no longer given are removed. Ctrl-C keeps what was written (`SiteInterrupted`),
with an index listing it; if nothing was written into a new folder, nothing is left.

A conversation id met again (copied folders) gets no second page: one problem per id names
where it was first seen, the next place, and how many more copies there were.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from trajkit import __version__
from trajkit.errors import InputError, OutputExists, TrajkitError
from trajkit.store import atomic_write
from trajkit.store.atomic import make_folder
from trajkit.store.location import is_remote
from trajkit.views.catalog import source_fingerprint, source_key, source_row
from trajkit.views.html import conversation_to_html
from trajkit.views.index_page import index_to_html, static_row
from trajkit.views.load import load_conversation, mask_fields
from trajkit.views.summary import Skipped, iter_sources

if TYPE_CHECKING:
    from trajkit.redact import SecretMasker

__all__ = ["SITE_MANIFEST", "SiteInterrupted", "SiteReport", "write_site"]

SITE_MANIFEST = ".trajkit-site.json"
"""The site's manifest (module docstring), hidden: the site itself is index.html and c/."""
_FORMAT = "trajkit-site"
_VERSION = 1
_PAGE = re.compile(r"^[0-9a-f]{16}\.html$")
"""Names of the pages a site holds in `c/` (`catalog.source_key`)."""


@dataclass
class SiteReport:
    """What `write_site` wrote, kept and skipped."""

    pages: int = 0
    """Pages written in this run."""
    unchanged: int = 0
    """Pages of an earlier run kept because their conversation did not change."""
    problems: list[str] = field(default_factory=list)

    def summary(self, index: str) -> str:
        """The line `trajkit view` ends with (`index`: the site's index.html as shown)."""
        kept = f" ({self.unchanged:,} unchanged, kept)" if self.unchanged else ""
        pages = f"{self.pages:,} conversation page{'s' if self.pages != 1 else ''}"
        return f"wrote {index} and {pages}{kept}"

    def interrupted(self, index: str) -> str:
        """The line said after Ctrl-C."""
        return (
            f"interrupted: {self.pages:,} conversation page(s) written in this run are listed "
            f"in {index}; run the same command again to continue"
        )


class SiteInterrupted(KeyboardInterrupt):
    """Ctrl-C while writing a site: the pages written are listed in its index (`report`).

    A `KeyboardInterrupt`, so callers that do not know it still stop; the same command run
    again continues (pages already written are kept).
    """

    def __init__(self, report: SiteReport) -> None:
        super().__init__("site interrupted")
        self.report = report


def write_site(
    paths: Iterable[str | os.PathLike[str]],
    out: Path,
    *,
    overwrite: bool = False,
    on_source: Callable[[], None] | None = None,
    masker: SecretMasker | None = None,
) -> SiteReport:
    """Write or continue the site in `out` (see the module docstring) and report what was done.

    `on_source` is called after each conversation (written, kept or skipped): a progress feed.
    With `masker`, pages and rows have their secrets masked (`views.load`); a page written
    with another choice is rewritten.

    Raises:
        OutputExists: `out` is a file, or a folder that holds no site, without `overwrite`.
        SiteInterrupted: Ctrl-C; what was written is listed.
    """
    site = _Site.open(out, overwrite=overwrite)
    site.masker = masker
    report = SiteReport()
    try:
        for source in iter_sources(paths):
            if isinstance(source, Skipped):
                report.problems.append(str(source))
            else:
                site.add(source, report)
            if on_source is not None:
                on_source()
    except KeyboardInterrupt:
        # The CLI ignores a second Ctrl-C while this runs; a library caller's second one stops
        # it, and the manifest (written first) still lets a re-run continue.
        with contextlib.suppress(KeyboardInterrupt):
            report.problems.extend(site.duplicates())
            site.publish(complete=False)
        raise SiteInterrupted(report) from None
    report.problems.extend(site.duplicates())
    site.publish(complete=True)
    return report


class _Site:
    """The site being written: the earlier run's entries and this run's (key -> entry)."""

    def __init__(
        self, out: Path, earlier: dict[str, dict[str, Any]], *, fresh: bool, created: bool
    ) -> None:
        self.out = out
        self.earlier = earlier
        self.entries: dict[str, dict[str, Any]] = {}
        self.fresh = fresh
        """`out` was missing or empty: an interrupted run that wrote nothing leaves it so."""
        self.created = created
        self.first_at: dict[str, str] = {}
        """Conversation id -> where it was met first in this run."""
        self.copies: dict[str, list[str]] = {}
        """Conversation id -> the other places it was met."""
        self.masker: SecretMasker | None = None

    @classmethod
    def open(cls, out: Path, *, overwrite: bool) -> _Site:
        """Check `out` before any work; write the manifest of a new site at once."""
        if out.exists() and not out.is_dir():
            raise OutputExists(out, "it is a file; choose a folder for the site")
        created = not out.exists()
        manifest = out / SITE_MANIFEST
        if manifest.exists() and not overwrite:
            site = cls(out, _read_manifest(manifest), fresh=False, created=False)
        elif created or overwrite or not any(out.iterdir()):
            fresh = created or not any(out.iterdir())
            site = cls(out, {}, fresh=fresh, created=created)
            make_folder(out / "c")
            site._write_manifest({})
        else:
            raise OutputExists(
                out,
                "the folder is not empty and holds no trajkit site; choose an empty folder, or "
                "pass --overwrite to write the site into it",
            )
        make_folder(out / "c")
        return site

    def add(self, source: Any, report: SiteReport) -> None:
        """Keep or write the page of one conversation."""
        key = source_key(source)
        fingerprint = source_fingerprint(source, clear=not self.masker)
        entry = None if is_remote(source) else self.earlier.get(key)  # no fingerprint: rewrite
        page = self.out / "c" / f"{key}.html"
        if entry is None or entry["fingerprint"] != fingerprint or not page.is_file():
            try:
                row = mask_fields(source_row(source), self.masker)
                if self._is_copy(row.id, row.path):
                    return
                loaded = load_conversation(source, masker=self.masker)
            except TrajkitError as exc:
                report.problems.append(str(exc))
                return
            atomic_write(page, conversation_to_html(loaded, back="../index.html").encode("utf-8"))
            problems = [str(p) for p in loaded.problems]
            entry = {"fingerprint": fingerprint, "row": static_row(row), "problems": problems}
            report.pages += 1
        elif self._is_copy(entry["row"]["id"], entry["row"]["path"]):
            return
        else:
            report.unchanged += 1
        self.entries[key] = entry
        report.problems.extend(entry["problems"])

    def _is_copy(self, cid: str, where: str) -> bool:
        if cid not in self.first_at:
            self.first_at[cid] = where
            return False
        self.copies.setdefault(cid, []).append(where)
        return True

    def duplicates(self) -> list[str]:
        """One line per conversation id met more than once."""
        lines = []
        for cid, places in self.copies.items():
            more = f" and {len(places) - 1} more" if len(places) > 1 else ""
            lines.append(
                f"{places[0]}: conversation id {cid} is also at {self.first_at[cid]}, whose "
                f"page the site shows; this copy{more} skipped"
            )
        return lines

    def publish(self, *, complete: bool) -> None:
        """Write the manifest, then the index, then delete the pages neither lists."""
        entries = dict(self.entries)
        if not complete:  # pages of the earlier run not reached yet are still whole: keep them
            entries.update((k, e) for k, e in self.earlier.items() if k not in entries)
        if self.fresh and not complete and not entries:
            self._remove()  # stopped before any page: leave the folder as it was
            return
        self._write_manifest(entries)
        config = {"mode": "static", "page_size": 50, "rows": [e["row"] for e in entries.values()]}
        atomic_write(self.out / "index.html", index_to_html(config).encode("utf-8"))
        for page in (self.out / "c").iterdir():
            if _PAGE.match(page.name) and page.stem not in entries:
                page.unlink(missing_ok=True)

    def _write_manifest(self, entries: dict[str, dict[str, Any]]) -> None:
        data = {"format": _FORMAT, "version": _VERSION, "trajkit": __version__, "pages": entries}
        atomic_write(self.out / SITE_MANIFEST, orjson.dumps(data))

    def _remove(self) -> None:
        with contextlib.suppress(OSError):
            (self.out / SITE_MANIFEST).unlink(missing_ok=True)
            (self.out / "c").rmdir()  # only when empty
            if self.created:
                self.out.rmdir()


def _read_manifest(path: Path) -> dict[str, dict[str, Any]]:
    """The pages of an earlier run; none when it was written by another trajkit version."""
    try:
        data = orjson.loads(path.read_bytes())
        if data["format"] != _FORMAT or data["version"] != _VERSION:
            raise ValueError(f"format {data['format']!r} version {data['version']!r}")
        pages: dict[str, dict[str, Any]] = data["pages"]
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise InputError(
            path, "", f"not a trajkit site manifest ({exc}); pass --overwrite to start over"
        ) from None
    return pages if data.get("trajkit") == __version__ else {}
