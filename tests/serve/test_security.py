"""`trajkit serve` security over real HTTP: only conversations under the PATHs are served
(`..`, `%2e%2e`, absolute paths, symlinks leading outside), strict CSP with a fresh nonce on
every page, loopback Host check, the access token on other hosts, secrets masked as in view."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.fixtures import REPO
from tests.views.conftest import failing_command_events, make_corpus, write_conversation

TRAVERSALS = [
    "/c/..",
    "/c/../../etc/passwd",
    "/c/..%2f..%2fetc%2fpasswd",
    "/c/%2e%2e",
    "/c/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "/c/%252e%252e",
    "/c//etc/passwd",
    "/c/%2fetc%2fpasswd",
    "/etc/passwd",
    "/../../etc/passwd",
    "/api/live/..%2f..%2fetc",
    "/api/c/..%2f..%2fetc/entries?at=0",
    "/api/c/%2e%2e/entries?at=0",
    "/compare?a=../../etc/passwd&b=%2fetc%2fpasswd",
    "/c/0000000000000000",
]


def test_paths_outside_are_never_served(tmp_path: Path, serve: Any) -> None:
    corpus = tmp_path / "corpus"
    make_corpus(corpus)
    outside = write_conversation(
        tmp_path / "outside" / ("9f" * 16), failing_command_events("outsidesecretword")
    )
    os.symlink(outside, corpus / ("9f" * 16))  # a conversation folder leading outside
    server = serve([corpus])
    server.wait_indexed(3)
    listed = server.rows()
    assert listed["all"] == 3  # the symlinked one is not listed
    assert server.rows("q=outsidesecretword")["total"] == 0
    for path in TRAVERSALS:
        status, _, body = server.request(path)
        assert status in (403, 404), (path, status)
        assert b"root:" not in body and b"outsidesecretword" not in body, path
    # The entries API takes positions only.
    key = listed["rows"][0]["key"]
    assert server.request(f"/api/c/{key}/entries?at=../../etc/passwd")[0] == 400
    status, _, body = server.request(f"/api/c/{key}/entries?at=0,1")
    assert status == 200 and [e["index"] for e in json.loads(body)] == [0, 1]
    # Its key (computed as the catalog would) is unknown too.
    from trajkit.views.catalog import source_key

    status, _, _ = server.request(f"/c/{source_key(corpus / ('9f' * 16))}")
    assert status == 404
    # A listed conversation whose events/ is later replaced by a link outside is refused.
    victim = next(r for r in listed["rows"] if r["status"] == "running")
    events = Path(victim["path"]) / "events"
    events.rename(events.with_name("events.moved"))
    os.symlink(outside / "events", events)
    status, _, body = server.request(f"/c/{victim['key']}")
    assert status == 404 and b"outsidesecretword" not in body


def test_every_page_has_a_strict_csp_with_a_fresh_nonce(tmp_path: Path, serve: Any) -> None:
    make_corpus(tmp_path / "corpus")
    server = serve([tmp_path / "corpus"])
    server.wait_indexed(3)
    rows = server.rows()["rows"]
    pages = ["/", f"/c/{rows[0]['key']}", f"/compare?a={rows[0]['key']}&b={rows[1]['key']}"]
    nonces = []
    for path in pages:
        status, headers, body = server.request(path)
        assert status == 200, path
        csp = headers["content-security-policy"]
        nonce = re.search(r"script-src 'nonce-([\w-]+)'", csp)
        assert nonce is not None and "unsafe-inline" not in csp and "default-src 'none'" in csp
        nonces.append(nonce.group(1))
        scripts = re.findall(rb"<script(?![^>]*application/json)([^>]*)>", body)
        assert all(f'nonce="{nonce.group(1)}"'.encode() in s for s in scripts), path
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
    assert len(set(nonces)) == len(nonces)  # fresh per response


def test_loopback_refuses_foreign_host_headers(tmp_path: Path, serve: Any) -> None:
    make_corpus(tmp_path / "corpus")
    server = serve([tmp_path / "corpus"])
    assert server.url.startswith("http://127.0.0.1:") and "token" not in server.url
    assert server.request("/", {"Host": f"localhost:{server.port}"})[0] == 200
    assert server.request("/", {"Host": "evil.example:80"})[0] == 403  # DNS rebinding


def test_other_hosts_need_the_printed_token(tmp_path: Path, serve: Any) -> None:
    make_corpus(tmp_path / "corpus")
    server = serve([tmp_path / "corpus"], "--host", "0.0.0.0")
    token = server.url.split("?token=", 1)[1]
    assert len(token) >= 30
    assert server.request("/")[0] == 403
    assert server.request("/api/rows")[0] == 403
    assert server.request("/?token=wrong")[0] == 403
    status, headers, _ = server.request(f"/?token={token}")
    assert status == 303 and headers["location"] == "/"
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    value = cookie.split(";", 1)[0]
    assert server.request("/api/rows", {"Cookie": value})[0] == 200
    assert server.request("/api/rows", {"Cookie": "trajkit_token=nope"})[0] == 403


def test_secrets_are_masked_as_in_view(tmp_path: Path, serve: Any) -> None:
    corpus = tmp_path / "corpus"
    folder = write_conversation(corpus / ("5e" * 16), failing_command_events())
    state = json.loads((folder / "base_state.json").read_text())
    state["agent"]["llm"]["api_key"] = "sk-live-NEVERSHOWN1234567890"
    (folder / "base_state.json").write_text(json.dumps(state))
    out = tmp_path / "view.html"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run(
        [sys.executable, "-m", "trajkit", "view", str(folder), "-o", str(out)], check=True, env=env
    )
    server = serve([corpus])
    server.wait_indexed(1)
    key = server.rows()["rows"][0]["key"]
    status, _, body = server.request(f"/c/{key}")
    assert status == 200
    assert b"NEVERSHOWN" not in body and b"NEVERSHOWN" not in out.read_bytes()
    assert b"NEVERSHOWN" not in server.request("/api/rows?q=NEVERSHOWN")[2]
