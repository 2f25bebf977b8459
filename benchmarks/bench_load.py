"""Load benchmark: events/s and peak memory for reading (parsing every event of) a corpus.

Usage:
    python benchmarks/gen_corpus.py /tmp/corpus --conversations 200 --events 100
    python benchmarks/bench_load.py /tmp/corpus

Prints, for the corpus (after one warm-up pass, so the OS file cache is warm):
- read only: open + read every event file (the I/O floor);
- orjson only: read + `orjson.loads` (the JSON floor);
- load, 1 process: `open_conversation(f).iter_events()` parses every event into the model;
- load, 2 processes: the same through `trajkit.corpus.map_conversations`;
- header: `StoredConversation.header()` per conversation (what `ls` needs);
- memory: peak RSS and tracemalloc peak of a fresh process loading a quarter, a half and all
  of the corpus, to show memory does not grow with the number of conversations.

The OpenHands SDK loads about 8,000-10,000 events/s on this kind of machine; the target is 5x.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import orjson
from _memory import child_memory_rows, peak_rss_kib

from trajkit.corpus import map_conversations
from trajkit.store import find_conversations, open_conversation

SDK_EVENTS_PER_S = 9_000  # middle of the 8,000-10,000 events/s the SDK reaches here


def _iter_events_count(folder: Path) -> int:
    return sum(1 for _ in open_conversation(folder).iter_events())


def _read_only(folder: Path) -> int:
    return sum(len(f.read_bytes()) for f in open_conversation(folder).iter_event_files())


def _orjson_only(folder: Path) -> int:
    n = 0
    for f in open_conversation(folder).iter_event_files():
        orjson.loads(f.read_bytes())
        n += 1
    return n


def _timed(label: str, n_events: int, func: Callable[[], object], repeat: int) -> float:
    """Best of `repeat` runs: wall-clock rate, and the CPU-time rate of this process."""
    best_wall = best_cpu = float("inf")
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        func()
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    rate = n_events / best_wall
    cpu_note = f"; {n_events / best_cpu:8,.0f}/CPU-s" if best_cpu > best_wall / 4 else ""
    print(
        f"  {label:<22} {best_wall:6.2f} s {rate:9,.0f} events/s "
        f"({rate / SDK_EVENTS_PER_S:4.1f}x SDK){cpu_note}"
    )
    return rate


def child_memory(corpus: Path, limit: int) -> None:
    """Run in a fresh process: load `limit` conversations, print peak memory as JSON."""
    folders = [f for _, f in zip(range(limit), find_conversations([corpus]), strict=False)]
    rss_before = peak_rss_kib()
    tracemalloc.start()
    events = sum(_iter_events_count(f) for f in folders)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = peak_rss_kib()
    print(
        json.dumps(
            {
                "conversations": len(folders),
                "events": events,
                "tracemalloc_peak": peak,
                "rss_before_kib": rss_before,
                "rss_peak_kib": rss,
            }
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the best counts")
    parser.add_argument("--child-memory", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_memory is not None:
        child_memory(args.corpus, args.child_memory)
        return 0

    folders = list(find_conversations([args.corpus]))
    if not folders:
        print(
            f"{args.corpus}: no conversations; run benchmarks/gen_corpus.py first", file=sys.stderr
        )
        return 2
    n_events, n_bytes = 0, 0
    largest = 0
    for f in folders:  # warm-up pass: fills the OS file cache, counts what is there
        for ef in open_conversation(f).iter_event_files():
            size = ef.path.stat().st_size
            n_events, n_bytes, largest = n_events + 1, n_bytes + size, max(largest, size)
    print(
        f"corpus: {len(folders)} conversations, {n_events:,} events, {n_bytes / 2**20:,.1f} MiB "
        f"(mean {n_bytes / n_events / 1024:.1f} KiB/event, largest {largest / 1024:.0f} KiB); "
        f"{os.cpu_count()} CPUs"
    )
    print("load (warm file cache):")
    _timed("read only", n_events, lambda: [_read_only(f) for f in folders], args.repeat)
    _timed("orjson only", n_events, lambda: [_orjson_only(f) for f in folders], args.repeat)
    one = _timed(
        "load, 1 process", n_events, lambda: [_iter_events_count(f) for f in folders], args.repeat
    )
    total = 0

    def parallel() -> None:
        nonlocal total
        total = sum(
            map_conversations(_iter_events_count, folders, workers=args.workers, chunksize=4)
        )

    two = _timed(f"load, {args.workers} processes", n_events, parallel, args.repeat)
    assert total == n_events, (total, n_events)
    start = time.perf_counter()
    for f in folders:
        open_conversation(f).header()
    elapsed = time.perf_counter() - start
    print(f"  {'header()':<22} {elapsed:6.2f} s {len(folders) / elapsed:9,.0f} conversations/s")
    print(
        f"  throughput: {n_bytes / 2**20 / (n_events / one):,.0f} MiB/s in 1 process, "
        f"{n_bytes / 2**20 / (n_events / two):,.0f} MiB/s in {args.workers}"
    )

    print("memory (fresh process per row; loading streams one event at a time):")
    for m in child_memory_rows(__file__, args.corpus, len(folders)):
        print(
            f"  {m['conversations']:6} conversations {m['events']:9,} events: "
            f"tracemalloc peak {m['tracemalloc_peak'] / 2**20:6.1f} MiB, "
            f"peak RSS {m['rss_peak_kib'] / 1024:6.1f} MiB "
            f"(after imports {m['rss_before_kib'] / 1024:.1f} MiB)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
