"""Export of a large evaluation `output.jsonl` (V1 history): peak memory stays flat.

    .venv/bin/python benchmarks/bench_export_eval.py --gb 2 [--keep]

Writes a synthetic OpenHands/benchmarks `output.jsonl` of about `--gb` GB into a temporary
folder under /tmp (records of about 1 MB: 100 events each, terminal outputs of 1-10 KB, some of
100 KB), runs `trajkit export` on it in a child process, samples the resident memory of the
command and its workers every 20 ms from /proc, prints the figures, and deletes everything
(unless `--keep`). Target: peak RSS (all processes together) below 500 MB.

RSS summed over the command and its forked workers counts the pages they share (imports) once
per process; PSS (`/proc/<pid>/smaps_rollup`) counts them once overall and is printed too. Memory
is flat in the input size (one record per worker at a time), so a 0.3-0.6 GB run stands for 2 GB.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_export import _descendants, _PeakSampler, _rss_kib  # noqa: E402 (benchmarks are scripts)


class _ProcessPeaks(_PeakSampler):
    """`_PeakSampler` that also keeps each process's own peak (the command, then its workers)."""

    def __init__(self, pid: int) -> None:
        super().__init__(pid)
        self.peaks: dict[int, int] = {}
        self.peak_pss = 0

    def run(self) -> None:
        while not self.done.is_set():
            rss = {p: _rss_kib(p) for p in _descendants(self.pid)}
            for p, kib in rss.items():
                self.peaks[p] = max(self.peaks.get(p, 0), kib)
            self.peak_sum = max(self.peak_sum, sum(rss.values()))
            self.peak_one = max(self.peak_one, max(rss.values(), default=0))
            self.processes = max(self.processes, len([r for r in rss.values() if r]))
            self.peak_pss = max(self.peak_pss, sum(_pss_kib(p) for p in rss))
            time.sleep(0.02)


def _pss_kib(pid: int) -> int:
    """Proportional set size: pages shared by forked workers counted once over all of them."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _record(n: int, rng: random.Random) -> dict[str, object]:
    history: list[dict[str, object]] = []
    for i in range(50):
        call = f"call_{n}_{i}"
        action_id = str(uuid.UUID(int=rng.getrandbits(128)))
        size = 100_000 if rng.random() < 0.03 else rng.randint(1_000, 10_000)
        history.append({
            "kind": "ActionEvent", "id": action_id, "timestamp": "2026-01-01T00:00:00",
            "source": "agent", "thought": [], "action": {"kind": "ExecuteBashAction",
            "command": f"pytest -k case_{i}", "is_input": False}, "tool_name": "execute_bash",
            "tool_call_id": call, "tool_call": {"id": call, "name": "execute_bash",
            "arguments": json.dumps({"command": f"pytest -k case_{i}"}), "origin": "completion"},
            "llm_response_id": f"chatcmpl-{n}-{i}", "security_risk": "LOW",
        })  # fmt: skip
        history.append({
            "kind": "ObservationEvent", "id": str(uuid.UUID(int=rng.getrandbits(128))),
            "timestamp": "2026-01-01T00:00:01", "source": "environment",
            "tool_name": "execute_bash", "tool_call_id": call, "action_id": action_id,
            "observation": {"kind": "ExecuteBashObservation", "output": "x" * size,
            "command": f"pytest -k case_{i}", "exit_code": 0, "error": False, "timeout": False},
        })  # fmt: skip
    return {
        "instance_id": f"repo__issue-{n}",
        "instruction": "Fix the failing test in the repository. " * 20,
        "metadata": {"llm": {"model": "litellm_proxy/claude-sonnet-4"}, "max_iterations": 100},
        "history": history,
        "metrics": {"accumulated_cost": 0.5},
        "error": None,
    }


def generate(path: Path, gb: float) -> tuple[int, int]:
    rng = random.Random(7)
    target = int(gb * 1e9)
    written = records = 0
    with path.open("wb") as fh:
        while written < target:
            line = json.dumps(_record(records, rng)).encode() + b"\n"
            fh.write(line)
            written += len(line)
            records += 1
    return records, written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gb", type=float, default=2.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="trajkit-bench-eval-", dir="/tmp"))
    try:
        src = work / "output.jsonl"
        started = time.perf_counter()
        records, size = generate(src, args.gb)
        print(
            f"generated {records} records, {size / 1e9:.2f} GB in {time.perf_counter() - started:.0f} s"
        )
        cmd = [sys.executable, "-m", "trajkit", "export", str(src), "-o", str(work / "ds")]
        cmd += ["--jobs", str(args.workers)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        sampler = _ProcessPeaks(proc.pid)
        sampler.start()
        _, err = proc.communicate()
        seconds = time.perf_counter() - started
        sampler.done.set()
        sampler.join()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if proc.returncode != 0:
            print(err[-2000:])
            return 1
        print(err.strip().splitlines()[-1])
        print(
            f"export: {seconds:.1f} s, {size / 1e6 / seconds:.0f} MB/s, "
            f"peak RSS {sampler.peak_sum / 1024:.0f} MB all processes "
            f"(largest {sampler.peak_one / 1024:.0f} MB, {sampler.processes} processes)"
        )
        command = sampler.peaks.pop(proc.pid, 0)
        workers = ", ".join(f"{kib / 1024:.0f}" for kib in sorted(sampler.peaks.values()))
        print(
            f"CPU {cpu:.1f} s (user+sys, all processes); peak RSS of the command "
            f"{command / 1024:.0f} MB, of each worker [{workers}] MB; peak PSS (shared pages "
            f"counted once) {sampler.peak_pss / 1024:.0f} MB all processes"
        )
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
