"""`convert --to inspect` output shown by `inspect view` in a real (headless) browser.

The log of the SDK fixtures is served by Inspect's own viewer on loopback; the page must list
every sample by its first user message. The screenshot goes to `artifacts/formats/`
(`docs/inspect-view.png` is a copy of it, checked in).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support import fixtures as fx
from tests.views.conftest import browser, page  # noqa: F401 (fixtures)
from trajkit.cli import main

ARTIFACTS = fx.REPO / "artifacts" / "formats"


@pytest.fixture
def viewer(tmp_path: Path) -> Iterator[str]:
    """`inspect view` over a folder holding the SDK fixtures' log; yields its URL."""
    logs = tmp_path / "logs"
    logs.mkdir()
    out = logs / "trajkit.eval"
    result = CliRunner().invoke(
        main, ["convert", str(fx.SDK_FIXTURES), "--to", "inspect", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    inspect = shutil.which("inspect") or str(Path(sys.executable).with_name("inspect"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [inspect, "view", "--log-dir", str(logs), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(url, timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_inspect_view_lists_every_converted_conversation(viewer: str, page) -> None:  # noqa: F811
    page.open(viewer)
    firsts = [
        "Say hello.",
        "Echo something and create p.txt in parallel.",
        "Write one fact into FACTS.txt.",
    ]
    page.wait_for(
        " && ".join(f"document.body.innerText.includes({t!r})" for t in firsts), timeout=60
    )
    assert "8 Samples" in page.evaluate("document.body.innerText")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(ARTIFACTS / "inspect-view.png")
