"""The static multi-conversation site and the report's errors, timing, Markdown and layout, in
a real headless Chromium (see `_browser.py`). Screenshots go to `artifacts/views/`."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tests.support.fixtures import REPO
from tests.views._browser import Page
from tests.views.conftest import UNIQUE_WORD, make_corpus
from trajkit.cli import main

ARTIFACTS = REPO / "artifacts" / "views"
PHONE = (390, 844)


def build_site(corpus: Path, out: Path) -> Path:
    result = CliRunner().invoke(main, ["view", str(corpus), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "3 conversation pages" in result.output
    return out


def loaded(page: Page, n: int) -> None:
    page.wait_for(f"+document.body.getAttribute('data-loaded') >= {n}")


def column(page: Page, n: int) -> list[str]:
    return page.evaluate(
        f"[...document.querySelectorAll('#rows tr')].map(r => r.children[{n}].innerText.trim())"
    )


def set_field(page: Page, selector: str, value: str) -> None:
    page.evaluate(
        f"(() => {{ const el = document.querySelector({json.dumps(selector)});"
        f" el.value = {json.dumps(value)}; el.dispatchEvent(new Event('input', {{bubbles: true}})); }})()"
    )


def no_sideways_scroll(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_static_site_index_sorts_filters_searches_and_links(tmp_path: Path, page: Page) -> None:
    corpus = make_corpus(tmp_path / "corpus")
    site = build_site(tmp_path / "corpus", tmp_path / "site")
    assert len(list((site / "c").glob("*.html"))) == 3
    page.open((site / "index.html").as_uri())
    loaded(page, 1)
    assert page.evaluate("document.querySelectorAll('#rows tr').length") == 3
    assert "3 conversations" in page.evaluate("document.getElementById('summary').textContent")
    page.screenshot(ARTIFACTS / "site-index.png")

    # Sort by events: a click sorts descending, a second ascending.
    page.click("th[data-k=events]")
    loaded(page, 2)
    assert column(page, 3) == ["12", "5", "2"]
    page.click("th[data-k=events]")
    loaded(page, 3)
    assert column(page, 3) == ["2", "5", "12"]

    # Filter by status, then by "has errors".
    set_field(page, "#f-status", "error")
    loaded(page, 4)
    assert column(page, 1) == ["error"]
    set_field(page, "#f-status", "")
    page.click("#f-errors")
    loaded(page, 6)
    assert sorted(column(page, 1)) == ["error", "finished"]  # the failing command counts
    page.click("#f-errors")

    # Search: a word found in one conversation only.
    page.click("#q")
    page.type_text(UNIQUE_WORD)
    page.wait_for("document.querySelectorAll('#rows tr').length === 1")
    assert UNIQUE_WORD in page.evaluate("document.querySelector('#rows tr').innerText")

    # The row opens its report, which links back; nothing but files was requested.
    page.click("#rows td.msg a")
    page.wait_for("document.querySelectorAll('article.entry').length === 5")
    assert page.evaluate("document.querySelector('a.back').getAttribute('href')") == "../index.html"
    assert all(u.startswith(("file:", "data:")) for u in page.requested_urls())
    assert corpus["unique"].name.startswith("2a2b")

    page.set_viewport(*PHONE, mobile=True)
    page.open((site / "index.html").as_uri())
    loaded(page, 1)
    assert no_sideways_scroll(page)
    page.screenshot(ARTIFACTS / "site-index-phone.png")


def test_report_shows_errors_timing_markdown_and_fits_a_phone(tmp_path: Path, page: Page) -> None:
    corpus = make_corpus(tmp_path / "corpus")
    report = tmp_path / "unique.html"
    result = CliRunner().invoke(main, ["view", str(corpus["unique"]), "-o", str(report)])
    assert result.exit_code == 0, result.output
    text = report.read_text()
    csp = text.split('http-equiv="Content-Security-Policy" content="', 1)[1].split('"', 1)[0]
    assert "script-src 'nonce-" in csp and "unsafe-inline" not in csp
    page.open(report.as_uri())
    page.wait_for("document.querySelectorAll('article.entry').length === 5")

    # Error count in the header; the failed command is red with its exit code.
    assert page.evaluate("document.getElementById('error-count').textContent") == "1"
    assert page.evaluate("document.querySelector('.fact-errors').classList.contains('has')")
    assert page.evaluate("document.getElementById('e3').classList.contains('error')")
    assert page.evaluate("document.querySelector('#e3 .badge.exit-bad').textContent") == "exit 2"
    assert page.evaluate("getComputedStyle(document.getElementById('e3')).borderLeftColor") == (
        "rgb(220, 38, 38)"
    )
    # Timing: the result shows its run time, the step its duration, the header the total.
    assert page.evaluate("document.querySelector('#e3 .badge.run').textContent").startswith("ran ")
    assert page.evaluate("document.querySelector('#e2 .badge.step') !== null")
    assert page.evaluate("document.querySelector('.fact-duration dd').textContent") != "?"

    # Role colours reach the card borders (the CSS precedence bug).
    border = "getComputedStyle(document.getElementById('{}')).borderLeftColor"
    assert page.evaluate(border.format("e1")) == "rgb(37, 99, 235)"  # user
    assert page.evaluate(border.format("e2")) == "rgb(217, 119, 6)"  # tool call
    assert page.evaluate(border.format("e4")) == "rgb(22, 163, 74)"  # agent

    # The timeline draws the error bar red (pixel in the middle of bar 3 of 5).
    pixel = page.evaluate(
        "(() => { const c = document.getElementById('timeline'), x = c.getContext('2d');"
        " const d = x.getImageData(Math.floor(c.width * 3.5 / 5), Math.floor(c.height / 2), 1, 1).data;"
        " return [d[0], d[1], d[2]]; })()"
    )
    assert pixel == [220, 38, 38]

    # Agent Markdown is rendered; raw HTML and javascript: links are not.
    assert page.evaluate("document.querySelector('#e4 .md strong').textContent") == "Fixed"
    assert page.evaluate("document.querySelectorAll('#e4 .md li').length") == 2
    assert page.evaluate("document.querySelectorAll('#e4 script, #e4 img, #e4 .md a').length") == 0
    assert "<script>alert(1)</script>" in page.evaluate("document.getElementById('e4').innerText")

    # Jump to the error, and filter to errors only.
    page.evaluate("window.scrollTo(0, 0)")
    page.click("#next-error")
    page.wait_for("document.getElementById('e3').classList.contains('flash')")
    top = page.evaluate("document.getElementById('e3').getBoundingClientRect().top")
    bar = page.evaluate("document.getElementById('bar').getBoundingClientRect().bottom")
    assert bar <= top < page.evaluate("window.innerHeight")  # in view, below the sticky bar
    page.click("#errors-only")
    page.wait_for("document.querySelectorAll('article.entry').length === 1")
    assert page.evaluate("document.querySelector('article.entry').id") == "e3"
    assert page.evaluate("document.getElementById('count').textContent") == "1 of 5 events match"
    page.screenshot(ARTIFACTS / "report-errors-only.png")

    # A phone: the sticky part is small, nothing scrolls sideways.
    page.set_viewport(*PHONE, mobile=True)
    page.open(report.as_uri())
    page.wait_for("document.querySelectorAll('article.entry').length === 5")
    assert no_sideways_scroll(page)
    sticky = page.evaluate("document.getElementById('bar').offsetHeight / window.innerHeight")
    assert sticky < 0.2, sticky
    assert page.evaluate("getComputedStyle(document.getElementById('top')).position") == "static"
    page.screenshot(ARTIFACTS / "report-phone.png")

    # The dark theme follows the system.
    page.set_color_scheme("dark")
    page.open(report.as_uri())
    page.wait_for("document.querySelectorAll('article.entry').length === 5")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(13, 17, 23)"
    page.screenshot(ARTIFACTS / "report-phone-dark.png")
    page.set_color_scheme("light")
