"""Export benchmark: `trajkit export` end to end, events/s, MB/s and peak memory, two corpus sizes.

Usage:
    python benchmarks/bench_export.py                       # small (20k events) + large (1M events)
    python benchmarks/bench_export.py --sizes 100x200 5000x200 --work /tmp/bench-export
    python benchmarks/bench_export.py --corpus /tmp/corpus  # an existing corpus only

Corpora are made by `benchmarks/gen_corpus.py` (conversations x events per conversation) under
`--work` and reused when already there (generating 1M events takes a few minutes). Each export
runs as `python -m trajkit export CORPUS -o OUT --overwrite --jobs N` in a fresh process
(after one untimed read of the corpus, so the OS file cache is warm, as it would be for the
second of several exports). While it runs, the resident memory of that process and of all its
descendants (the workers) is sampled every 20 ms from /proc; the figure is the peak of their
sum (shared pages counted in each process, so it over-estimates).

Prints per corpus: events, input MB (event and state JSON), seconds, events/s, MB/s,
output MB, peak RSS (sum and largest single process), and the CPU time of the export's processes
(user + system) per event: on a shared machine the wall-clock rate depends on other load, CPU
per event does not (2 cores / CPU per event = the rate on an idle machine). Goal on 2 cores: >= 20,000 events/s and
< 1 GB, flat from the small corpus to the large one.

The CPU of starting the command and its workers (imports, about a second in all) weighs on a
small corpus, so each corpus is also exported with only its first conversation (a symlink to it
under `--work`): `start CPU s` is that run's CPU, and `marginal` the CPU per event beyond it,
`(CPU - start CPU) / (events - its events)`.

`--stages N` also runs one worker's job in this process (`write_chunk` on the first N
conversations of each corpus, after a warm-up chunk) and prints where its CPU goes, per event:
the validation pass (`verdict_errors`, the check `validate` makes), the rest of the rows
(event columns, conversation row, chat conversion), Arrow arrays (`columns_to_batch`) and
Parquet encoding with compression (`ShardWriter` writing row groups).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _corpus(work: Path, size: str, *, condense_every: int = 0) -> Path:
    conversations, events = (int(x) for x in size.split("x"))
    folder = work / f"corpus-{size}{f'-c{condense_every}' if condense_every else ''}"
    if not (folder / ".complete").exists():
        shutil.rmtree(folder, ignore_errors=True)
        cmd = [sys.executable, str(REPO / "benchmarks" / "gen_corpus.py"), str(folder)]
        cmd += ["--conversations", str(conversations), "--events", str(events)]
        cmd += ["--condense-every", str(condense_every)]
        subprocess.run(cmd, check=True)
        (folder / ".complete").touch()
    return folder


def _input_bytes(corpus: Path) -> tuple[int, int]:
    """(event files, bytes of event and base_state files); also warms the file cache."""
    n = size = 0
    for conv in os.scandir(corpus):
        if not conv.is_dir():
            continue
        state = Path(conv.path) / "base_state.json"
        if state.exists():
            size += len(state.read_bytes())
        with os.scandir(Path(conv.path) / "events") as it:
            for entry in it:
                if entry.name.startswith("event-"):
                    with open(entry.path, "rb") as f:
                        size += len(f.read())
                    n += 1
    return n, size


def _rss_kib(pid: int, field: str = "VmRSS:") -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return out


class _PeakSampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_sum = 0
        self.peak_one = 0
        self.processes = 0
        self.hwm: dict[int, int] = {}
        """Pid -> its peak resident memory (`VmHWM`, KiB), as last read while it ran."""
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            pids = _descendants(self.pid)
            for p in pids:  # each process's own high-water mark, which no sample can miss
                self.hwm[p] = max(self.hwm.get(p, 0), _rss_kib(p, "VmHWM:"))
            rss = [_rss_kib(p) for p in pids]
            self.peak_sum = max(self.peak_sum, sum(rss))
            self.peak_one = max(self.peak_one, max(rss, default=0))
            self.processes = max(self.processes, len([r for r in rss if r]))
            time.sleep(0.02)


def _first_conversation(corpus: Path, work: Path) -> Path:
    """A corpus holding only `corpus`'s first conversation (a symlink), for the start-up cost."""
    folder = work / f"first-{corpus.name}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    first = min(p for p in corpus.iterdir() if (p / "events").is_dir())
    (folder / first.name).symlink_to(first.resolve(), target_is_directory=True)
    return folder


def _folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*.parquet"))


def bench(
    corpus: Path,
    out: Path,
    workers: int,
    *,
    extra: list[str] | None = None,
    checkout: Path | None = None,
) -> dict[str, float]:
    """Run one export of `corpus` into `out` (`extra`: more options; `checkout`: run that
    checkout's `trajkit`, from its folder and first on `PYTHONPATH`) and return its figures.
    """
    n_events, n_bytes = _input_bytes(corpus)
    cmd = [sys.executable, "-m", "trajkit", "export", str(corpus), "-o", str(out)]
    cmd += ["--overwrite", "--jobs", str(workers), *(extra or [])]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    env = None
    if checkout is not None:  # `python -m` puts the working folder first on `sys.path`
        env = {**os.environ, "PYTHONPATH": str(checkout)}
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env, cwd=checkout)
    sampler = _PeakSampler(proc.pid)
    sampler.start()
    _, err = proc.communicate()
    seconds = time.perf_counter() - started
    sampler.done.set()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"export failed ({proc.returncode}):\n{err}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "events": n_events,
        "input_mb": n_bytes / 1e6,
        "seconds": seconds,
        "events_per_s": n_events / seconds,
        "mb_per_s": n_bytes / 1e6 / seconds,
        "output_mb": _folder_bytes(out) / 1e6,
        "peak_rss_mb": sampler.peak_sum / 1024,
        "peak_rss_one_mb": sampler.peak_one / 1024,
        "peak_hwm_mb": sum(sampler.hwm.values()) / 1024,
        "processes": sampler.processes,
        "cpu_s": cpu,
        "cpu_us_per_event": cpu / n_events * 1e6,
    }


def stages(corpus: Path, work: Path, conversations: int) -> dict[str, float]:
    """CPU us per event of each stage of one worker's `write_chunk`, in this process."""
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")  # as `trajkit export`
    import trajkit.validate.verdict as verdict
    from trajkit.export import chunks, shards
    from trajkit.export.rows import RowOptions

    spent: dict[str, float] = {}

    def timed(owner: object, name: str, stage: str) -> None:
        func = getattr(owner, name)

        def wrapper(*args: object, **kwargs: object) -> object:
            started = time.process_time()
            try:
                return func(*args, **kwargs)
            finally:
                spent[stage] = spent.get(stage, 0.0) + time.process_time() - started

        setattr(owner, name, wrapper)

    folders = sorted(p for p in corpus.iterdir() if (p / "events").is_dir())
    out = work / "stages"
    shutil.rmtree(out, ignore_errors=True)
    settings = chunks.ChunkSettings(str(out), RowOptions(), "condensed", 20_000, 1_000_000)
    chunks.write_chunk(settings, chunks.ChunkTask(0, [(p, None) for p in folders[:3]]))
    timed(verdict, "verdict_errors", "validation pass")
    timed(chunks, "conversation_rows", "rows")
    timed(chunks, "columns_to_batch", "Arrow arrays")
    timed(shards.ShardWriter, "_flush", "Parquet")
    items = [(p, None) for p in folders[3 : 3 + conversations]]
    started = time.process_time()
    result = chunks.write_chunk(settings, chunks.ChunkTask(1, items))
    total = time.process_time() - started
    n = sum(getattr(r, "n_events", 0) for r in result.results)
    shutil.rmtree(out, ignore_errors=True)
    spent["rows"] -= spent["validation pass"]  # rows without the pass
    figures = {k: v / n * 1e6 for k, v in spent.items()}
    figures["other"] = total / n * 1e6 - sum(figures.values())
    figures["total"] = total / n * 1e6
    figures["events"] = n
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["100x200", "5000x200"],
                        help="corpora as CONVERSATIONSxEVENTS")  # fmt: skip
    parser.add_argument("--corpus", type=Path, action="append", help="existing corpus folder")
    parser.add_argument("--work", type=Path, default=Path("/tmp/trajkit-bench-export"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--stages", type=int, metavar="N", default=0,
                        help="also time one worker's stages on N conversations, in process")  # fmt: skip
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    corpora = args.corpus or [_corpus(args.work, s) for s in args.sizes]
    print(f"trajkit export, {args.workers} worker(s), {os.cpu_count()} core(s)")
    header = (
        f"{'corpus':<28} {'events':>9} {'in MB':>8} {'s':>7} {'events/s':>9} {'MB/s':>7} "
        f"{'out MB':>7} {'peak RSS MB':>11} {'(largest)':>9} {'CPU s':>7} {'CPU us/ev':>9} "
        f"{'start CPU s':>11} {'marginal':>8}"
    )
    print(header)
    for corpus in corpora:
        first = _first_conversation(corpus, args.work)
        start = bench(first, args.work / f"out-{first.name}", args.workers)
        r = bench(corpus, args.work / f"out-{corpus.name}", args.workers)
        marginal = (r["cpu_s"] - start["cpu_s"]) / max(1, r["events"] - start["events"]) * 1e6
        print(
            f"{corpus.name:<28} {r['events']:>9,.0f} {r['input_mb']:>8.0f} {r['seconds']:>7.1f} "
            f"{r['events_per_s']:>9,.0f} {r['mb_per_s']:>7.1f} {r['output_mb']:>7.0f} "
            f"{r['peak_rss_mb']:>11.0f} {r['peak_rss_one_mb']:>9.0f} {r['cpu_s']:>7.1f} "
            f"{r['cpu_us_per_event']:>9.0f} {start['cpu_s']:>11.2f} {marginal:>8.0f}",
            flush=True,
        )
    for corpus in corpora if args.stages else ():
        f = stages(corpus, args.work, args.stages)
        parts = ", ".join(f"{k} {v:.1f}" for k, v in f.items() if k not in ("total", "events"))
        print(
            f"{corpus.name}: one worker in process, {f['events']:,.0f} events: "
            f"{f['total']:.1f} us CPU/event ({parts})",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
