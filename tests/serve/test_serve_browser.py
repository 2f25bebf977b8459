"""`trajkit serve` on loopback, driven by the headless Chromium of the HTML tests: the index
sorts, filters and searches; a conversation page jumps to its errors; a process writing a
conversation shows on the open page within 2 s and its status changes in the index; compare
renders. Screenshots (desktop and phone) go to `artifacts/serve/`; README's come from there."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.support.fixtures import REPO
from tests.views._browser import Page
from tests.views.conftest import (
    UNIQUE_WORD,
    build_events,
    failing_command_events,
    make_corpus,
    write_conversation,
)
from trajkit.events import (
    ActionEvent,
    AgentErrorEvent,
    MessageToolCall,
    ObservationEvent,
    TerminalAction,
    TerminalObservation,
    TextContent,
)

ARTIFACTS = REPO / "artifacts" / "serve"
PHONE = (390, 844)
DESKTOP = (1280, 900)
LIVE_WAIT = 60.0
"""Seconds a page may take to show what was written: a hang guard, not a speed claim (on a busy
machine any short bound fails; the delays are printed)."""


def loaded(page: Page, n: int) -> None:
    page.wait_for(f"+(document.body.getAttribute('data-loaded') || 0) >= {n}")


def column(page: Page, n: int) -> list[str]:
    return page.evaluate(
        f"[...document.querySelectorAll('#rows tr')].map(r => r.children[{n}].innerText.trim())"
    )


def set_field(page: Page, selector: str, value: str) -> None:
    page.evaluate(
        f"(() => {{ const el = document.querySelector({json.dumps(selector)});"
        f" el.value = {json.dumps(value)}; el.dispatchEvent(new Event('input', {{bubbles: true}})); }})()"
    )


def shots(page: Page, url: str, name: str, ready: str) -> None:
    """Desktop and phone screenshots of `url`, each checked for sideways scrolling."""
    for (w, h), mobile, suffix in ((DESKTOP, False, ""), (PHONE, True, "-phone")):
        page.set_viewport(w, h, mobile=mobile)
        page.open("about:blank")  # so that a URL differing only by its #fragment loads anew
        page.open(url)
        page.wait_for(ready)
        time.sleep(0.2)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), name
        page.screenshot(ARTIFACTS / f"{name}{suffix}.png")
    page.set_viewport(*DESKTOP)


def test_index_sorts_filters_and_searches(tmp_path: Path, serve: Any, page: Page) -> None:
    make_corpus(tmp_path / "corpus")
    server = serve([tmp_path / "corpus"])
    server.wait_indexed(3)
    page.open(server.url)
    loaded(page, 1)
    assert page.evaluate("document.querySelectorAll('#rows tr').length") == 3

    page.click("th[data-k=events]")
    page.wait_for("document.querySelector('#rows tr td:nth-child(4)').innerText.trim() === '12'")
    assert column(page, 3) == ["12", "5", "2"]
    page.click("th[data-k=events]")
    page.wait_for("document.querySelector('#rows tr td:nth-child(4)').innerText.trim() === '2'")
    assert column(page, 3) == ["2", "5", "12"]

    page.wait_for("document.querySelectorAll('#f-model option').length === 4")
    set_field(page, "#f-model", "anthropic/claude-sonnet-4")
    page.wait_for("document.querySelectorAll('#rows tr').length === 1")
    assert column(page, 1) == ["error"]
    set_field(page, "#f-model", "")
    page.wait_for("document.querySelectorAll('#rows tr').length === 3")
    page.click("#f-errors")
    page.wait_for("document.querySelectorAll('#rows tr').length === 2")
    assert sorted(column(page, 1)) == ["error", "finished"]
    page.click("#f-errors")

    page.click("#q")
    page.type_text(UNIQUE_WORD)
    page.wait_for("document.querySelectorAll('#rows tr').length === 1")
    assert UNIQUE_WORD in page.evaluate("document.querySelector('#rows tr').innerText")
    # The server searched: the API agrees, and a word in no conversation finds nothing.
    assert server.rows(f"q={UNIQUE_WORD}")["total"] == 1
    assert server.rows("q=nowhereatallword")["total"] == 0

    shots(page, server.url, "index", "document.querySelectorAll('#rows tr').length === 3")


def _long_with_errors(folder: Path, pairs: int, failing: set[int]) -> Path:
    events = build_events()[:2]
    for n in range(pairs):
        call = f"call_{n}"
        action = ActionEvent(
            thought=[],
            action=TerminalAction(command=f"echo step-{n}"),
            tool_name="terminal",
            tool_call_id=call,
            tool_call=MessageToolCall(id=call, name="terminal", arguments="{}"),
            llm_response_id=f"resp-{n}",
        )
        code = 1 if n in failing else 0
        events += [
            action,
            ObservationEvent(
                tool_name="terminal",
                tool_call_id=call,
                action_id=action.id,
                observation=TerminalObservation(
                    content=[TextContent(text=f"step-{n}")], command="echo", exit_code=code
                ),
            ),
        ]
    events.append(AgentErrorEvent(tool_name="terminal", tool_call_id="call_x", error="boom"))
    return write_conversation(folder, events)


def test_conversation_page_jumps_between_errors(tmp_path: Path, serve: Any, page: Page) -> None:
    # 2 + 2 * 150 + 1 = 303 events; results of steps 60 and 130 fail (indexes 123 and 263).
    folder = _long_with_errors(tmp_path / "c" / ("ef" * 16), 150, {60, 130})
    server = serve([tmp_path / "c"])
    server.wait_indexed(1)
    key = server.rows()["rows"][0]["key"]
    # Served page by page: the page carries the first 100 entries in full, the rest as stubs.
    status, _, html = server.request(f"/c/{key}")
    assert status == 200 and b"echo step-10" in html and b"echo step-149" not in html
    page.open(f"{server.url}c/{key}")
    page.wait_for("document.querySelectorAll('article.entry').length === 100")
    assert page.evaluate("document.getElementById('error-count').textContent") == "3"
    assert page.evaluate("window.trajkitReport.errors()") == [123, 263, 302]
    page.click("#next-error")
    page.wait_for("document.getElementById('e123') !== null")
    assert page.evaluate("window.trajkitReport.state().page") == 1
    top = page.evaluate("document.getElementById('e123').getBoundingClientRect().top")
    assert 0 < top < page.evaluate("window.innerHeight")
    assert page.evaluate("window.scrollY") > 1000  # scrolled down the page...
    assert (
        page.evaluate("document.getElementById('bar').getBoundingClientRect().top") == 0
    )  # bar stuck
    page.click("#next-error")
    page.wait_for("document.getElementById('e263') !== null")
    page.click("#prev-error")
    page.wait_for(
        "document.getElementById('e123') !== null && window.trajkitReport.state().page === 1"
    )
    assert "echo step-60" in page.evaluate("document.getElementById('e122').innerText")  # fetched
    page.send("Input.dispatchKeyEvent", type="keyDown", key="n", text="n")  # the n key
    page.wait_for("document.getElementById('e263') !== null")
    page.send("Input.dispatchKeyEvent", type="keyDown", key="n", text="n")
    page.wait_for(
        "document.getElementById('e302') !== null && window.trajkitReport.state().page === 3"
    )
    # Search reaches entries never shown yet (fetched for it).
    page.click("#search")
    page.type_text("step-140")
    page.wait_for("document.getElementById('count').textContent === '2 of 303 events match'")
    ids = page.evaluate("[...document.querySelectorAll('article.entry')].map(a => a.id)")
    assert ids == ["e282", "e283"]
    assert folder.exists()
    # A deep link lands on the entry, below the sticky bar, on a desktop and on a phone.
    below_bar = (
        "document.getElementById('e123') !== null && document.getElementById('e123')"
        ".getBoundingClientRect().top >= document.getElementById('bar').getBoundingClientRect().bottom"
    )
    shots(page, f"{server.url}c/{key}#e123", "conversation", below_bar)


def test_live_follow_shows_new_events_within_two_seconds(
    tmp_path: Path, serve: Any, page: Page
) -> None:
    folder = write_conversation(
        tmp_path / "live" / ("ab" * 16), failing_command_events()[:2], status="running"
    )
    server = serve([tmp_path / "live"])
    server.wait_indexed(1)
    key = server.rows()["rows"][0]["key"]
    page.open(f"{server.url}c/{key}")
    page.wait_for("document.getElementById('live-state').textContent === 'live'")
    assert page.evaluate("document.querySelectorAll('article.entry').length") == 2

    writer = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("live_writer.py")), str(folder), "3", "0.7", "LIVEMARK"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert writer.stdout is not None
    delays = []
    for n in range(3):
        line = writer.stdout.readline().split()
        assert line[:2] == ["wrote", str(n)], line
        page.wait_for(
            f"document.body.innerText.includes('LIVEMARK {n}')", timeout=LIVE_WAIT
        )  # the page got it without a reload
        delays.append(time.time() - float(line[2]))
    assert writer.stdout.readline().strip() == "done"
    writer.wait(timeout=LIVE_WAIT)
    print(f"\nlive follow: shown {max(delays):.2f}s after the write at worst")
    assert page.evaluate("document.getElementById('event-count').textContent") == "5"
    took = page.evaluate("document.querySelector('.fact-duration dd').textContent")
    assert took.endswith(" s") and float(took.split()[0]) >= 1.0, took  # follows the new events
    page.wait_for(
        "document.querySelector('.fact-status dd').textContent === 'finished'", timeout=LIVE_WAIT
    )
    page.screenshot(ARTIFACTS / "live.png")
    page.set_viewport(*PHONE, mobile=True)
    page.screenshot(ARTIFACTS / "live-phone.png")
    page.set_viewport(*DESKTOP)

    # A writer that writes files in place, in two halves: never shown half-written.
    slow = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("live_writer.py")), str(folder), "2", "0.6",
         "SLOWMARK", "--in-place"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    slow.wait(timeout=LIVE_WAIT)
    page.wait_for("document.body.innerText.includes('SLOWMARK 1')", timeout=LIVE_WAIT)
    assert page.evaluate("document.querySelectorAll('article.role-broken').length") == 0
    assert page.evaluate("document.getElementById('event-count').textContent") == "7"

    # The index shows the new status without a reload.
    page.open(server.url)
    loaded(page, 1)
    page.wait_for(
        "document.querySelector('#rows .st').textContent === 'finished'", timeout=LIVE_WAIT
    )
    assert server.rows()["rows"][0]["events"] == 7


def test_compare_two_conversations(tmp_path: Path, serve: Any, page: Page) -> None:
    root = tmp_path / "cmp"
    write_conversation(root / ("a1" * 16), failing_command_events("task"), model="openai/gpt-4o")
    ok = failing_command_events("task")
    # The same command succeeds for the other model.
    ok[3] = ok[3].model_copy(
        update={"observation": ok[3].observation.model_copy(update={"exit_code": 0})}
    )
    write_conversation(root / ("b2" * 16), ok, model="anthropic/claude-sonnet-4")
    server = serve([root])
    server.wait_indexed(2)
    page.open(server.url)
    loaded(page, 1)
    page.click("#rows tr:nth-child(1) input.pick")
    page.click("#rows tr:nth-child(2) input.pick")
    page.wait_for("!document.getElementById('compare').disabled")
    page.click("#compare")
    page.wait_for("document.getElementById('diff-count') !== null")
    assert page.evaluate("location.pathname") == "/compare"
    assert page.evaluate("document.querySelectorAll('section.turn').length") == 1
    # Same tool, same command, another outcome: that step is marked changed; the rest equal.
    assert page.evaluate("document.querySelectorAll('.pair.step.changed').length") == 1
    assert page.evaluate("document.querySelectorAll('.pair.step.same').length") == 1
    outcomes = page.evaluate(
        "[...document.querySelectorAll('.pair.step.changed .outcome')].map(o => o.textContent)"
    )
    assert sorted(outcomes) == ["exit 2", "ok"]
    assert page.evaluate("document.querySelector('#diff-count').textContent").startswith(
        "1 step differ"
    )
    assert (
        page.evaluate("document.querySelectorAll('table.totals tr.changed').length") >= 2
    )  # model, errors
    shots(
        page,
        page.evaluate("location.href"),
        "compare",
        "document.getElementById('diff-count') !== null",
    )


def test_live_follow_of_trajkit_runtime_writing_a_conversation(
    tmp_path: Path, serve: Any, page: Page
) -> None:
    root = tmp_path / "runs"
    root.mkdir()
    server = serve([root])
    env = {**__import__("os").environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("runtime_child.py")), str(root), "3"],
        stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        assert child.stdout is not None
        line = child.stdout.readline().split()
        assert line and line[0] == "folder", line
        folder = Path(line[1])
        server.wait_indexed(1, timeout=LIVE_WAIT)
        key = server.rows()["rows"][0]["key"]
        page.open(f"{server.url}c/{key}")
        page.wait_for("document.getElementById('live-state').textContent === 'live'")
        for n in range(3):
            marker = f"RUNTIMESTEP-{n}"
            deadline = time.monotonic() + 30
            while not _result_on_disk(folder, marker):
                assert time.monotonic() < deadline, f"{marker} never written"
                time.sleep(0.05)
            written = time.monotonic()
            page.wait_for(
                "[...document.querySelectorAll('article.role-observation')]"
                f".some(a => a.innerText.includes({json.dumps(marker)}))",
                timeout=LIVE_WAIT,
            )
            print(f"\n{marker}: shown {time.monotonic() - written:.2f}s after the write")
        assert child.stdout.readline().strip() == "done"
        child.wait(timeout=LIVE_WAIT)
        on_disk = len(list((folder / "events").glob("event-*.json")))
        page.wait_for(
            f"document.getElementById('event-count').textContent === '{on_disk}'",
            timeout=LIVE_WAIT,
        )
        page.wait_for(
            "document.querySelector('.fact-status dd').textContent === 'finished'",
            timeout=LIVE_WAIT,
        )
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def _result_on_disk(folder: Path, marker: str) -> bool:
    """Whether the terminal result printing `marker` is on disk (in its output, not its command)."""
    for path in (folder / "events").glob("event-*.json"):
        try:
            data = json.loads(path.read_text())
        except ValueError:
            continue
        if data.get("kind") == "ObservationEvent":
            content = data.get("observation", {}).get("content", [])
            if any(marker in str(c.get("text", "")) for c in content if isinstance(c, dict)):
                return True
    return False
