"""Export peak memory against issue 29's limits: one long conversation, and a large corpus.

Usage:
    python benchmarks/bench_export_memory.py                      # 1x10000, 1x100000, 10000x20
    python benchmarks/bench_export_memory.py --sizes 1x10000 --profile sft

Each corpus (`gen_corpus.py`, CONVERSATIONSxEVENTS, reused under `--work`) is exported by
`bench_export.bench` (a fresh `trajkit export` process, its workers' resident memory summed and
sampled every 20 ms) and printed with the limit issue 29 sets: one conversation of up to
100,000 events under 400 MB, 10,000 conversations under 500 MB, 2 workers.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_export  # noqa: E402 - the sibling benchmark, by path

LIMIT_MB = {"one conversation": 400, "corpus": 500}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["1x10000", "1x100000", "10000x20"])
    parser.add_argument("--work", type=Path, default=Path("/tmp/trajkit-bench-export"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--profile", default="analysis", choices=["analysis", "sft", "rl"])
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    print(f"trajkit export --profile {args.profile}, {args.workers} worker(s)")
    print(f"{'corpus':<22} {'events':>9} {'in MB':>7} {'s':>7} {'peak MB':>8} {'limit':>6}  met")
    for size in args.sizes:
        corpus = bench_export._corpus(args.work, size)
        out = args.work / f"out-{corpus.name}-{args.profile}"
        r = bench_export.bench(corpus, out, args.workers, extra=["--profile", args.profile])
        limit = LIMIT_MB["one conversation" if size.startswith("1x") else "corpus"]
        print(
            f"{corpus.name:<22} {r['events']:>9,.0f} {r['input_mb']:>7.0f} {r['seconds']:>7.1f} "
            f"{r['peak_rss_mb']:>8.0f} {limit:>6}  {'yes' if r['peak_rss_mb'] < limit else 'NO'}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
