"""Issue 20's convert and export rows, trajkit and the read + orjson floor side by side, one run.

Usage:
    python benchmarks/gen_corpus.py /tmp/c10k --conversations 1 --events 10000
    python benchmarks/gen_corpus.py /tmp/c100k --conversations 1 --events 100000
    python benchmarks/gen_corpus.py /tmp/corpus --conversations 1000 --events 100
    python benchmarks/bench_convert_floor.py --c10k /tmp/c10k --c100k /tmp/c100k \\
        --corpus /tmp/corpus [--repeat 3]

Rows (a row whose corpus is not given prints "-"):
- convert in process, 10k: ``write_conversation`` (what ``trajkit convert FOLDER`` calls:
  validation, conversion and the indented JSON, streamed) and ``convert_conversation`` (the
  library's in-memory document), CPU seconds (``time.process_time``), best of ``--repeat``
  after a warm-up; the floor reads every event file and ``orjson.loads`` it.
- ``trajkit convert --to chat`` whole process, 10k: CPU (user + system from ``wait4``) and
  peak RSS of a fresh ``python -m trajkit`` child, best of ``--repeat``; "CLI adds" is that
  minus the in-process ``write_conversation`` (imports, click, the process itself).
- convert, 100k: the same child on the 100k conversation; floor: a child reading and
  ``orjson.loads``-ing every file, dropping each (CPU, RSS).
- export, corpus, 2 workers: ``bench_export.py``'s run of ``trajkit export CORPUS -o OUT
  --jobs 2`` in a fresh process: events/s (wall), peak RSS of the export and its workers
  (summed), CPU per event (user + system of all of them) and what it gives on 2 idle cores;
  floor: read + ``orjson.loads`` of every event file in one process, as events/s on 2 cores
  (half its CPU per event).

The openhands-sdk column repeats issue 20's figures (openhands-sdk 1.58.2, same kind of 2-core
machine); the SDK is not run here. Quote CPU seconds and RSS, which load disturbs less than wall
time, and say whether the machine was loaded.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_export import _PeakSampler
from bench_export import bench as bench_export
from bench_floor import _cpu, _floor, _folder

from trajkit.convert import convert_conversation
from trajkit.convert.stream import write_conversation
from trajkit.store import find_conversations

REPO = Path(__file__).resolve().parents[1]

SDK = {  # issue 20's openhands-sdk column, quoted, not measured here
    "chat 10k": "2.0 CPU-s",
    "cli 10k": "12-15 CPU-s (7.5 s import)",
    "convert 100k": "37.7 CPU-s, 1,252 MB",
    "export": "none",
}
GOALS = {
    "chat 10k": ">= 5x the SDK",
    "cli 10k": "<= 0.8 CPU-s, CLI <= 0.2 s",
    "convert 100k": "<= 4 CPU-s, <= 250 MB",
    "export": ">= 40k events/s, <= 500 MB",
}

_FLOOR_CHILD = (
    "import os, sys, orjson\n"
    "events = os.path.join(sys.argv[1], 'events')\n"
    "n = 0\n"
    "for name in sorted(n for n in os.listdir(events) if n.startswith('event-')):\n"
    "    with open(os.path.join(events, name), 'rb') as f:\n"
    "        orjson.loads(f.read())\n"
    "    n += 1\n"
    "print(n)\n"
)


def _write(folder: Path) -> None:
    with open(os.devnull, "wb") as out:
        write_conversation(folder, out)


def _child(args: list[str]) -> tuple[float, float, float]:
    """CPU seconds, peak RSS in MB and wall seconds of a fresh `python <args>` process.

    The RSS is sampled from /proc (every 20 ms, the process and its descendants summed, as in
    `bench_export.py`): `wait4`'s `ru_maxrss` would carry this process's own size, inherited
    across the fork.
    """
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    sampler = _PeakSampler(proc.pid)
    sampler.start()
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    sampler.done.set()
    sampler.join()
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{args}: failed: {err.decode(errors='replace')[-500:]}")
    return usage.ru_utime + usage.ru_stime, sampler.peak_sum / 1024, wall


def _best_child(args: list[str], repeat: int) -> tuple[float, float, float]:
    runs = [_child(args) for _ in range(max(1, repeat))]
    return min(runs)


def _row(name: str, sdk: str, trajkit: str, floor: str = "", note: str = "") -> None:
    print(f"| {name:<44} | {sdk:<26} | {trajkit:<30} | {floor:<22} | {note} |")


def _convert_rows(c10k: Path | None, c100k: Path | None, repeat: int) -> None:
    if c10k is None:
        _row("convert in process, 10k", SDK["chat 10k"], "-")
        _row("trajkit convert --to chat, whole process, 10k", SDK["cli 10k"], "-")
    else:
        f10 = _folder(c10k)
        floor = _cpu(lambda: _floor(f10), repeat)
        streamed = _cpu(lambda: _write(f10), repeat)
        in_memory = _cpu(lambda: convert_conversation(f10), repeat)
        _row(
            "convert in process, 10k (write_conversation)",
            SDK["chat 10k"],
            f"{streamed:.3f} CPU-s",
            f"{floor:.3f} CPU-s",
            f"{2.0 / streamed:.1f}x SDK, {streamed / floor:.1f}x floor; goal {GOALS['chat 10k']}",
        )
        _row(
            "convert in process, 10k (convert_conversation)",
            SDK["chat 10k"],
            f"{in_memory:.3f} CPU-s",
            f"{floor:.3f} CPU-s",
            f"{2.0 / in_memory:.1f}x SDK (in memory, no validation)",
        )
        cpu, rss, _ = _best_child(["-m", "trajkit", "convert", "--to", "chat", str(f10)], repeat)
        _row(
            "trajkit convert --to chat, whole process, 10k",
            SDK["cli 10k"],
            f"{cpu:.2f} CPU-s, {rss:.0f} MB",
            "",
            f"CLI adds {cpu - streamed:.2f} s; goal {GOALS['cli 10k']}",
        )
    if c100k is None:
        _row("convert, 100k events", SDK["convert 100k"], "-")
        return
    f100 = _folder(c100k)
    cpu, rss, _ = _child(["-m", "trajkit", "convert", "--to", "chat", str(f100)])
    floor_cpu, floor_rss, _ = _child(["-c", _FLOOR_CHILD, str(f100)])
    _row(
        "convert, 100k events (whole process)",
        SDK["convert 100k"],
        f"{cpu:.2f} CPU-s, {rss:.0f} MB",
        f"{floor_cpu:.2f} CPU-s, {floor_rss:.0f} MB",
        f"goal {GOALS['convert 100k']}",
    )


def _corpus_floor(corpus: Path) -> tuple[int, float]:
    start = time.process_time()
    n = 0
    for folder in find_conversations([corpus]):
        n += _floor(folder)  # type: ignore[arg-type]
    return n, time.process_time() - start


def _export_row(corpus: Path | None) -> None:
    if corpus is None:
        _row("export, corpus, 2 workers", SDK["export"], "-")
        return
    n, floor_cpu = _corpus_floor(corpus)  # also warms the file cache
    out = Path(tempfile.mkdtemp(prefix="bench-export-"))
    try:
        r = bench_export(corpus, out / "x", 2)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    _row(
        f"export, {n:,}-event corpus, 2 workers",
        SDK["export"],
        f"{r['events_per_s']:,.0f} ev/s, {r['peak_rss_mb']:.0f} MB",
        f"{n / (floor_cpu / 2):,.0f} ev/s",
        f"{r['cpu_us_per_event']:.0f} us CPU/ev (floor {floor_cpu / n * 1e6:.0f}): "
        f"{2e6 / r['cpu_us_per_event']:,.0f} ev/s on 2 idle cores; largest process "
        f"{r['peak_rss_one_mb']:.0f} MB; goal {GOALS['export']}",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--c10k", type=Path)
    parser.add_argument("--c100k", type=Path)
    parser.add_argument("--corpus", type=Path, help="many conversations, for the export row")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    _row("operation", "openhands-sdk (quoted)", "trajkit (this run)", "floor", "vs")
    _row("-" * 44, "-" * 26, "-" * 30, "-" * 22, "--")
    _convert_rows(args.c10k, args.c100k, args.repeat)
    _export_row(args.corpus)


if __name__ == "__main__":
    main()
