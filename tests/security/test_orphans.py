"""SIGKILL of a command leaves no worker behind: real processes, real signals (issue 30, medium 1).

A killed terminal, an OOM kill or a CI timeout ends `export`, `migrate` or `serve` with SIGKILL,
which no handler sees. Their workers must end too (a parent-death signal on Linux, a watch on the
parent elsewhere), and a worker whose parent is gone must honour SIGTERM and SIGINT.

The process tree is read from `/proc` (Linux only; skipped elsewhere). A process counts as ended
once it is gone or a zombie (an orphan's zombie waits for the container's init to reap it).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURE = next((REPO / "fixtures" / "sdk" / "b_terminal").glob("[0-9a-f]" * 32))
WAIT_S = 60  # not a speed claim: only catches workers that never end (they end in ~1 s here)

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of `pid`, or None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1])


def _descendants(root: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (found := _stat(int(entry))) is not None:
            parents[int(entry)] = found[1]
    out: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - out
        out |= frontier
    return out


def _alive(pid: int) -> bool:
    found = _stat(pid)
    return found is not None and found[0] != "Z"


def _start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "trajkit", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        start_new_session=True,
    )


def _workers_of(proc: subprocess.Popen[bytes], count: int) -> set[int]:
    """The command's descendants once at least `count` have started (the command still runs)."""
    deadline = time.monotonic() + WAIT_S
    while len(found := _descendants(proc.pid)) < count:
        assert proc.poll() is None, f"the command ended first (exit {proc.returncode})"
        assert time.monotonic() < deadline, "no workers started"
        time.sleep(0.02)
    return found


def _kill_and_wait(proc: subprocess.Popen[bytes], workers: set[int]) -> list[int]:
    """SIGKILL the command; the workers still alive after `WAIT_S` (none, when they follow)."""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=WAIT_S)
    deadline = time.monotonic() + WAIT_S
    while (left := [p for p in workers if _alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    for i in range(400):
        cid = uuid.UUID(int=i + 1)
        folder = Path(shutil.copytree(FIXTURE, root / cid.hex))
        state = json.loads((folder / "base_state.json").read_text())
        state["id"] = str(cid)
        (folder / "base_state.json").write_text(json.dumps(state))
    return root


@pytest.fixture
def reap() -> Iterator[list[int]]:
    """Pids this test saw; any still alive at the end are killed (a failing test leaks none)."""
    seen: list[int] = []
    yield seen
    for pid in seen:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _v0_input(root: Path, n: int) -> Path:
    lines = (REPO / "fixtures" / "v0-synthetic" / "eval_output.jsonl").read_text().splitlines()
    records = []
    for i in range(n):
        record = json.loads(lines[i % len(lines)])
        record["instance_id"] = f"inst-{i:05d}"
        records.append(json.dumps(record))
    (root / "in").mkdir()
    (root / "in" / "output.jsonl").write_text("\n".join(records) + "\n")
    return root / "in"


@pytest.mark.timeout(4 * WAIT_S)
def test_sigkill_of_export_ends_its_workers(corpus: Path, tmp_path: Path, reap: list[int]) -> None:
    proc = _start("export", str(corpus), "-o", str(tmp_path / "ds"), "--workers", "2")
    workers = _workers_of(proc, 2)
    reap.extend(workers)
    assert _kill_and_wait(proc, workers) == []


@pytest.mark.timeout(4 * WAIT_S)
def test_sigkill_of_migrate_ends_its_workers(tmp_path: Path, reap: list[int]) -> None:
    source = _v0_input(tmp_path, 400)
    proc = _start("migrate", str(source), "-o", str(tmp_path / "out"), "--jobs", "2")
    workers = _workers_of(proc, 2)
    reap.extend(workers)
    assert _kill_and_wait(proc, workers) == []


@pytest.mark.timeout(4 * WAIT_S)
def test_sigkill_of_serve_during_its_first_scan_ends_its_workers(
    corpus: Path, tmp_path: Path, reap: list[int]
) -> None:
    # serve runs threads, so its workers come from a forkserver: a grandchild tree.
    proc = _start(
        "serve", str(corpus), "--port", "0", "--cache", str(tmp_path / "c.sqlite3"), "--jobs", "2"
    )
    workers = _workers_of(proc, 2)
    reap.extend(workers)
    assert _kill_and_wait(proc, workers) == []


_SLOW_CHILD = """
import time
from trajkit.corpus import map_conversations

def slow(i):
    time.sleep(3600 if i == 0 else 0.01)
    return i

if __name__ == "__main__":
    for _ in map_conversations(slow, range(1000), workers=2):
        pass
"""


@pytest.mark.timeout(4 * WAIT_S)
def test_without_the_parent_death_signal_the_watch_ends_the_orphans(
    tmp_path: Path, reap: list[int]
) -> None:
    """The fallback for platforms without PR_SET_PDEATHSIG: one worker sleeps inside an item,
    the other works through short ones; both end once their parent is killed."""
    script = tmp_path / "child.py"
    script.write_text(_SLOW_CHILD)
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        env={**os.environ, "PYTHONPATH": str(REPO), "TRAJKIT_NO_PDEATHSIG": "1"},
        start_new_session=True,
    )
    workers = _workers_of(proc, 2)  # type: ignore[arg-type]
    reap.extend(workers)
    time.sleep(0.5)  # both inside items
    assert _kill_and_wait(proc, workers) == []  # type: ignore[arg-type]
