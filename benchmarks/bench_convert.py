"""Convert benchmark: events/s for Chat and Responses conversion, and memory on a corpus.

Usage:
    python benchmarks/gen_corpus.py /tmp/corpus --conversations 200 --events 100
    python benchmarks/bench_convert.py /tmp/corpus

Prints:
- conversion only (events already parsed, as the SDK figure counts it): view + events_to_messages
  + chat formatting (and + Responses formatting), per event, against the OpenHands SDK's
  ~0.09 ms/event for events_to_messages plus chat formatting on this machine kind (target: 5x);
- end to end: `convert_corpus` (read, parse, convert, JSON line) in 1 and 2 processes;
- memory: peak RSS of a fresh process converting a quarter, a half and all of the corpus,
  to show it follows the largest conversation, not the corpus.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from _memory import child_memory_rows, peak_rss_kib

from trajkit.convert import (
    condensed_view,
    convert_corpus,
    events_to_messages,
    messages_to_chat,
    messages_to_responses,
)
from trajkit.engine import LocalEngine
from trajkit.store import find_conversations, open_conversation

SDK_MS_PER_EVENT = 0.09  # events_to_messages + format_messages_for_llm, OpenHands SDK 1.58.2


def _best(func, repeat: int) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def conversion_only(folders: list[Path], repeat: int) -> None:
    """Time the pure conversion per conversation (parsing done beforehand, untimed)."""
    totals = {"chat": 0.0, "responses": 0.0, "messages only": 0.0}
    n_events = 0
    for folder in folders:
        events = list(open_conversation(folder).iter_events())
        n_events += len(events)
        totals["messages only"] += _best(
            lambda ev=events: events_to_messages(condensed_view(ev)), repeat
        )
        totals["chat"] += _best(
            lambda ev=events: messages_to_chat(events_to_messages(condensed_view(ev))), repeat
        )
        totals["responses"] += _best(
            lambda ev=events: messages_to_responses(events_to_messages(condensed_view(ev))),
            repeat,
        )
    print(f"conversion only ({n_events:,} parsed events, best of {repeat}):")
    for label, seconds in totals.items():
        ms = seconds * 1000 / n_events
        print(
            f"  {label:<14} {n_events / seconds:10,.0f} events/s  {ms:.4f} ms/event  "
            f"({SDK_MS_PER_EVENT / ms:5.1f}x faster than the SDK's {SDK_MS_PER_EVENT} ms)"
        )


def end_to_end(corpus: Path, n_events: int) -> None:
    print("end to end (read + parse + convert + JSON line), convert_corpus, warm file cache:")
    for _ in convert_corpus([corpus], engine=LocalEngine(1)):  # warm-up: OS file cache, imports
        pass
    for to in ("chat", "responses"):
        for jobs in (1, 2):
            start = time.perf_counter()
            size = sum(
                len(i.line or b"")
                for i in convert_corpus([corpus], to=to, engine=LocalEngine(jobs))
            )
            elapsed = time.perf_counter() - start
            print(
                f"  {to:<9} {jobs} process(es) {elapsed:6.2f} s {n_events / elapsed:9,.0f} "
                f"events/s  ({size / 2**20:,.1f} MiB of JSONL)"
            )


def child_memory(corpus: Path, limit: int) -> None:
    """Run in a fresh process: convert `limit` conversations in this process, print peak RSS."""
    folders = [f for _, f in zip(range(limit), find_conversations([corpus]), strict=False)]
    before = peak_rss_kib()
    lines = sum(1 for _ in convert_corpus(folders, engine=LocalEngine(1), to="chat"))
    peak = peak_rss_kib()
    print(json.dumps({"conversations": lines, "rss_before_kib": before, "rss_peak_kib": peak}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--repeat", type=int, default=3, help="runs per conversation; best counts")
    parser.add_argument("--child-memory", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_memory is not None:
        child_memory(args.corpus, args.child_memory)
        return 0
    folders = list(find_conversations([args.corpus]))
    if not folders:
        print(f"{args.corpus}: no conversations; run benchmarks/gen_corpus.py", file=sys.stderr)
        return 2
    n_events = sum(len(open_conversation(f).event_files()) for f in folders)
    print(f"corpus: {len(folders)} conversations, {n_events:,} events")
    conversion_only(folders, args.repeat)
    end_to_end(args.corpus, n_events)
    print("memory (fresh process per row, 1 process converting):")
    for m in child_memory_rows(__file__, args.corpus, len(folders)):
        print(
            f"  {m['conversations']:6} conversations: peak RSS {m['rss_peak_kib'] / 1024:6.1f} MiB "
            f"(after imports {m['rss_before_kib'] / 1024:.1f} MiB)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
