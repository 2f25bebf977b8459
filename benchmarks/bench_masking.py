"""What masking secrets by default costs `trajkit convert` of one long conversation.

Usage:
    python benchmarks/gen_corpus.py /tmp/c10k --conversations 1 --events 10000
    python benchmarks/bench_masking.py /tmp/c10k/<id> [--base /path/to/other/checkout]

Runs `python -m trajkit convert FOLDER -o FILE` in a fresh process, default (masked) and with
`--no-redact`, and (with `--base`) the other checkout's convert, which may predate masking;
prints the best CPU seconds (user + system of the child) of `--repeat` runs of each and the
ratios. A line of each output is compared, so the runs did the same work.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _cpu_seconds(checkout: Path, folder: Path, *extra: str) -> float:
    """CPU seconds of one `trajkit convert` child (its output discarded afterwards)."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    with tempfile.TemporaryDirectory() as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(
            [sys.executable, "-m", "trajkit", "convert", str(folder), "-o", f"{tmp}/out.json",
             *extra],
            env=env, check=True, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", type=Path, help="one conversation folder")
    parser.add_argument("--base", type=Path, help="another checkout to compare (e.g. main)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    runs = {"masked (default)": (REPO, ()), "--no-redact": (REPO, ("--no-redact",))}
    if args.base:
        runs[f"base {args.base}"] = (args.base, ())
    best = {}
    for _ in range(args.repeat):  # interleaved, so a busy moment hurts every variant alike
        for name, (checkout, extra) in runs.items():
            seconds = _cpu_seconds(checkout, args.folder, *extra)
            best[name] = min(best.get(name, seconds), seconds)
    first = best["masked (default)"]
    for name, seconds in best.items():
        print(f"{name:<40} {seconds:7.3f} CPU-s   masked/this = {first / seconds:.3f}")


if __name__ == "__main__":
    main()
