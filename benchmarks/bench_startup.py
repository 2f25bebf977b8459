"""Start-up benchmark: wall time of `trajkit --help` (and `python -c pass`) in fresh processes.

Usage:
    python benchmarks/bench_startup.py [--runs 10]

Prints, for each command, the best, median and worst of `--runs` fresh processes, and the
modules `trajkit --help` imports beyond a bare interpreter (click and trajkit's command table
only: the commands and the library load when a command runs). The interpreter line is the
floor; the difference is what trajkit adds. A test (`tests/cli/test_cli_main.py`) checks the
imported modules, which is what can be known on any machine; the time is measured here,
because on a busy machine any bound in a test fails for reasons that are not trajkit's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "python -m trajkit --help": [sys.executable, "-m", "trajkit", "--help"],
}

_IMPORTED = """
import json, sys
before = set(sys.modules)
sys.argv = ["trajkit", "--help"]
from trajkit.cli import main
try:
    main(prog_name="trajkit")
except SystemExit:
    pass
print("MODULES", json.dumps(sorted(set(sys.modules) - before)))
"""


def _time(argv: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="fresh processes per command")
    args = parser.parse_args()
    floor = None
    for name, argv in COMMANDS.items():
        times = _time(argv, args.runs)
        best = min(times)
        floor = best if floor is None else floor
        print(
            f"{name:28} best {best * 1000:6.0f} ms  median {statistics.median(times) * 1000:6.0f} ms"
            f"  worst {max(times) * 1000:6.0f} ms  (best - interpreter: {(best - floor) * 1000:.0f} ms)"
        )
    out = subprocess.run(
        [sys.executable, "-c", _IMPORTED], check=True, capture_output=True, text=True
    )
    modules = json.loads(out.stdout.rsplit("MODULES ", 1)[1])
    tops = sorted({m.split(".")[0] for m in modules} - set(sys.stdlib_module_names))
    print(f"--help imports {len(modules)} modules beyond the interpreter's; packages: {tops}")


if __name__ == "__main__":
    main()
