"""A real `trajkit serve` process on loopback, and an HTTP client that sends paths as given."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fixtures import REPO
from tests.views.conftest import browser, page  # noqa: F401 (fixtures)


class Server:
    """`python -m trajkit serve PATHS --port 0` in a child process."""

    def __init__(
        self, paths: list[Path], cache: Path | None, *args: str, env: dict[str, str] | None = None
    ) -> None:
        """`cache` None: the default cache path (under `env`'s `XDG_CACHE_HOME`, say)."""
        env = {
            **os.environ,
            "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
            **(env or {}),
        }
        where = [] if cache is None else ["--cache", str(cache)]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "trajkit", "serve", *map(str, paths), "--port", "0",
             *where, "--rescan", "0.5", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        self.url = ""
        self.lines: list[str] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.proc.stdout is not None:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(
                    f"trajkit serve exited: {self.proc.stderr.read() if self.proc.stderr else ''}"
                )
            self.lines.append(line)
            if line.startswith("open "):
                self.url = line.split()[1]
                break
        assert self.url, self.lines
        hostport = self.url.split("//", 1)[1].split("/", 1)[0]
        self.host, port = hostport.rsplit(":", 1)
        self.port = int(port)

    def request(
        self, path: str, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        """GET `path` exactly as written (no normalisation of `..` or `%2e`)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("GET", path, headers=headers or {})
            resp = conn.getresponse()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
        finally:
            conn.close()

    def rows(self, query: str = "") -> dict[str, Any]:
        status, _, body = self.request(f"/api/rows?{query}")
        assert status == 200, body
        return dict(json.loads(body))

    def wait_indexed(self, n: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.rows()["all"] >= n:
                return
            time.sleep(0.1)
        raise TimeoutError(f"index never reached {n} rows")

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    """`serve([paths], *args)` starts a server (stopped after the test)."""
    started: list[Server] = []

    def start(paths: list[Path], *args: str) -> Server:
        server = Server(paths, tmp_path / f"cache-{len(started)}.sqlite3", *args)
        started.append(server)
        return server

    yield start
    for server in started:
        server.close()
