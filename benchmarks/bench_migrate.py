"""Migrate benchmark: a large evaluation output.jsonl, events/s and peak memory, 1 vs 2 processes.

Usage:
    python benchmarks/bench_migrate.py /tmp/bench-migrate --lines 200

Builds `<dir>/output.jsonl` with `--lines` eval records, each holding the flat history of the
real `fixtures/v0/tls_scanner__trajectory.json` (210 V0 events, ~1 MB a line), then runs
`trajkit migrate` on it in a fresh process with `--jobs 1` and `--jobs 2` and prints:
- wall time, lines/s and V0 events/s;
- peak RSS of the main process and of the largest worker, for the full file and for a quarter
  of it, to show memory follows one conversation, not the file size.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "fixtures" / "v0" / "tls_scanner__trajectory.json"

_CHILD = """
import resource, sys
from trajkit.engine import LocalEngine
from trajkit.migrate import Migrated, migrate_paths
n = 0
for item in migrate_paths([sys.argv[1]], sys.argv[2], engine=LocalEngine(int(sys.argv[3]))):
    n += isinstance(item, Migrated)
self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(n, self_kb, child_kb)
"""


def build(folder: Path, lines: int) -> tuple[Path, int]:
    history = json.loads(SOURCE.read_text())
    path = folder / f"output-{lines}.jsonl"
    with path.open("w") as fh:
        for n in range(lines):
            record = {"instance_id": f"bench__{n}", "instruction": "bench", "history": history}
            fh.write(json.dumps(record) + "\n")
    return path, len(history) * lines


def run(path: Path, out: Path, jobs: int) -> tuple[float, int, int, int]:
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path), str(out), str(jobs)],
        capture_output=True,
        text=True,
        check=True,
    )
    elapsed = time.perf_counter() - start
    done, self_kb, child_kb = (int(x) for x in proc.stdout.split())
    return elapsed, done, self_kb, child_kb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--lines", type=int, default=200)
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    for lines in (max(1, args.lines // 4), args.lines):
        path, events = build(args.folder, lines)
        size_mb = path.stat().st_size / 1e6
        for jobs in (1, 2):
            elapsed, done, self_kb, child_kb = run(path, args.folder / "out", jobs)
            print(
                f"lines={lines:5d} ({size_mb:7.1f} MB) jobs={jobs}: {elapsed:6.1f} s, "
                f"{done / elapsed:6.1f} conversations/s, {events / elapsed:8.0f} V0 events/s, "
                f"peak RSS main {self_kb / 1024:6.0f} MB, largest worker {child_kb / 1024:6.0f} MB"
            )
    shutil.rmtree(args.folder / "out", ignore_errors=True)


if __name__ == "__main__":
    main()
