"""Two processes append to one conversation while two others read it.

Nothing is lost, no index is used twice, the indices run 0..N-1 without a gap, and a reader
never fails on a file that exists complete afterwards (it never sees a half-written file).
CI appends `TRAJKIT_CONCURRENT_EVENTS` (default 300) per writer; the slow mode appends 10,000.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from trajkit.store import open_conversation
from trajkit.store.reader import parse_event_bytes

ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("concurrency_child.py")
EVENTS = int(os.environ.get("TRAJKIT_CONCURRENT_EVENTS", "300"))


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CHILD), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )


def _run(tmp_path: Path, n: int) -> None:
    folder = tmp_path / "0123456789abcdef0123456789abcdef"
    stop = tmp_path / "stop"
    readers = [_spawn("read", str(folder), str(stop), str(tmp_path / f"r{i}.err")) for i in (0, 1)]
    writers = [_spawn("append", str(folder), str(n), tag) for tag in ("A", "B")]
    for w in writers:
        out, err = w.communicate(timeout=3600)
        assert w.returncode == 0, err
    stop.touch()
    reads = []
    for r in readers:
        out, err = r.communicate(timeout=600)
        assert r.returncode == 0, err
        reads.append(out.split())

    files = open_conversation(folder).event_files()
    indices = [f.index for f in files]
    assert indices == list(range(2 * n)), "an index is missing or used twice"
    texts = Counter(e.llm_message.content[0].text for e in open_conversation(folder).iter_events())
    assert texts == Counter([f"{t}-{i}" for t in "AB" for i in range(n)])

    # A reader error is only acceptable for a file that is not whole now either (none here).
    for i in (0, 1):
        for line in (tmp_path / f"r{i}.err").read_text().splitlines():
            path, message = line.split("\t", 1)
            parse_event_bytes(Path(path), Path(path).read_bytes())  # raises if still bad
            pytest.fail(f"reader {i} saw a half-written file: {path}: {message}")
    assert all(int(passes) > 0 for passes, _ in reads)
    print(f"\nconcurrency: {2 * n} events appended by 2 processes; reader passes/events {reads}")


def test_two_writers_and_two_readers(tmp_path: Path) -> None:
    _run(tmp_path, EVENTS)


@pytest.mark.slow
@pytest.mark.timeout(2 * 3600)
def test_two_writers_10000_events_each(tmp_path: Path) -> None:
    _run(tmp_path, max(EVENTS, 10_000))
