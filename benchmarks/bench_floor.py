"""Issue 20's table, one row per line: trajkit and the read + orjson floor side by side.

Usage:
    python benchmarks/gen_corpus.py /tmp/c10k --conversations 1 --events 10000
    python benchmarks/gen_corpus.py /tmp/c1k --conversations 1 --events 1000
    python benchmarks/bench_floor.py --c1k /tmp/c1k --c10k /tmp/c10k [--c100k /tmp/c100k] [--repeat 3]

Each in-process figure is the CPU time (``time.process_time``) of the best of ``--repeat`` runs
after a warm-up (OS file cache warm, imports done); whole-process figures are the CPU time
(user + system, from ``wait4``) and peak RSS of a fresh ``python -m trajkit`` child. The
openhands-sdk column repeats the figures quoted in issue 20 (measured with openhands-sdk 1.58.2
on the same kind of 2-core machine); the SDK is not a dependency and is not run here. The floor
is: open + read every event file, then ``orjson.loads`` it; nothing less can load the events.
Load is measured the way its floor is: streamed (each event dropped once counted), or every
event kept in a list (both sides pay for holding them); the "tight" floor skips ``Path``
objects (one scandir, ``os.open``/``os.read``), the least any reader of the folder can do.
The append rows put the durable reference of issue 20 in the floor column (flock, list
`events/`, write the event file, fsync it, fsync the folder), measured in the same run,
interleaved with trajkit's variants (wall-clock medians: fsync latency is the cost). That
reference persists no base state, which a run must (the SDK rewrites `base_state.json` at
least once per step), so the emit rows also give the ratio to "reference + state": the same
reference plus the step's base state written in place and fsynced once per step.
Rows the run has no corpus for are printed with "-".
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from trajkit.convert import convert_conversation
from trajkit.convert.conversation import convert_events
from trajkit.store import find_conversations, open_conversation
from trajkit.validate import validate_conversation

REPO = Path(__file__).resolve().parents[1]

SDK = {  # issue 20's openhands-sdk column (CPU-s; MB peak RSS), quoted, not measured here
    "load 10k": "0.9 CPU-s",
    "chat 10k": "2.0 CPU-s",
    "cli 10k": "12-15 CPU-s (7.5 s import)",
    "cli vs sdk": "2.2-2.7 s in process",
    "validate 1k": "0.058 s (plain load)",
    "validate 10k": "1.06 s (plain load)",
    "validate 100k": "11.8 s (plain load)",
    "convert 100k": "37.7 CPU-s, 1,252 MB",
    "load 100k": "21 CPU-s, 782 MB",
}


def _cpu(func: Callable[[], object], repeat: int) -> float:
    func()  # warm-up: file cache, imports, lazy schemas
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        func()
        best = min(best, time.process_time() - start)
    return best


def _folder(corpus: Path) -> Path:
    return next(iter(find_conversations([corpus])))  # type: ignore[arg-type]


def _floor(folder: Path) -> int:
    n = 0
    for f in open_conversation(folder).iter_event_files():
        orjson.loads(f.path.read_bytes())
        n += 1
    return n


def _floor_kept(folder: Path) -> int:
    return len(
        [orjson.loads(f.path.read_bytes()) for f in open_conversation(folder).iter_event_files()]
    )


def _floor_tight(folder: Path) -> int:
    """The floor without `Path` objects: names from one scandir, `os.open`/`os.read`."""
    n = 0
    events = os.path.join(folder, "events")
    with os.scandir(events) as it:
        names = sorted(e.name for e in it if e.name.startswith("event-"))
    for name in names:
        fd = os.open(os.path.join(events, name), os.O_RDONLY)
        try:
            orjson.loads(os.read(fd, os.fstat(fd).st_size + 1))
        finally:
            os.close(fd)
        n += 1
    return n


def _load(folder: Path) -> int:
    """Every event parsed, one at a time, as streaming readers use them."""
    return sum(1 for _ in open_conversation(folder).iter_events())


def _load_kept(folder: Path) -> int:
    return len(list(open_conversation(folder).iter_events()))


_PEAK_RSS = (
    "import atexit, os, runpy, sys\n"
    "def _peak():\n"
    "    with open('/proc/self/status') as f:\n"
    "        kb = next(int(l.split()[1]) for l in f if l.startswith('VmHWM:'))\n"
    "    os.write(int(os.environ['BENCH_PEAK_FD']), str(kb).encode())\n"
    "atexit.register(_peak)\n"
    "how, target, *rest = sys.argv[1:]\n"
    "if how == '-m':\n"
    "    sys.argv = [target, *rest]\n"
    "    runpy.run_module(target, run_name='__main__', alter_sys=True)\n"
    "else:\n"
    "    sys.argv = ['-c', *rest]\n"
    "    exec(compile(target, '<string>', 'exec'), {'__name__': '__main__'})\n"
)
"""Runs `-m module ...` or `-c code ...` and reports the child's own peak RSS (VmHWM) on a
pipe at exit: `ru_maxrss` from wait4 also counts the parent's memory copied at the spawn, so
a fresh child of a parent holding 10k parsed events showed the parent's 690 MB."""


def _child(args: list[str]) -> tuple[float, float, bytes]:
    """CPU seconds, peak RSS in MB and stdout of a fresh `python <args>` process."""
    read_fd, write_fd = os.pipe()
    env = {
        **os.environ,
        "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
        "BENCH_PEAK_FD": str(write_fd),
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", _PEAK_RSS, *args],
        stdout=subprocess.PIPE,
        env=env,
        cwd=REPO,
        pass_fds=(write_fd,),
    )
    os.close(write_fd)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    with os.fdopen(read_fd, "rb") as f:
        peak_kb = f.read()
    if proc.returncode:
        raise SystemExit(f"{args}: exit {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, int(peak_kb or 0) / 1024, out


_LOAD = (
    "import sys\n"
    "from trajkit.store import open_conversation\n"
    "print(sum(1 for _ in open_conversation(sys.argv[1]).iter_events()))\n"
)
_LOAD_FLOOR = (
    "import sys, orjson\n"
    "from trajkit.store import open_conversation\n"
    "print(sum(1 for f in open_conversation(sys.argv[1]).iter_event_files()"
    " if orjson.loads(f.path.read_bytes()) is not None))\n"
)


def _row(name: str, sdk: str, trajkit: str, floor: str = "", ratio: str = "") -> None:
    print(f"| {name:<48} | {sdk:<28} | {trajkit:<26} | {floor:<12} | {ratio} |")


def _append_rows(n: int) -> None:
    """emit in a run (steps of 2 and of 4 events) and writer.append against the durable
    reference, interleaved 8 events at a time (medians, wall ms per event; on a loaded
    machine fsync latency swings over seconds, so the variants take turns often). The
    fsyncs each variant made per event are counted too: they do not depend on the load."""
    import shutil
    import statistics
    import tempfile

    import bench_append as ba

    base = Path(tempfile.mkdtemp(prefix="bench-floor-append-"))
    templates = ba._templates()
    steps2, steps4 = ba.Emit(base, templates, 2), ba.Emit(base, templates, 4)
    variants = {
        "emit, in a run (steps of 2 events)": steps2.run,
        "emit, in a run (steps of 4 events)": steps4.run,
        "writer.append (alone)": ba.Writer(base, templates).run,
        "reference": ba.DurableReference(base, templates).run,
        "reference + state, steps of 2": ba.DurableStepReference(base, templates, 2).run,
        "reference + state, steps of 4": ba.DurableStepReference(base, templates, 4).run,
    }
    samples: dict[str, list[float]] = {name: [] for name in variants}
    fsyncs = dict.fromkeys(variants, 0)
    real_fsync, counted = os.fsync, [0]

    def fsync(fd: int) -> None:
        counted[0] += 1
        real_fsync(fd)

    os.fsync = fsync
    try:
        for _ in range(max(1, n // 8)):
            for name, run in variants.items():
                counted[0] = 0
                samples[name] += run(8)
                fsyncs[name] += counted[0]
    finally:
        os.fsync = real_fsync
        steps2.close()
        steps4.close()
        shutil.rmtree(base, ignore_errors=True)
    ms = {name: statistics.median(v) * 1000 for name, v in samples.items()}
    per_event = {name: fsyncs[name] / len(samples[name]) for name in variants}
    ref = ms.pop("reference")
    state_ref = {k: ms.pop(f"reference + state, steps of {k}") for k in (2, 4)}
    for name, value in ms.items():
        per_step = next((k for k in (2, 4) if f"steps of {k} " in name), None)
        like = ""
        if per_step:
            other = state_ref[per_step]
            like = (
                f"; {value / other:.2f}x reference + state ({other:.3f} ms, "
                f"{per_event[f'reference + state, steps of {per_step}']:.2f} fsyncs)"
            )
        _row(
            f"durable append: {name}",
            "1.14 ms (durable reference)",
            f"{value:.3f} ms, {per_event[name]:.2f} fsyncs",
            f"{ref:.3f} ms, {per_event['reference']:.2f}",
            f"{value / ref:.2f}x reference{like}",
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--c1k", type=Path)
    parser.add_argument("--c10k", type=Path)
    parser.add_argument("--c100k", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--append", type=int, default=200, help="events per append variant (0: skip the rows)"
    )
    args = parser.parse_args()
    r = args.repeat
    _row(
        "operation (one conversation)",
        "openhands-sdk (quoted)",
        "trajkit (this run)",
        "floor",
        "vs",
    )
    _row("-" * 48, "-" * 28, "-" * 26, "-" * 12, "--")
    if args.c10k:
        f10 = _folder(args.c10k)
        for label, load_f, floor_f in (
            ("load every event, 10k (streamed)", _load, _floor),
            ("load every event, 10k (all kept in a list)", _load_kept, _floor_kept),
            ("load every event, 10k (tight floor, no Path)", _load, _floor_tight),
        ):
            floor = _cpu(lambda floor_f=floor_f: floor_f(f10), r)
            load = _cpu(lambda load_f=load_f: load_f(f10), r)
            _row(
                label,
                SDK["load 10k"],
                f"{load:.3f} CPU-s",
                f"{floor:.3f}",
                f"{load / floor:.2f}x floor",
            )
        events = list(open_conversation(f10).iter_events())
        state = open_conversation(f10).base_state()
        chat = _cpu(lambda: convert_events(events, state=state), r)
        whole = _cpu(lambda: convert_conversation(f10), r)
        _row(
            "chat conversion in process, 10k (parsed)",
            SDK["chat 10k"],
            f"{chat:.3f} CPU-s",
            "",
            f"{2.0 / chat:.1f}x SDK",
        )
        _row(
            "chat conversion in process, 10k (+ load)",
            SDK["chat 10k"],
            f"{whole:.3f} CPU-s",
            "",
            f"{2.0 / whole:.1f}x SDK",
        )
        best_cpu, best_rss = float("inf"), 0.0
        for _ in range(max(1, r)):
            cpu, rss, out = _child(["-m", "trajkit", "convert", "--to", "chat", str(f10)])
            assert out.startswith(b"{"), out[:200]
            if cpu < best_cpu:
                best_cpu, best_rss = cpu, rss
        _row(
            "trajkit convert --to chat, whole process, 10k",
            SDK["cli 10k"],
            f"{best_cpu:.2f} CPU-s, {best_rss:.0f} MB",
            "",
            f"CLI adds {best_cpu - whole:.2f} s",
        )
        _row(
            "trajkit convert whole process vs SDK in process",
            SDK["cli vs sdk"],
            f"{best_cpu:.2f} CPU-s",
            "",
            f"{2.2 / best_cpu:.1f}-{2.7 / best_cpu:.1f}x",
        )
    for key, corpus, sdk_s in (
        ("1k", args.c1k, 0.058),
        ("10k", args.c10k, 1.06),
        ("100k", args.c100k, 11.8),
    ):
        if corpus is None:
            _row(f"validate in process, {key}", SDK[f"validate {key}"], "-")
            continue
        folder = _folder(corpus)
        floor = _cpu(lambda folder=folder: _floor(folder), r)
        cpu = _cpu(lambda folder=folder: validate_conversation(folder), r)
        _row(
            f"validate in process, {key}",
            SDK[f"validate {key}"],
            f"{cpu:.3f} CPU-s",
            f"{floor:.3f}",
            f"{sdk_s / cpu:.1f}x SDK, {cpu / floor:.2f}x floor",
        )
    if args.c100k:
        f100 = _folder(args.c100k)
        for label, cmd, sdk in (
            (
                "convert, 100k events",
                ["-m", "trajkit", "convert", "--to", "chat", str(f100)],
                SDK["convert 100k"],
            ),
        ):
            cpu, rss, _ = _child(cmd)
            _row(label, sdk, f"{cpu:.2f} CPU-s, {rss:.0f} MB")
        cpu, rss, _ = _child(["-c", _LOAD, str(f100)])
        floor_cpu, floor_rss, _ = _child(["-c", _LOAD_FLOOR, str(f100)])
        _row(
            "load, 100k events (streamed, whole process)",
            SDK["load 100k"],
            f"{cpu:.2f} CPU-s, {rss:.0f} MB",
            f"{floor_cpu:.2f}, {floor_rss:.0f} MB",
            f"{cpu / floor_cpu:.2f}x floor",
        )
    else:
        _row("convert, 100k events", SDK["convert 100k"], "-")
        _row("load, 100k events", SDK["load 100k"], "-")
    if args.append:
        _append_rows(args.append)
    else:
        _row("durable append, in a run", "1.14 ms (durable reference)", "-")
    _row("export, 100k-event corpus, 2 workers", "none", "see bench_export.py")


if __name__ == "__main__":
    main()
