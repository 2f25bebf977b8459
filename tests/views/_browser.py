"""A headless Chromium driven over the Chrome DevTools Protocol, for the HTML report tests.

Chromium is started with the flags that keep it off the network (no background networking,
no component updates, no sync, no QUIC, every host name but 127.0.0.1 resolving to nothing) and a throwaway
profile; the DevTools port is chosen by Chromium (`--remote-debugging-port=0`) and read back
from `DevToolsActivePort`. `Page` sends CDP commands over a websocket (websocket-client),
records the events it receives (e.g. `Network.requestWillBeSent`), and offers real input:
mouse clicks at coordinates and typed text.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    """Path of a Chromium binary on PATH, or None."""
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """One headless Chromium process with its own profile folder."""

    def __init__(self, binary: str, profile: Path) -> None:
        profile.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--no-proxy-server",
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",  # loopback: trajkit serve
                f"--user-data-dir={profile}",
                "--remote-debugging-port=0",
                "--window-size=1280,1000",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.port = self._wait_port(profile / "DevToolsActivePort")

    def _wait_port(self, marker: Path, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with code {self.process.returncode}")
            if marker.exists():
                first = marker.read_text().splitlines()[:1]
                if first and first[0].isdigit():
                    return int(first[0])
            time.sleep(0.05)
        raise TimeoutError("chromium did not open its DevTools port")

    def new_page(self) -> Page:
        """Open a new tab and connect to it."""
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/json/new?about:blank", method="PUT"
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            target = json.loads(resp.read())
        return Page(target["webSocketDebuggerUrl"])

    def close(self) -> None:
        """Stop this Chromium process (only this one)."""
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Page:
    """A CDP session on one tab."""

    def __init__(self, ws_url: str) -> None:
        import websocket

        self.ws = websocket.create_connection(ws_url, timeout=60, suppress_origin=True)
        self.events: list[dict[str, Any]] = []
        self._id = 0

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """Run one CDP command and return its result (events met meanwhile are recorded)."""
        self._id += 1
        self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self._id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return dict(msg.get("result", {}))
            if "method" in msg:
                self.events.append(msg)

    def evaluate(self, expression: str) -> Any:
        """Value of a JavaScript expression in the page."""
        result = self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20.0) -> Any:
        """Poll until `expression` is truthy; return its value."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        raise TimeoutError(f"never true: {expression}")

    def open(self, url: str) -> None:
        """Navigate and wait for the load event (events recorded before are forgotten)."""
        self.events.clear()
        self.send("Page.enable")
        self.send("Network.enable")
        self.send("Page.navigate", url=url)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if any(e["method"] == "Page.loadEventFired" for e in self.events):
                return
            self.send("Runtime.evaluate", expression="1")  # pump events
            time.sleep(0.02)
        raise TimeoutError(f"{url} did not finish loading")

    def requested_urls(self) -> list[str]:
        """Every URL the page asked the network stack for."""
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e["method"] == "Network.requestWillBeSent"
        ]

    def click_at(self, x: float, y: float) -> None:
        """A real left click (move, press, release) at viewport coordinates."""
        self.send("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def click(self, selector: str) -> None:
        """Scroll the element into view and click its centre."""
        rect = self.evaluate(
            f"(() => {{ const el = document.querySelector({json.dumps(selector)});"
            " el.scrollIntoView({block: 'center'}); const r = el.getBoundingClientRect();"
            " return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()"
        )
        self.click_at(rect["x"], rect["y"])

    def set_viewport(self, width: int, height: int, *, mobile: bool = False) -> None:
        """Emulate a screen of `width` x `height` CSS pixels (a phone with `mobile`)."""
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=2 if mobile else 1,
            mobile=mobile,
        )

    def set_color_scheme(self, scheme: str) -> None:
        """Emulate the system's `light` or `dark` setting (prefers-color-scheme)."""
        self.send(
            "Emulation.setEmulatedMedia",
            features=[{"name": "prefers-color-scheme", "value": scheme}],
        )

    def type_text(self, text: str) -> None:
        """Type into the focused element (fires input events)."""
        self.send("Input.insertText", text=text)

    def screenshot(self, path: Path) -> bytes:
        """Save a PNG of the viewport to `path` and return its bytes."""
        data = base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return data

    def close(self) -> None:
        """Close the websocket."""
        self.ws.close()
