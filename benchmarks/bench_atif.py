"""ATIF benchmark: peak memory and time of `convert --to atif` against `convert --to chat`.

Usage:
    python benchmarks/bench_atif.py            # a 10,000-event conversation made in a temp folder
    python benchmarks/bench_atif.py --folder /tmp/c10k/<hex>

Each conversion runs in a fresh process (`write_conversation` into a file, what `trajkit convert
FOLDER -o FILE` calls) that prints its own peak RSS (`VmHWM`). Issue 28 asks the ATIF peak to
stay within 1.5x of the chat peak on the same 10k-event conversation: ATIF is written step by
step, holding only the steps whose calls are not answered yet.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from gen_corpus import TextPool, load_templates, write_conversation

_CHILD = """
import json, sys, time
sys.path.insert(0, {bench!r})
from _memory import peak_rss_kib
from trajkit.convert.stream import write_conversation
start = time.perf_counter()
with open({out!r}, "wb") as out:
    write_conversation({folder!r}, out, to={to!r})
print(json.dumps({{"seconds": time.perf_counter() - start, "peak_kib": peak_rss_kib()}}))
"""


def measure(folder: Path, to: str, out: Path) -> dict[str, float]:
    code = _CHILD.format(bench=str(Path(__file__).parent), out=str(out), folder=str(folder), to=to)
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, help="a conversation folder (default: made here)")
    parser.add_argument("--events", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.folder
        if folder is None:
            rng = random.Random(0)
            n, size = write_conversation(
                Path(tmp), load_templates(), rng, TextPool(rng), args.events, 0.05
            )
            folder = next(p for p in Path(tmp).iterdir() if p.is_dir())
            print(f"conversation: {n} events, {size / 2**20:.1f} MiB of event JSON")
        rows = {to: measure(folder, to, Path(tmp) / f"out.{to}.json") for to in ("chat", "atif")}
        for to, row in rows.items():
            size = (Path(tmp) / f"out.{to}.json").stat().st_size
            print(f"--to {to:5}  peak RSS {row['peak_kib'] / 1024:7.1f} MiB  "
                  f"{row['seconds']:6.2f} s  output {size / 2**20:6.1f} MiB")  # fmt: skip
        ratio = rows["atif"]["peak_kib"] / rows["chat"]["peak_kib"]
        print(f"atif / chat peak: {ratio:.2f}x (issue 28: <= 1.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
