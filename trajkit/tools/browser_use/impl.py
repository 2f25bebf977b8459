"""`BrowserExecutor`: the browser tools run on a system Chromium (headless).

Each page is loaded by Chromium (``--dump-dom``: the DOM after its scripts ran) and kept per
tab with its history; the tools read it: text and links, the numbered links, buttons and
fields, the tab list, a screenshot (``--screenshot``). Clicking a link opens its target. What
needs a page kept alive between calls (typing, scrolling, storage, recording) is answered with
an error observation saying so, as is every tool when no Chromium is installed.
"""

from __future__ import annotations

import base64
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from trajkit.sdk.tool import Observation, ToolExecutor

__all__ = ["BrowserExecutor", "BrowserObservation", "find_chromium"]

_CHROMIUMS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_LOAD_TIMEOUT = 60.0
_PAGE_CHARS = 20_000


def find_chromium() -> str | None:
    """The path of an installed Chromium (or Chrome), or None."""
    return next((p for p in map(shutil.which, _CHROMIUMS) if p), None)


class BrowserObservation(Observation):
    """What the browser shows after an action (text; a screenshot when asked for)."""

    screenshot_data: str | None = None
    """A base64 PNG of the page, when one was taken."""
    full_output_save_dir: str | None = None


@dataclass
class _Page:
    url: str
    title: str = ""
    text: str = ""
    links: list[tuple[str, str]] = field(default_factory=list)
    elements: list[tuple[str, str, str]] = field(default_factory=list)
    """(tag, label, link target) of each link, button and field, numbered from 0."""


class _Reader(HTMLParser):
    _SKIP = frozenset({"script", "style", "noscript", "template", "head"})

    def __init__(self) -> None:
        super().__init__()
        self.page = _Page(url="")
        self._skipping = 0
        self._in_title = False
        self._link: tuple[str, list[str]] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag in self._SKIP:
            self._skipping += 1
        self._in_title = tag == "title"
        if tag == "a" and a.get("href"):
            self._link = (a["href"], [])
        elif tag in ("input", "textarea", "select", "button"):
            label = (
                a.get("aria-label")
                or a.get("placeholder")
                or a.get("name")
                or a.get("value")
                or a.get("type", "")
            )
            self.page.elements.append((tag, label, ""))
        if tag in ("p", "div", "br", "li", "h1", "h2", "h3", "h4", "tr", "section", "article"):
            self._text.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP and self._skipping:
            self._skipping -= 1
        if tag == "title":
            self._in_title = False
        if tag == "a" and self._link is not None:
            href, words = self._link
            label = " ".join("".join(words).split())
            self.page.links.append((label, href))
            self.page.elements.append(("a", label, href))
            self._link = None

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.page.title += data.strip()
        if self._skipping:
            return
        self._text.append(data)
        if self._link is not None:
            self._link[1].append(data)

    def result(self, url: str) -> _Page:
        self.page.url = url
        lines = (" ".join(line.split()) for line in "".join(self._text).splitlines())
        self.page.text = "\n".join(line for line in lines if line)
        self.page.links = [(label, urljoin(url, href)) for label, href in self.page.links]
        self.page.elements = [
            (t, label, urljoin(url, h) if h else "") for t, label, h in self.page.elements
        ]
        return self.page


class BrowserExecutor(ToolExecutor[Any, Any]):
    """Tabs of pages loaded by a headless Chromium, shared by the browser tools."""

    def __init__(self, chromium: str | None = None, **_: Any) -> None:
        self.chromium = chromium or find_chromium()
        self.tabs: dict[str, list[_Page]] = {}
        """Tab id -> its history, the current page last."""
        self.current: str | None = None
        self._next_tab = 0

    def __call__(self, action: Any, conversation: Any = None) -> Any:
        if self.chromium is None:
            return _error(
                "No Chromium or Chrome is installed on this machine, so the browser tools cannot run. Install chromium (e.g. `apt-get install chromium`), or fetch pages with the terminal (curl)."
            )
        handler = getattr(
            self,
            "_" + type(action).__name__.removeprefix("Browser").removesuffix("Action").lower(),
            None,
        )
        if handler is None:
            return _error(
                f"{type(action).__name__} needs a page kept open between calls, which these browser "
                "tools do not keep: pages are loaded and read once. Use browser_navigate, "
                "browser_get_content, browser_get_state and browser_click on links instead."
            )
        try:
            result = handler(action)
        except (OSError, subprocess.SubprocessError, ValueError) as e:
            return _error(f"The browser failed: {e}")
        return (
            result
            if isinstance(result, BrowserObservation)
            else BrowserObservation.from_text(result)
        )

    # -- actions -------------------------------------------------------------------------
    def _navigate(self, action: Any) -> str:
        page = self._load(action.url)
        if action.new_tab or self.current is None:
            self.current = f"tab_{self._next_tab}"
            self._next_tab += 1
            self.tabs[self.current] = []
        self.tabs[self.current].append(page)
        return f"Opened {page.url} ({page.title or 'no title'}) in {self.current}.\n\n{page.text[:_PAGE_CHARS]}"

    def _getcontent(self, action: Any) -> str:
        page = self._page()
        text = page.text[action.start_from_char : action.start_from_char + _PAGE_CHARS]
        if action.extract_links:
            text += "\n\nLinks:\n" + "\n".join(f"- [{label}]({href})" for label, href in page.links)
        return text

    def _getstate(self, action: Any) -> Any:
        from trajkit.events import ImageContent, TextContent

        page = self._page()
        lines = [f"URL: {page.url}", f"Title: {page.title}", f"Tab: {self.current}", "Elements:"]
        lines += [
            f"[{i}] <{tag}> {label}" + (f" -> {href}" if href else "")
            for i, (tag, label, href) in enumerate(page.elements)
        ]
        content: list[Any] = [TextContent(text="\n".join(lines))]
        shot = self._screenshot(page.url) if action.include_screenshot else None
        if shot:
            content.append(ImageContent(image_urls=[f"data:image/png;base64,{shot}"]))
        return BrowserObservation.model_validate({"content": content, "screenshot_data": shot})

    def _click(self, action: Any) -> str:
        page = self._page()
        if action.index >= len(page.elements):
            raise ValueError(
                f"there is no element {action.index} (the page has {len(page.elements)})"
            )
        tag, label, href = page.elements[action.index]
        if not href:
            raise ValueError(
                f"element {action.index} (<{tag}> {label}) is not a link; only links can be followed"
            )
        return self._navigate(type("Go", (), {"url": href, "new_tab": action.new_tab})())

    def _goback(self, action: Any) -> str:
        history = self.tabs.get(self.current or "", [])
        if len(history) < 2:
            raise ValueError("there is no previous page in this tab")
        history.pop()
        return f"Back to {history[-1].url}.\n\n{history[-1].text[:_PAGE_CHARS]}"

    def _listtabs(self, action: Any) -> str:
        if not self.tabs:
            return "No tabs are open."
        return "\n".join(
            f"{tid}{' (current)' if tid == self.current else ''}: {h[-1].url} {h[-1].title}"
            for tid, h in self.tabs.items()
        )

    def _switchtab(self, action: Any) -> str:
        if action.tab_id not in self.tabs:
            raise ValueError(
                f"no tab {action.tab_id!r}; open tabs: {', '.join(self.tabs) or 'none'}"
            )
        self.current = action.tab_id
        return f"Switched to {action.tab_id}: {self.tabs[action.tab_id][-1].url}"

    def _closetab(self, action: Any) -> str:
        if self.tabs.pop(action.tab_id, None) is None:
            raise ValueError(f"no tab {action.tab_id!r}")
        if self.current == action.tab_id:
            self.current = next(iter(self.tabs), None)
        return f"Closed {action.tab_id}."

    # -- Chromium ------------------------------------------------------------------------
    def _page(self) -> _Page:
        if self.current is None:
            raise ValueError("no page is open; call browser_navigate first")
        return self.tabs[self.current][-1]

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        assert self.chromium is not None
        command = [
            self.chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            *args,
        ]
        return subprocess.run(
            command, capture_output=True, text=True, timeout=_LOAD_TIMEOUT, check=False
        )

    def _load(self, url: str) -> _Page:
        if "://" not in url:
            url = Path(url).resolve().as_uri() if Path(url).exists() else f"https://{url}"
        done = self._run("--dump-dom", url)
        if done.returncode != 0 or not done.stdout.strip():
            raise ValueError(
                f"could not load {url}: {done.stderr.strip()[-300:] or f'exit code {done.returncode}'}"
            )
        reader = _Reader()
        reader.feed(done.stdout)
        return reader.result(url)

    def _screenshot(self, url: str) -> str | None:
        with tempfile.TemporaryDirectory() as tmp:
            shot = Path(tmp) / "page.png"
            self._run(f"--screenshot={shot}", "--window-size=1280,900", url)
            return base64.b64encode(shot.read_bytes()).decode() if shot.is_file() else None

    def close(self) -> None:
        self.tabs.clear()
        self.current = None


def _error(text: str) -> Any:
    return BrowserObservation.from_text(text, is_error=True)
