"""Export peak memory against issue 29's limits: one long conversation, and a large corpus.

Usage:
    python benchmarks/bench_export_memory.py              # 1x10000, 1x100000, 10000x20
    python benchmarks/bench_export_memory.py --sizes 1x10000 --profile sft
    python benchmarks/bench_export_memory.py --base /tmp/base   # another checkout beside

Each corpus (`gen_corpus.py`, CONVERSATIONSxEVENTS, reused under `--work`) is exported by
`bench_export.bench` (a fresh `trajkit export` process); the figure is the sum of the peak
resident memory (`VmHWM`) of that process and of each of its workers, read from /proc while they
run: an upper bound of the peak of their sum. It is printed with the limit issue 29 sets: one
conversation of 10,000 or 100,000 events under 400 MB, 10,000 conversations under 500 MB,
2 workers. `--base CHECKOUT` also exports each corpus with that checkout's `trajkit` (first on
`PYTHONPATH`) and prints its figure beside.

A conversation longer than `--condense-every` events (default 120) condenses as the SDK's
summarizing condenser does (240 events at most in view, down to half): what the model saw, the
conversation row's `messages` and `conversion`, is then bounded, as in any real run that long.
A conversation that never condenses shows the model all of it, and its row holds all of it
(`--condense-every 0`: 10,000 such events are a 58 MB view).
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
    parser.add_argument("--condense-every", type=int, default=120, metavar="N")
    parser.add_argument("--base", type=Path, help="another checkout, exported beside")
    args = parser.parse_args(argv)
    args.work = args.work.resolve()
    args.work.mkdir(parents=True, exist_ok=True)
    print(f"trajkit export --profile {args.profile}, {args.workers} worker(s); peak MB: VmHWM sum")
    base = f"{'base MB':>8} " if args.base else ""
    print(
        f"{'corpus':<24} {'events':>9} {'in MB':>7} {'s':>7} {base}{'peak MB':>8} {'limit':>6}  met"
    )
    for size in args.sizes:
        events = int(size.split("x")[1])
        condense = args.condense_every if events > args.condense_every else 0
        corpus = bench_export._corpus(args.work, size, condense_every=condense)
        extra = ["--profile", args.profile]
        before = ""
        if args.base:
            out = args.work / f"out-{corpus.name}-{args.profile}-base"
            b = bench_export.bench(
                corpus, out, args.workers, extra=extra, checkout=args.base.resolve()
            )
            before = f"{b['peak_hwm_mb']:>8.0f} "
        out = args.work / f"out-{corpus.name}-{args.profile}"
        r = bench_export.bench(corpus, out, args.workers, extra=extra)
        limit = LIMIT_MB["one conversation" if size.startswith("1x") else "corpus"]
        print(
            f"{corpus.name:<24} {r['events']:>9,.0f} {r['input_mb']:>7.0f} {r['seconds']:>7.1f} "
            f"{before}{r['peak_hwm_mb']:>8.0f} {limit:>6}  {'yes' if r['peak_hwm_mb'] < limit else 'NO'}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
