"""`trajkit serve` benchmark: the index of many generated conversations.

Usage:
    python benchmarks/bench_serve.py [--conversations 100000] [--keep DIR] [--jobs 2]

Writes `--conversations` small V1 conversations (a user message with a few unique words, a
terminal call and its result, 1 in 7 failing; three models, three statuses) into a temporary
folder (or `--keep DIR`, reused when it already holds them), then prints:
- generation time; the cache build (`Catalog.scan`, every conversation read with the ls/stats
  summary code), in conversations per second;
- a fresh `trajkit serve` process on that cache: time to its first page of rows
  (`/api/rows`), to the index page, to a sorted page, a filtered page and a full-text
  search, and its resident memory (VmRSS, and the peak VmHWM) after those requests and once
  its background rescan of the folders has finished.
Targets (issue 17): first page under 2 s after the cache is built; server under 300 MB.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from trajkit.events import (  # noqa: E402
    ActionEvent,
    Message,
    MessageEvent,
    MessageToolCall,
    ObservationEvent,
    TerminalAction,
    TerminalObservation,
    TextContent,
    dump_event,
)
from trajkit.serve.catalog import Catalog  # noqa: E402
from trajkit.store.layout import event_file_name  # noqa: E402

MODELS = ("openai/gpt-4o", "anthropic/claude-sonnet-4", "openai/gpt-4o-mini")
STATUSES = ("finished", "error", "running")


def _templates() -> list[str]:
    action = ActionEvent(
        thought=[TextContent(text="Run it.")],
        action=TerminalAction(command="CMD"),
        tool_name="terminal",
        tool_call_id="CALL",
        tool_call=MessageToolCall(id="CALL", name="terminal", arguments='{"command": "CMD"}'),
        llm_response_id="RESP",
    )
    obs = ObservationEvent(
        tool_name="terminal",
        tool_call_id="CALL",
        action_id=action.id,
        observation=TerminalObservation(
            content=[TextContent(text="OUTPUT")], command="CMD", exit_code=0
        ),
    )
    user = MessageEvent(
        source="user", llm_message=Message(role="user", content=[TextContent(text="TASK")])
    )
    return [dump_event(user), dump_event(action), dump_event(obs)]


def generate(root: Path, n: int) -> None:
    root.mkdir(parents=True, exist_ok=True)
    templates = _templates()
    ids = [json.loads(t)["id"] for t in templates]
    for i in range(n):
        cid = uuid.UUID(int=i + 1, version=4)
        folder = root / cid.hex
        (folder / "events").mkdir(parents=True, exist_ok=True)
        state = {
            "id": str(cid),
            "agent": {"llm": {"model": MODELS[i % 3]}},
            "execution_status": STATUSES[(i // 3) % 3],
        }
        (folder / "base_state.json").write_text(json.dumps(state))
        fails = i % 7 == 0
        for pos, (template, old_id) in enumerate(zip(templates, ids, strict=True)):
            new_id = str(uuid.UUID(int=(i + 1) * 8 + pos, version=4))
            text = (
                template.replace(old_id, new_id)
                .replace("TASK", f"Fix issue word{i} in module m{i % 100}")
                .replace("CMD", f"pytest tests/test_{i % 50}.py")
                .replace("OUTPUT", f"{'1 failed' if fails else '3 passed'} run{i}")
                .replace("CALL", f"call{i}")
                .replace("RESP", f"resp{i}")
            )
            if fails and pos == 2:
                text = text.replace('"exit_code":0', '"exit_code":1')
            (folder / "events" / event_file_name(pos, new_id)).write_text(text)


def _get(port: int, path: str) -> tuple[float, bytes]:
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", path)
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    assert resp.status == 200, (path, resp.status, body[:200])
    return time.perf_counter() - started, body


def _memory(pid: int) -> str:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return f"RSS {fields['VmRSS']:.0f} MB (peak {fields['VmHWM']:.0f} MB)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes for the cache build")
    parser.add_argument(
        "--cache", type=Path, default=None, help="reuse this cache (built if absent)"
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    corpus = args.keep or work / "corpus"
    n = args.conversations
    have = sum(1 for _ in corpus.iterdir()) if corpus.exists() else 0
    if have != n:
        started = time.perf_counter()
        generate(corpus, n)
        print(f"generated {n:,} conversations in {time.perf_counter() - started:.1f}s")
    db = args.cache or work / "cache.sqlite3"
    if not db.exists():
        started = time.perf_counter()
        catalog = Catalog([str(corpus)], db, workers=args.jobs)
        catalog.scan()
        built = time.perf_counter() - started
        print(f"cache built: {n:,} conversations in {built:.1f}s ({n / built:,.0f}/s), "
              f"{db.stat().st_size / 1e6:.0f} MB on disk")  # fmt: skip
    started = time.perf_counter()
    Catalog([str(corpus)], db).scan()
    print(f"rescan with the cache (stat only): {time.perf_counter() - started:.1f}s")

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "trajkit", "serve", str(corpus), "--port", "0", "--cache", str(db)],
        stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        t0 = time.perf_counter()
        line = ""
        while not line.startswith("open "):
            line = proc.stdout.readline()
        port = int(line.split()[1].rstrip("/").rsplit(":", 1)[1])
        first, body = _get(port, "/api/rows?size=50")
        total = json.loads(body)["all"]
        print(f"server start to first page of rows: {time.perf_counter() - t0:.2f}s "
              f"(the request itself {first:.3f}s; {total:,} rows)")  # fmt: skip
        for label, path in (
            ("index page", "/"),
            ("sorted by cost, page 100", "/api/rows?sort=cost&order=desc&page=100"),
            ("filtered: model + has errors", "/api/rows?model=openai%2Fgpt-4o&errors=1"),
            ("full-text search, one word", "/api/rows?q=word77777"),
            ("full-text search, common word", "/api/rows?q=pytest"),
        ):
            took, body = _get(port, path)
            extra = json.loads(body)["total"] if path.startswith("/api") else ""
            print(f"  {label}: {took:.3f}s" + (f" ({extra:,} match)" if extra != "" else ""))
        print(f"server memory after the requests: {_memory(proc.pid)}")
        started = time.perf_counter()
        while True:  # the background rescan: wait until it has run once
            time.sleep(1)
            if time.perf_counter() - started > max(30, n / 2000):
                break
        _get(port, "/api/rows")
        print(f"server memory after its rescan: {_memory(proc.pid)}")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
