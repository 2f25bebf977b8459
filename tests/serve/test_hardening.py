"""Issue 30 against a real `trajkit serve` on 127.0.0.1: a private cache, hostile requests.

Every test talks to the server over a real socket with a bounded number of requests.
"""

from __future__ import annotations

import http.client
import json
import os
import select
import shutil
import socket
import stat
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.serve.conftest import Server
from tests.support.fixtures import REPO
from tests.views.conftest import make_corpus


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The common umask, under which the cache used to come out 0644 (the server inherits it)."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _cache_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("serve-*.sqlite3*"))


def test_the_default_cache_is_private_to_the_user(tmp_path: Path, umask_022: None) -> None:
    make_corpus(tmp_path / "corpus")
    server = Server([tmp_path / "corpus"], None, env={"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    try:
        assert server.rows()["all"] >= 0  # the index answers: the cache is open
        server.wait_indexed(3)
        folder = tmp_path / "xdg" / "trajkit"
        names = [p.name for p in _cache_files(folder)]
        assert any(n.endswith(".sqlite3-wal") for n in names), names  # WAL mode: 3 files
        assert _mode(folder) == 0o700
        assert {p.name: _mode(p) for p in _cache_files(folder)} == dict.fromkeys(names, 0o600)
    finally:
        server.close()


def test_an_existing_world_readable_cache_is_tightened(tmp_path: Path, umask_022: None) -> None:
    make_corpus(tmp_path / "corpus")
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    first = Server([tmp_path / "corpus"], None, env=env)
    first.wait_indexed(3)
    first.close()
    folder = tmp_path / "xdg" / "trajkit"
    os.chmod(folder, 0o755)  # as an older trajkit left them
    for path in _cache_files(folder):
        os.chmod(path, 0o644)
    (folder.parent / "other").mkdir()

    again = Server([tmp_path / "corpus"], None, env=env)
    try:
        again.wait_indexed(3)
        assert _mode(folder) == 0o700
        modes = {p.name: _mode(p) for p in _cache_files(folder)}
        assert modes and set(modes.values()) == {0o600}, modes
        assert _mode(folder.parent / "other") == 0o755  # nothing else under XDG_CACHE_HOME
    finally:
        again.close()


def test_a_chosen_cache_file_is_private_and_its_new_folder_too(
    tmp_path: Path, umask_022: None
) -> None:
    make_corpus(tmp_path / "corpus")
    cache = tmp_path / "new" / "deeper" / "index.sqlite3"
    server = Server([tmp_path / "corpus"], cache)
    try:
        server.wait_indexed(3)
        assert _mode(cache.parent) == 0o700
        assert _mode(cache) == 0o600
        assert _mode(Path(f"{cache}-wal")) == 0o600
    finally:
        server.close()


# -- hostile requests (issue 30, low) -------------------------------------------------------


def test_a_huge_page_number_is_an_empty_page_not_a_500(tmp_path: Path, serve: Any) -> None:
    make_corpus(tmp_path / "corpus")
    server = serve([tmp_path / "corpus"])
    server.wait_indexed(3)
    for query in (
        "page=" + "9" * 30,
        "page=-5",
        "size=" + "9" * 30,
        "page=1e9",
        "page=" + "9" * 5000,
    ):
        status, _, body = server.request(f"/api/rows?{query}")
        assert status == 200, (query, body[:300])
        assert json.loads(body)["all"] == 3
    assert server.rows("page=" + "9" * 30)["rows"] == []


def _first_sse_events(server: Any, path: str, headers: dict[str, str], want: int) -> list[str]:
    """The first `want` SSE events of a stream (a bounded read: stops by itself)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        assert resp.status == 200, resp.read()[:300]
        events: list[str] = []
        block: list[str] = []
        for _ in range(10_000):
            line = resp.readline().decode()
            if not line:
                break
            if line.strip():
                block.append(line.strip())
            elif block:
                events.append("\n".join(block))
                block = []
                if len([e for e in events if "event: entries" in e]) >= want:
                    break  # want=0: after the stream's first block (its `retry:`)
        return events
    finally:
        conn.close()


def test_a_negative_last_event_id_starts_the_stream_from_the_first_event(
    tmp_path: Path, serve: Any
) -> None:
    folders = make_corpus(tmp_path / "corpus")
    server = serve([tmp_path / "corpus"])
    server.wait_indexed(3)
    key = next(
        r["key"] for r in server.rows()["rows"] if r["id"].replace("-", "") in str(folders["plain"])
    )
    for last in ("-1000", "-1", "99999999999999999999999999999"):
        beyond = last.startswith("9")  # nothing to send yet: the stream opens, and waits
        events = _first_sse_events(
            server, f"/api/live/{key}", {"Last-Event-ID": last}, 0 if beyond else 1
        )
        entries = [e for e in events if "event: entries" in e]
        if beyond:
            assert events == ["retry: 1000"]
            continue
        assert entries and '"index":0,' in entries[0], events  # from the first event


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1:80@evil.example", "localhost:", "localhost:80:80", "evil.example",
     "127.0.0.1.evil.example", "localhost@evil.example", "[::1]x", ""],
)  # fmt: skip
def test_host_headers_are_parsed_not_split(tmp_path: Path, serve: Any, host: str) -> None:
    server = _shared_server(tmp_path, serve)
    assert server.request("/api/rows", {"Host": host})[0] == 403


def test_loopback_host_headers_still_pass(tmp_path: Path, serve: Any) -> None:
    server = _shared_server(tmp_path, serve)
    for host in ("127.0.0.1", f"127.0.0.1:{server.port}", "LOCALHOST:1", "[::1]:8765", "localhost"):
        assert server.request("/api/rows", {"Host": host})[0] == 200, host


def _shared_server(tmp_path: Path, serve: Any) -> Any:
    make_corpus(tmp_path / "corpus")
    return serve([tmp_path / "corpus"])


@pytest.mark.parametrize(
    "path", ["//evil.example/x", "/\\evil.example/x", "///evil.example", "/\\/evil"]
)
def test_the_token_redirect_stays_on_this_site(tmp_path: Path, serve: Any, path: str) -> None:
    make_corpus(tmp_path / "corpus")
    server = serve([tmp_path / "corpus"], "--host", "0.0.0.0")
    token = server.url.split("?token=", 1)[1]
    status, headers, _ = server.request(f"{path}?token={token}&a=1")
    assert status == 303
    location = headers["location"]
    assert location.startswith("/") and not location.startswith(("//", "/\\"))
    assert urllib.parse.urlsplit(location).netloc == "" and location.endswith("?a=1")


# -- connections that never finish a request (issue 30, medium 7) ---------------------------


def test_half_open_connections_are_closed_and_cannot_hold_the_server(
    tmp_path: Path, serve: Any
) -> None:
    """300 connections over the limit: silent ones and ones that send half a request head. While
    they are open a request gets 503 (never a hang); each is closed by the server within the
    request timeout; then requests are answered again."""
    from trajkit.serve.limits import MAX_CONNECTIONS, REQUEST_TIMEOUT_S

    make_corpus(tmp_path / "corpus")
    server = serve([tmp_path / "corpus"])
    server.wait_indexed(3)
    held: list[socket.socket] = []
    try:
        for i in range(MAX_CONNECTIONS + 44):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            if i % 2:
                sock.sendall(b"GET /api/rows HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            held.append(sock)
        time.sleep(0.5)  # let the server accept them all
        assert server.request("/api/rows")[0] == 503
        opened = time.monotonic()
        open_ = set(held)
        while open_ and time.monotonic() - opened < REQUEST_TIMEOUT_S + 30:
            ready, _, _ = select.select(list(open_), [], [], 1.0)
            for sock in ready:
                if sock.recv(4096) == b"":  # closed by the server
                    open_.discard(sock)
        assert not open_, f"{len(open_)} connections still open"
        assert time.monotonic() - opened < REQUEST_TIMEOUT_S + 30
        assert server.request("/api/rows")[0] == 200
    finally:
        for sock in held:
            sock.close()


def test_a_live_stream_outlives_the_request_timeout(tmp_path: Path, serve: Any) -> None:
    """The timeout is for a request's head: a request being answered is never cut."""
    from trajkit.serve.limits import REQUEST_TIMEOUT_S

    make_corpus(tmp_path / "corpus")
    server = serve([tmp_path / "corpus"])
    server.wait_indexed(3)
    key = server.rows()["rows"][0]["key"]
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        conn.request("GET", f"/api/live/{key}", headers={"Last-Event-ID": "1000000"})
        resp = conn.getresponse()
        assert resp.status == 200
        started = time.monotonic()
        lines = []
        while time.monotonic() - started < REQUEST_TIMEOUT_S + 5:  # a ping comes every 15 s
            line = resp.readline()
            assert line, "the server closed a live stream"
            lines.append(line)
        assert b": ping\n" in lines
    finally:
        conn.close()


def test_a_live_stream_ends_when_its_folder_is_deleted(tmp_path: Path, serve: Any) -> None:
    folders = make_corpus(tmp_path / "corpus")
    server = serve([tmp_path / "corpus"])
    server.wait_indexed(3)
    key = next(
        r["key"] for r in server.rows()["rows"] if r["id"].replace("-", "") in str(folders["plain"])
    )
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        conn.request("GET", f"/api/live/{key}", headers={"Last-Event-ID": "1000000"})
        resp = conn.getresponse()
        assert resp.status == 200 and resp.readline() == b"retry: 1000\n"
        shutil.rmtree(folders["plain"])
        assert _ends_gone(resp, time.monotonic() + 30)
    finally:
        conn.close()


def _ends_gone(resp: Any, deadline: float) -> bool:
    """Read a live stream until it sends `gone` and ends (True), or until `deadline` (False).

    A stream that never ends still sends a ping every 15 s, so the loop checks the deadline.
    """
    gone = False
    while time.monotonic() < deadline:
        line = resp.readline()
        if not line:
            return gone  # the server ended the stream
        gone = gone or line == b'data: "gone"\n'
    return False


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _open_stream(server: Any, key: str) -> tuple[http.client.HTTPConnection, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    conn.request("GET", f"/api/live/{key}", headers={"Last-Event-ID": "1000000"})
    resp = conn.getresponse()
    assert resp.status == 200 and resp.readline() == b"retry: 1000\n"
    return conn, resp


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads CPU time from /proc")
def test_streams_on_one_conversation_share_one_watcher_and_all_end_when_it_is_deleted(
    tmp_path: Path, serve: Any
) -> None:
    """Ten live streams on a 3,000-event conversation: on 8bb7cc8 each listed `events/` every
    0.25 s (ten times the CPU of one stream) and none ended when the folder was deleted. Now one
    watcher lists it for all: the server's CPU time over a window with ten streams stays within
    twice that with one, and deleting the folder ends every stream."""
    folder = _big_conversation(tmp_path / "corpus" / uuid.UUID(int=8).hex, 3000)
    server = serve([tmp_path / "corpus"], "--rescan", "3600")
    server.wait_indexed(1)
    key = server.rows()["rows"][0]["key"]
    pid, window = server.proc.pid, 4.0

    def cpu_over_window() -> float:
        time.sleep(1.0)  # streams opened just now settle into their loop
        before = _cpu_seconds(pid)
        time.sleep(window)
        return _cpu_seconds(pid) - before

    streams = [_open_stream(server, key)]
    one = cpu_over_window()
    try:
        streams += [_open_stream(server, key) for _ in range(9)]
        ten = cpu_over_window()
        assert ten < 2 * one + 0.1, f"10 streams: {ten:.2f} CPU-s, 1 stream: {one:.2f}"
        shutil.rmtree(folder)
        deadline = time.monotonic() + 30
        assert [_ends_gone(resp, deadline) for _, resp in streams] == [True] * 10
    finally:
        for conn, _ in streams:
            conn.close()


# -- heavy pages (issue 30, medium 6) -------------------------------------------------------


def _big_conversation(folder: Path, n: int) -> Path:
    """A V1 conversation of `n` events: the repo's b_terminal events over and over."""
    src = next((REPO / "fixtures" / "sdk" / "b_terminal").glob("[0-9a-f]" * 32))
    (folder / "events").mkdir(parents=True)
    state = json.loads((src / "base_state.json").read_text())
    state["id"] = str(uuid.UUID(hex=folder.name))
    state.pop("leaf_event_id", None)
    (folder / "base_state.json").write_text(json.dumps(state))
    events = [json.loads(p.read_text()) for p in sorted((src / "events").glob("event-*.json"))]
    for i in range(n):
        event = {**events[i % len(events)], "id": str(uuid.UUID(int=i + 1))}
        if "tool_call_id" in event:
            event["tool_call_id"] = f"{event['tool_call_id']}-{i // len(events)}"
        (folder / "events" / f"event-{i:05d}-{event['id']}.json").write_text(json.dumps(event))
    return folder


def _peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_concurrent_heavy_pages_are_built_a_few_at_a_time(tmp_path: Path, serve: Any) -> None:
    """Eight different 3,000-event pages asked at once: all answered, and the server's peak
    memory grows by about two builds (the bound), not eight."""
    from concurrent.futures import ThreadPoolExecutor

    corpus = tmp_path / "corpus"
    for i in range(9):
        _big_conversation(corpus / uuid.UUID(int=1000 + i).hex, 3000)
    server = serve([corpus])
    server.wait_indexed(9, timeout=300)
    keys = [r["key"] for r in server.rows("size=20")["rows"]]
    base = _peak_mb(server.proc.pid)
    status, _, body = server.request(f"/c/{keys[0]}")
    assert status == 200 and len(body) > 100_000
    one = _peak_mb(server.proc.pid) - base  # what one build costs at its peak
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda k: server.request(f"/c/{k}"), keys[1:]))
    assert [a[0] for a in answers] == [200] * 8
    grown = _peak_mb(server.proc.pid) - base
    assert grown < 3 * max(one, 30), (one, grown)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_ten_requests_on_a_20000_event_conversation_fit_the_budget(
    tmp_path: Path, serve: Any
) -> None:
    """Issue 30, medium 6: ten page requests at once on one 20,000-event conversation (its
    report, its comparison with itself, its entries) are all answered within 90 s, and the
    server's peak resident memory (VmHWM) stays under 700 MB.
    """
    from concurrent.futures import ThreadPoolExecutor

    folder = _big_conversation(tmp_path / "corpus" / uuid.UUID(int=7).hex, 20_000)
    server = serve([folder.parent])
    server.wait_indexed(1, timeout=300)
    key = server.rows()["rows"][0]["key"]
    paths = [f"/c/{key}?n={i}" for i in range(6)]
    paths += [f"/compare?a={key}&b={key}"] * 2
    paths += [f"/api/c/{key}/entries?at={','.join(map(str, range(i, 20_000, 40)))}" for i in (0, 1)]
    started = time.monotonic()

    def get(path: str) -> tuple[int, bytes, float]:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=90)
        try:
            conn.request("GET", path)
            resp = conn.getresponse()
            return resp.status, resp.read(), time.monotonic() - started
        finally:
            conn.close()

    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(get, paths))
    took = max(a[2] for a in answers)
    assert [a[0] for a in answers] == [200] * 10, [a[1][:200] for a in answers if a[0] != 200]
    assert b"event-count" in answers[0][1] and b"diff-count" in answers[6][1]
    assert took < 90, took
    peak = _peak_mb(server.proc.pid)
    assert peak < 700, peak
    print(f"10 requests in {[round(a[2], 1) for a in answers]} s, server peak {peak:.0f} MB")
