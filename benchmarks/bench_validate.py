"""Validate benchmark: events/s and peak memory of `trajkit validate` over a synthetic corpus.

Usage:
    python benchmarks/gen_corpus.py /tmp/corpus --conversations 50 --events 200
    python benchmarks/bench_validate.py /tmp/corpus

Prints, after one warm-up pass (so the OS file cache is warm), the best of `--repeat` runs of:
- validate, 1 process: `validate_paths(..., engine=LocalEngine(1))`, every check of the CLI;
- validate, 2 processes: the same on two worker processes (`trajkit.corpus`);
- validate --thorough, 1 process: also `jsonschema` on every file (the slow, explicit mode),
  on a slice of the corpus since it is much slower;
- where the time goes in one process (CPU time per stage over every event file);
- memory: peak RSS of a fresh process validating a quarter, a half and all of the corpus, to
  show memory does not grow with the number of conversations.

The OpenHands SDK loads about 8,000-10,000 events/s on this kind of machine; the target for
validate is 3x that (27,000 events/s).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from _memory import child_memory_rows, peak_rss_kib

SDK_EVENTS_PER_S = 9_000  # middle of the 8,000-10,000 events/s the SDK reaches here
TARGET = 3


def _validate(paths: list[Path], *, jobs: int, thorough: bool = False) -> tuple[int, int]:
    from trajkit.engine import LocalEngine
    from trajkit.validate import validate_paths

    events = problems = 0
    for report in validate_paths(paths, engine=LocalEngine(jobs), thorough=thorough):
        events += report.events
        problems += len(report.problems)
    return events, problems


def _timed(label: str, func: Callable[[], tuple[int, int]], repeat: int) -> float:
    """Best of `repeat` runs: wall-clock events/s, and this process's CPU rate."""
    best_wall = best_cpu = float("inf")
    events = problems = 0
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        events, problems = func()
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    rate = events / best_wall
    cpu_note = f"; {events / best_cpu:8,.0f}/CPU-s" if best_cpu > best_wall / 4 else ""
    print(
        f"  {label:<28} {events:6,} events {best_wall:6.2f} s {rate:9,.0f} events/s "
        f"({rate / SDK_EVENTS_PER_S:4.1f}x SDK){cpu_note}; problems {problems}"
    )
    return rate


def _stages(files: list[Path]) -> None:
    """CPU time of each stage of the per-file check, over every event file, in this process."""
    from trajkit import redact
    from trajkit.events.parse import EVENT_CLASSES, peek_kind
    from trajkit.validate.files import check_event_file, read_file

    raws = [p.read_bytes() for p in files]

    def parse() -> None:
        for raw in raws:
            EVENT_CLASSES[peek_kind(raw) or ""].model_validate_json(raw, strict=True)

    stages: list[tuple[str, Callable[[], object]]] = [
        ("read (open+fstat+read)", lambda: [read_file(p, what="an event") for p in files]),
        ("model, strict JSON", parse),
        ("API-key scan", lambda: [redact.contains_api_key(raw) for raw in raws]),
        ("whole per-file check", lambda: [check_event_file(p) for p in files]),
    ]
    for label, func in stages:
        cpu = time.process_time()
        func()
        spent = time.process_time() - cpu
        print(f"  {label:<28} {spent / len(files) * 1e6:7.1f} µs/event CPU")


def child_memory(corpus: Path, limit: int) -> None:
    """Run in a fresh process: validate `limit` conversations, print peak memory as JSON."""
    from trajkit.store import find_conversations

    folders = list(itertools.islice(find_conversations([corpus]), limit))
    before = peak_rss_kib()
    events, _ = _validate(folders, jobs=1)
    peak = peak_rss_kib()
    print(
        json.dumps(
            {"conversations": len(folders), "events": events, "before": before, "peak": peak}
        )
    )


def _memory_rows(corpus: Path, n_folders: int) -> None:
    for row in child_memory_rows(__file__, corpus, n_folders):
        print(
            f"  {row['conversations']:5} conversations {row['events']:7,} events: "
            f"peak RSS {row['peak'] / 1024:6.1f} MiB (after imports {row['before'] / 1024:.1f} MiB)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the best counts")
    parser.add_argument("--child-memory", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_memory is not None:
        child_memory(args.corpus, args.child_memory)
        return 0

    from trajkit.store import find_conversations
    from trajkit.validate.diagnose import checker

    folders = list(find_conversations([args.corpus]))
    if not folders:
        print(
            f"{args.corpus}: no conversations; run benchmarks/gen_corpus.py first", file=sys.stderr
        )
        return 2
    files = [p for f in folders for p in sorted((f / "events").glob("event-*.json"))]
    n_bytes = sum(p.stat().st_size for p in files)  # also the warm-up of the file cache
    for p in files:
        p.read_bytes()
    print(
        f"corpus: {len(folders)} conversations, {len(files):,} events, {n_bytes / 2**20:,.1f} MiB; "
        f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f}"
    )
    checker().warm()
    print("validate (warm file cache):")
    one = _timed("validate, 1 process", lambda: _validate(folders, jobs=1), args.repeat)
    two = _timed("validate, 2 processes", lambda: _validate(folders, jobs=2), args.repeat)
    some = folders[: max(1, len(folders) // 10)]
    _timed("validate --thorough, 1 proc", lambda: _validate(some, jobs=1, thorough=True), 1)
    best = max(one, two)
    verdict = "meets" if best >= TARGET * SDK_EVENTS_PER_S else "BELOW"
    print(
        f"  best {best:,.0f} events/s = {best / SDK_EVENTS_PER_S:.1f}x SDK: {verdict} the {TARGET}x target"
    )
    print("memory (fresh process per row, 1 process, streaming one conversation at a time):")
    _memory_rows(args.corpus, len(folders))
    print("where the time goes (1 process):")
    _stages(files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
