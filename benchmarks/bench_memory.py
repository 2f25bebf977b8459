"""Issue 31's memory goal alone: peak memory of one conversation flat in its length.

    python benchmarks/bench_memory.py [--base /work/main] [--rounds 1] [--work /tmp/trajkit-bench-table]

For `trajkit ls`, `validate` and `convert` (whole process, `python -m trajkit`), the peak RSS
(VmHWM, `bench_floor._PEAK_RSS`) on `gen_corpus` conversations of 10k and 100k events (the
inputs `bench_table.py` makes and caches under `--work`), the 100k / 10k ratio against the goal
(<= 1.2x), and the CPU seconds of each run (user + system). `--base CHECKOUT` runs the same
from another checkout beside it (its `trajkit` on `PYTHONPATH`), the sides taking turns.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from bench_table import HERE, REPO, _run, _warm, make_conversations

GOAL = 1.2
OPS = ("ls", "validate", "convert")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, help="another checkout, run side by side")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--work", type=Path, default=Path("/tmp/trajkit-bench-table"))
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    inputs = make_conversations(args.work)
    sides = {"trajkit": [REPO, HERE]}
    if args.base is not None:
        sides["base"] = [args.base.resolve(), HERE]
    out = args.work / "bench-memory-out.json"
    peaks: dict[tuple[str, str, str], list[float]] = {}
    cpu: dict[tuple[str, str, str], list[float]] = {}
    for n in range(args.rounds):
        order = list(sides.items())
        for side, path in order[n % 2 :] + order[: n % 2]:  # taking turns going first
            for op in OPS:
                for size in ("10k", "100k"):
                    folder = inputs[f"c{size}"]
                    extra = ["-o", str(out), "--overwrite"] if op == "convert" else []
                    _warm(folder)
                    seconds, peak, _ = _run(
                        sys.executable, path, ["-m", "trajkit", op, str(folder), *extra]
                    )
                    peaks.setdefault((side, op, size), []).append(peak)
                    cpu.setdefault((side, op, size), []).append(seconds)
    out.unlink(missing_ok=True)
    print(f"peak memory (VmHWM, MB), median of {args.rounds} round(s); trajkit {REPO}"
          + (f", base {args.base}" if args.base else ""))  # fmt: skip
    print("| command | side | 10k | 100k | 100k / 10k | goal <= 1.2x | CPU s 10k / 100k |")
    print("|---|---|---|---|---|---|---|")
    for op in OPS:
        for side in sides:
            small, large = (statistics.median(peaks[side, op, s]) for s in ("10k", "100k"))
            c10, c100 = (statistics.median(cpu[side, op, s]) for s in ("10k", "100k"))
            ratio = large / small
            print(f"| {op} | {side} | {small:.1f} | {large:.1f} | {ratio:.2f}x | "
                  f"{'met' if ratio <= GOAL else 'not met'} | {c10:.2f} / {c100:.2f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
