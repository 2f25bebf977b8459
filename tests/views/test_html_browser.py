"""The HTML report in a real headless Chromium (Debian's `chromium`, installed by `.ci/run`).

Checks what a person sees: messages, a tool call, an inline image, no network request, a folded
output expanded by a real click, the search box used by typing, the timeline clicked, and a
5,000-event conversation rendered one page at a time. Screenshots go to `artifacts/views/`.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.fixtures import REPO
from tests.views._browser import Page, find_chromium
from tests.views.conftest import AGENT_TEXT, HTTP_IMAGE, LONG_LINES, USER_TEXT, build_events
from trajkit.cli import main
from trajkit.events import (
    ActionEvent,
    MessageToolCall,
    ObservationEvent,
    TerminalAction,
    TerminalObservation,
    TextContent,
    dump_event,
)
from trajkit.store.layout import event_file_name

ARTIFACTS = REPO / "artifacts" / "views"
CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed (apt-get install -y chromium; .ci/run does it as root)",
)


def write_report(folder: Path, out: Path) -> Path:
    result = CliRunner().invoke(main, ["view", str(folder), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def text_of(page: Page, selector: str) -> str:
    return str(page.evaluate(f"document.querySelector({json.dumps(selector)}).innerText"))


def test_report_shows_the_conversation_and_reacts(
    conversation: Path, tmp_path: Path, page: Page
) -> None:
    report = write_report(conversation, tmp_path / "report.html")
    page.open(report.as_uri())
    page.wait_for("document.querySelectorAll('article.entry').length === 12")
    page.screenshot(ARTIFACTS / "report.png")

    # Messages, a tool call with its command, the header.
    body = str(page.evaluate("document.body.innerText"))
    assert USER_TEXT in body and AGENT_TEXT in body
    assert "status finished" in body.replace("\n", " ").replace("\t", " ")
    call = text_of(page, "#e2")
    assert "TOOL CALL" in call and "seq -f 'line %g' 1 40" in call
    assert page.evaluate(
        "document.querySelector('#e2 details.tool').open && document.querySelector('#e2 details.tool').offsetHeight > 0"
    )
    assert page.evaluate(
        "document.querySelector('#e4 div.hl .gi') !== null"
    )  # diff: inserted line highlighted
    assert "sparkle_level" in text_of(page, "#e11")  # unknown kind as raw JSON

    # The data-URL image is decoded and visible; the http one is a link, never loaded.
    img = page.wait_for(
        "(() => { const i = document.querySelector('#e1 img'); const r = i.getBoundingClientRect();"
        " return i.complete && i.naturalWidth === 24 && r.height > 0 && r.width > 0 && {w: i.naturalWidth}; })()"
    )
    assert img == {"w": 24}
    assert page.evaluate(
        f"document.querySelector('a.image-link').href === {json.dumps(HTTP_IMAGE)}"
    )
    assert page.evaluate("document.querySelectorAll('img[src^=\"http\"]').length") == 0
    assert all(url.startswith(("file:", "data:")) for url in page.requested_urls()), (
        page.requested_urls()
    )

    # A folded output, expanded with a real click.
    last_line = f"line {LONG_LINES}"
    assert f"Show all {LONG_LINES} lines" in text_of(page, "#e3 button.expand")
    assert last_line not in text_of(page, "#e3")
    page.click("#e3 button.expand")
    page.wait_for(f"document.querySelector('#e3').innerText.includes({json.dumps(last_line)})")
    assert text_of(page, "#e3 button.expand") == "Fold"
    page.screenshot(ARTIFACTS / "report-expanded.png")

    # The search box, typed into.
    page.click("#search")
    page.type_text("greeting")
    page.wait_for("document.getElementById('count').textContent === '2 of 12 events match'")
    shown = page.evaluate("[...document.querySelectorAll('article.entry')].map(a => a.id)")
    assert shown == ["e1", "e10"]
    assert page.evaluate("[...document.querySelectorAll('mark')].map(m => m.textContent)") == [
        "greeting",
        "greeting",
    ]
    png = page.screenshot(ARTIFACTS / "report-search.png")
    assert png.startswith(b"\x89PNG") and len(png) > 5000


def _long_conversation(folder: Path, pairs: int) -> Path:
    """System prompt and user message, then `pairs` terminal call/result pairs."""
    events_dir = folder / "events"
    events_dir.mkdir(parents=True)
    head = build_events()[:2]
    texts = [dump_event(e) for e in head]
    for n in range(pairs):
        call_id = f"call_{n}"
        cmd = f"echo step-{n}"
        action = ActionEvent(
            thought=[],
            action=TerminalAction(command=cmd),
            tool_name="terminal",
            tool_call_id=call_id,
            tool_call=MessageToolCall(
                id=call_id, name="terminal", arguments=json.dumps({"command": cmd})
            ),
            llm_response_id=f"resp-{n}",
        )
        obs = ObservationEvent(
            tool_name="terminal",
            tool_call_id=call_id,
            action_id=action.id,
            observation=TerminalObservation(
                content=[TextContent(text=f"step-{n}")], command=cmd, exit_code=0
            ),
        )
        texts += [dump_event(action), dump_event(obs)]
    for index, text in enumerate(texts):
        event_id = json.loads(text)["id"]
        (events_dir / event_file_name(index, event_id)).write_text(text)
    return folder


def test_report_of_5000_events_renders_one_page_at_a_time(tmp_path: Path, page: Page) -> None:
    folder = _long_conversation(tmp_path / uuid.uuid4().hex, pairs=2499)  # 5,000 events
    started = time.perf_counter()
    report = write_report(folder, tmp_path / "long.html")
    written = time.perf_counter() - started
    page.open(report.as_uri())
    page.wait_for("document.querySelectorAll('article.entry').length === 100")
    state = page.evaluate("window.trajkitReport.state()")
    assert state == {"page": 0, "pages": 50, "shown": 5000, "query": ""}
    print(f"\n5,000 events: report written in {written:.2f}s, {report.stat().st_size / 1e6:.1f} MB")

    # A click at the right end of the timeline jumps to the last page.
    rect = page.evaluate(
        "(() => { const r = document.getElementById('timeline').getBoundingClientRect();"
        " return {x: r.right - 2, y: r.top + r.height / 2}; })()"
    )
    page.click_at(rect["x"], rect["y"])
    page.wait_for("window.trajkitReport.state().page === 49")
    assert page.evaluate("document.getElementById('e4999') !== null")
    assert page.evaluate("document.querySelectorAll('article.entry').length") == 100

    # Search finds one event among 5,000 and shows only it.
    page.click("#search")
    page.type_text("step-1234")
    page.wait_for("document.getElementById('count').textContent === '2 of 5,000 events match'")
    ids = page.evaluate("[...document.querySelectorAll('article.entry')].map(a => a.id)")
    assert ids == ["e2470", "e2471"]  # the call (index 2 + 2 * 1234) and its result
    page.screenshot(ARTIFACTS / "report-5000.png")
