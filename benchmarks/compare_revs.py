"""Issue 26's side by side: `bench_table.py`'s load, validate, convert and export rows on this
checkout and on another one, interleaved, both printed (the SDK is not run: its column holds
issue 31's recorded figures).

Usage:
    git worktree add --detach /work/wt/base8bb 8bb7cc8
    python benchmarks/compare_revs.py --base /work/wt/base8bb [--rounds 3] [--copies 714]

Each checkout's figures come from children with its own `trajkit` first on `PYTHONPATH`; the
inputs, rounds and figures are `bench_table.py`'s (see there). "base / trajkit" above 1 means
this checkout is faster.
"""

from __future__ import annotations

import sys

from bench_table import main

if __name__ == "__main__":
    if "--base" not in sys.argv:
        raise SystemExit("compare_revs.py: give --base CHECKOUT (see --help of bench_table.py)")
    sys.exit(main([*sys.argv[1:], "--no-sdk"], default_rows="inproc,older,process,export,memory"))
