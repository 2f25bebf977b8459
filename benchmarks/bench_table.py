"""Issue 31's table: trajkit beside openhands-sdk 1.58.2, and beside another checkout.

Usage:
    python benchmarks/bench_table.py [--sdk-python /work/sdkvenv/bin/python] \\
        [--base /work/wt/base8bb] [--rounds 3] [--copies 714] [--work /tmp/trajkit-bench-table]

Inputs, made under ``--work`` when missing:
- ``c10k``: the SDK's 10k conversation (``gen_corpus.py``: real SDK 1.58.2 events as templates);
- ``c100k``: a generated 100k-event one, the same way;
- ``corpus``: ``--copies`` copies of every conversation folder (``base_state.json`` + ``events/``)
  in ``../shared/fixtures-sdk`` and ``../shared/fixtures-wild``, each with a fresh id (folder
  name and ``base_state.json``'s ``id``); most of its events are older SDKs' (agent-server).

Rows:
- in process, 10k: load every event, validate, chat, responses, ``write_conversation`` (the CLI's
  path) for trajkit; the SDK's nearest for each (``sdk_side.py``). Each figure is the CPU time
  (``time.process_time``) of one run after a warm-up run, in a fresh child; beside them the
  floor no reader can beat (one scandir, ``os.open``/``os.read`` and ``orjson.loads`` of every
  event file: ``bench_floor._floor_tight``) and the SDK's figure over it, the most any
  "SDK / trajkit" ratio of that row can reach;
- whole process, 100k: ``python -m trajkit convert/validate/ls/stats`` against ``sdk_side.py``
  doing the same job, CPU seconds (user + system from ``wait4``, imports included);
- convert (``write_conversation`` in process, ``trajkit convert -o`` whole process): both sides
  write their document to a real file in ``/tmp`` (the CLI's job includes writing it; the SDK
  side wrote to ``os.devnull`` before 2026-12-07, which left the file system's cost out of
  its figure only);
- validate per event, older SDK: ``validate_conversation`` of an agent server's conversation
  of 2025-09 (``OLDER``, 218 events, every one upgraded in memory) against the same events
  upgraded and written as the current SDK writes them, CPU microseconds per event (20 runs);
- corpus export, 2 workers: ``trajkit export CORPUS -o OUT --jobs 2``, CPU seconds of the export
  and its workers, against its floor: one process reading every event file, ``orjson.loads``
  of each (empty files skipped, as every reader does), and one zstd Parquet of the events
  written (``FLOOR``). The default 714 copies make 9,996 conversations (282,744 events, 3.2 GB),
  issue 31's scale;
- peak memory, whole process, 10k and 100k: convert, validate, ls (VmHWM of the child).

Every row runs ``--rounds`` times, rounds interleaved (each round runs every row on every
side once; the sides take turns going first, in reverse order every other round, so no side
always runs right after the same one), and prints the median with min-max. The machine this was written on is shared
(2 cores, many agents): CPU seconds and ratios, not wall time, are the figures to quote.
Without ``--sdk-python`` (or when it is absent) the SDK column holds issue 31's recorded figures
(openhands-sdk 1.58.2 on `8bb7cc8`'s machine), marked "recorded". ``--base CHECKOUT`` adds the
same trajkit rows run from another checkout (its ``trajkit`` on ``PYTHONPATH``), e.g. a
``git worktree add --detach /work/wt/base8bb 8bb7cc8`` (issue 26's side by side).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = next((p for p in (REPO.parent / "shared", REPO.parents[1] / "shared") if p.is_dir()), None)

RECORDED_SDK = {  # issue 31, openhands-sdk 1.58.2 on `8bb7cc8`'s machine, CPU-s
    "load 10k": 0.709,
    "validate 10k": 0.695,
    "chat 10k": 1.47,
    "responses 10k": 1.53,
    "write_conversation 10k": 1.47,
    "convert 100k": 27.3,
    "validate 100k": 14.3,
    "ls 100k": 6.9,
    "stats 100k": 14.6,
}
IN_PROCESS = ("load", "validate", "chat", "responses", "write_conversation")
WHOLE = ("convert", "validate", "ls", "stats")
SDK_OP = {"write_conversation": "convert"}

FLOOR = (
    "import os, sys, orjson, pyarrow as pa, pyarrow.parquet as pq\n"
    "ids, texts = [], []\n"
    "for conv in sorted(os.listdir(sys.argv[1])):\n"
    "    events = os.path.join(sys.argv[1], conv, 'events')\n"
    "    for name in sorted(os.listdir(events)):\n"
    "        with open(os.path.join(events, name), 'rb') as f:\n"
    "            raw = f.read()\n"
    "        if not raw.strip():\n"
    "            continue  # as every reader: an empty file is no event\n"
    "        orjson.loads(raw)\n"
    "        ids.append(conv); texts.append(raw)\n"
    "table = pa.table({'conversation_id': ids, 'event_json': pa.array(texts, pa.binary())})\n"
    "pq.write_table(table, sys.argv[2], compression='zstd')\n"
    "print(len(texts))\n"
)


# -- the child side: one in-process operation, timed after a warm-up ------------------------------


def _trajkit_op(op: str, folder: str) -> Callable[[], object]:
    """What each in-process row runs (imports here: the checkout on PYTHONPATH is measured)."""
    if op == "floor":  # read + orjson.loads of every event file, no Path: no reader does less
        from bench_floor import _floor_tight

        return lambda: _floor_tight(Path(folder))
    if op == "load":
        from trajkit.store import open_conversation

        return lambda: sum(1 for _ in open_conversation(folder).iter_events())
    if op == "validate":
        from trajkit.validate import validate_conversation

        return lambda: validate_conversation(Path(folder))
    if op in ("chat", "responses"):
        from trajkit.convert import convert_conversation

        return lambda: convert_conversation(folder, to=op)  # type: ignore[arg-type]
    from trajkit.convert.stream import write_conversation

    def write() -> object:
        with open(_out_file("child"), "wb") as out:  # a real file, as the SDK side writes
            return write_conversation(folder, out, to="chat")

    return write


def _out_file(side: str) -> str:
    """Where `side`'s convert writes its document (a real file in /tmp, removed afterwards)."""
    return f"/tmp/trajkit-bench-table-{os.getpid()}.{side}.json"


def child(op: str, folder: str, repeat: str = "1") -> None:
    func = _trajkit_op(op, folder)
    func()  # warm-up: file cache, lazy imports and schemas
    start = time.process_time()
    for _ in range(int(repeat)):
        func()
    print(f"{(time.process_time() - start) / int(repeat):.6f}")
    Path(_out_file("child")).unlink(missing_ok=True)


# -- the parent side ------------------------------------------------------------------------------


def _run(python: str, path: list[Path], args: list[str]) -> tuple[float, float, str]:
    """CPU seconds (wait4: the child and the children it waited for), peak RSS in MB (the
    child's own VmHWM, `bench_floor._PEAK_RSS`) and stdout of `python <args>`."""
    from bench_floor import _PEAK_RSS

    read_fd, write_fd = os.pipe()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path))}
    env["BENCH_PEAK_FD"] = str(write_fd)
    proc = subprocess.Popen(
        [python, "-c", _PEAK_RSS, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd="/tmp",
        pass_fds=(write_fd,),
    )
    os.close(write_fd)
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    with os.fdopen(read_fd, "rb") as f:
        peak_kb = f.read()
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # validate exits 1 on warnings-as-errors
        raise SystemExit(f"{python} {args}: exit {os.waitstatus_to_exitcode(status)}")
    return usage.ru_utime + usage.ru_stime, int(peak_kb or 0) / 1024, out


class Table:
    """Figures by (row, side), one per round."""

    def __init__(self) -> None:
        self.cells: dict[tuple[str, str], list[float]] = {}

    def add(self, row: str, side: str, value: float) -> None:
        self.cells.setdefault((row, side), []).append(value)

    def get(self, row: str, side: str) -> list[float]:
        return self.cells.get((row, side), [])


def _folder(corpus: Path) -> Path:
    return next(p for p in sorted(corpus.iterdir()) if (p / "events").is_dir())


def make_conversations(work: Path) -> dict[str, Path]:
    """The generated conversations of 10k and 100k events (`c10k`, `c100k`), made once."""
    gen = [sys.executable, str(HERE / "gen_corpus.py")]
    for name, n in (("c10k", 10_000), ("c100k", 100_000)):
        if not (work / name).is_dir():
            subprocess.run([*gen, str(work / name), "--conversations", "1", "--events", str(n)])
    return {"c10k": _folder(work / "c10k"), "c100k": _folder(work / "c100k")}


def make_inputs(work: Path, copies: int) -> dict[str, Path]:
    corpus = work / f"corpus{copies}"
    inputs = make_conversations(work)
    if not corpus.is_dir() and SHARED is not None:
        make_corpus(corpus, copies)
    inputs["corpus"] = corpus
    if not (work / "older").is_dir() and SHARED is not None:
        make_older_and_current(work)
    if (work / "older").is_dir():
        inputs["older"], inputs["current"] = _folder(work / "older"), _folder(work / "current")
    return inputs


OLDER = "fixtures-wild/agent-server/88ca1e54196640e2ae2009f996449121/event_service"
"""An agent server's conversation of 2025-09 (218 events; an SDK before 1.0, kind first)."""


def make_older_and_current(work: Path) -> None:
    """`older/`: a copy of `OLDER`; `current/`: the same events and state upgraded
    (`trajkit.events.upgrade`) and written as the current SDK writes them (compact, kind last).
    """
    import orjson

    from trajkit.events.upgrade import upgrade_base_state, upgrade_event

    assert SHARED is not None
    name = Path(OLDER).parent.name
    shutil.copytree(SHARED / OLDER, work / "older" / name)
    current = work / "current" / name
    shutil.copytree(SHARED / OLDER, current)
    for path in [current / "base_state.json", *(current / "events").glob("event-*.json")]:
        data = orjson.loads(path.read_bytes())
        (upgrade_base_state if path.name == "base_state.json" else upgrade_event)(data)
        path.write_bytes(orjson.dumps(data))


def make_corpus(out: Path, copies: int) -> None:
    """`copies` of every conversation folder in the shared fixtures, each with a fresh id."""
    import orjson

    assert SHARED is not None
    sources = sorted(
        p.parent
        for tree in ("fixtures-sdk", "fixtures-wild")
        for p in (SHARED / tree).rglob("base_state.json")
        if (p.parent / "events").is_dir()
    )
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for i in range(copies):
        for src in sources:
            fresh = uuid.uuid5(uuid.NAMESPACE_URL, f"{i}/{src}")
            dst = tmp / fresh.hex
            shutil.copytree(src, dst)
            state = orjson.loads((dst / "base_state.json").read_bytes())
            state["id"] = str(fresh)
            (dst / "base_state.json").write_bytes(orjson.dumps(state))
    tmp.rename(out)


def _warm(folder: str) -> None:
    """Read every file of `folder` once (untimed), so each side starts with it cached."""
    for root, _, names in os.walk(folder):
        for name in names:
            with open(os.path.join(root, name), "rb") as f:
                while f.read(1 << 20):
                    pass


def _count_events(corpus: Path) -> int:
    return sum(len(os.listdir(p / "events")) for p in corpus.iterdir())


def run_round(table: Table, sides: dict[str, tuple[str, list[Path]]], inputs: dict[str, Path],
              rows: set[str], n: int = 0) -> None:  # fmt: skip
    # who goes first, and who follows whom: odd rounds take the sides in reverse (rotations
    # alone keep one side always after the SDK's run, the one whose exit leaves the most behind)
    seq = list(sides)[:: -1 if n % 2 else 1]
    k = (n // 2) % len(seq)
    order = seq[k:] + seq[:k]
    sides = {side: sides[side] for side in order}
    c10k, c100k, corpus = str(inputs["c10k"]), str(inputs["c100k"]), inputs["corpus"]
    out = Path("/tmp") / f"trajkit-bench-table-{os.getpid()}"
    for side, (python, path) in sides.items():  # warm the file cache, untimed
        if side != "sdk" and "process" in rows:
            _run(python, path, ["-m", "trajkit", "validate", c100k])
    if "inproc" in rows:
        for op in IN_PROCESS:
            for side, (python, path) in sides.items():
                args = ["-m", "sdk_side", SDK_OP.get(op, op), c10k, "--timed"]
                if op == "write_conversation":  # both sides write a real file in /tmp
                    args += ["--out", _out_file("sdk")]
                if side != "sdk":
                    args = ["-m", "bench_table", "--child", op, c10k]
                table.add(f"{op} 10k", side, float(_run(python, path, args)[2]))
        python, path = sides["trajkit"]
        args = ["-m", "bench_table", "--child", "floor", c10k]
        table.add("floor 10k", "trajkit", float(_run(python, path, args)[2]))
    if "older" in rows and "older" in inputs:
        for which in ("older", "current"):
            folder = inputs[which]
            n = len(os.listdir(folder / "events"))
            for side, (python, path) in sides.items():
                if side != "sdk":
                    args = ["-m", "bench_table", "--child", "validate", str(folder), "20"]
                    us = float(_run(python, path, args)[2]) / n * 1e6
                    table.add(f"validate per event, {which}", side, us)
    if "process" in rows or "memory" in rows:
        for size, folder in (("100k", c100k), ("10k", c10k)):
            for op in WHOLE:
                if size == "10k" and op == "stats":
                    continue
                for side, (python, path) in sides.items():
                    if side == "sdk" and (size == "10k" or "process" not in rows):
                        continue
                    args = ["-m", "sdk_side", op, folder]
                    if op == "convert":  # both sides write a real file in /tmp
                        args += ["--out", _out_file("sdk")]
                    if side != "sdk":
                        extra = ["-o", f"{out}.json", "--overwrite"] if op == "convert" else []
                        args = ["-m", "trajkit", op, folder, *extra]
                    if side != "sdk":
                        _warm(folder)  # the SDK's run before may have pushed it out
                    cpu, peak, _ = _run(python, path, args)
                    table.add(f"process {op} {size}", side, cpu)
                    table.add(f"peak {op} {size}", side, peak)
        Path(f"{out}.json").unlink(missing_ok=True)
    Path(_out_file("sdk")).unlink(missing_ok=True)
    if "export" in rows and corpus.is_dir():
        cpu, _, read = _run(sys.executable, [], ["-c", FLOOR, str(corpus), f"{out}.parquet"])
        if not read.strip().isdigit():  # it stopped early (exit 1 passes `_run`): no floor
            raise SystemExit(f"the export floor failed on {corpus}")
        table.add("export corpus", "floor", cpu)  # this interpreter, no trajkit
        table.add("export corpus events", "floor", int(read))  # the non-empty event files
        for side, (python, path) in sides.items():
            if side != "sdk":
                shutil.rmtree(f"{out}.export", ignore_errors=True)
                args = ["-m", "trajkit", "export", str(corpus), "-o", f"{out}.export", "-j", "2"]
                table.add("export corpus", side, _run(python, path, args)[0])
        shutil.rmtree(f"{out}.export", ignore_errors=True)
        Path(f"{out}.parquet").unlink(missing_ok=True)


def _fig(values: list[float], unit: str = "") -> str:
    if not values:
        return "-"
    med = statistics.median(values)
    digits = 3 if med < 10 else 1
    return f"{med:.{digits}f}{unit} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def _ratio(a: list[float], b: list[float]) -> str:
    if not a or not b:
        return "-"
    return f"{statistics.median(a) / statistics.median(b):.2f}x"


def print_table(table: Table, sides: list[str], corpus_events: int) -> None:
    base = "base" in sides
    sdk = "sdk" in sides
    head = ["operation", "openhands-sdk" if sdk else "openhands-sdk (recorded)", "trajkit"]
    head += ["trajkit base", "base / trajkit"] if base else []
    head += ["SDK / trajkit"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    names = [f"{op} 10k" for op in IN_PROCESS] + [f"process {op} 100k" for op in WHOLE]
    for name in names:
        mine = table.get(name, "trajkit")
        if not mine:
            continue
        label = name.removeprefix("process ")
        recorded = [RECORDED_SDK[label]] if label in RECORDED_SDK else []
        theirs = table.get(name, "sdk") or recorded
        cells = [
            label + (", whole process" if label != name else ", in process"),
            _fig(theirs, " s") + ("" if sdk else " recorded"),
            _fig(mine, " s"),
        ]
        if base:
            cells += [_fig(table.get(name, "base"), " s"), _ratio(table.get(name, "base"), mine)]
        cells.append(_ratio(theirs, mine))
        print("| " + " | ".join(cells) + " |")
    floor = table.get("floor 10k", "trajkit")
    if floor:  # what the SDK's figure allows at most, beside each in-process row
        cells = ["read + orjson.loads floor, 10k, in process", "", _fig(floor, " s")]
        cells += ["", ""] if base else []
        sdk_fig = [f"{op} {_ratio(table.get(f'{op} 10k', 'sdk'), floor)}" for op in IN_PROCESS]
        cells.append("SDK / floor: " + ", ".join(sdk_fig) if sdk else "")
        print("| " + " | ".join(cells) + " |")
    floor = table.get("export corpus", "floor")
    if floor:
        mine = table.get("export corpus", "trajkit")
        counted = table.get("export corpus events", "floor")
        events = f"{int(counted[0]):,} events" if counted else f"{corpus_events:,} event files"
        name = f"export corpus ({events}), 2 workers, CPU-s"
        cells = [name, f"floor {_fig(floor, ' s')}", _fig(mine, " s")]
        if base:
            cells += [_fig(table.get("export corpus", "base"), " s")]
            cells += [_ratio(table.get("export corpus", "base"), mine)]
        cells.append(f"{_ratio(mine, floor)} the floor")
        print("| " + " | ".join(cells) + " |")
    older = table.get("validate per event, older", "trajkit")
    if older:
        current = table.get("validate per event, current", "trajkit")
        cells = ["validate per event: older SDK / the same events as the current SDK writes them"]
        cells += ["", f"{_fig(older, ' us')} / {_fig(current, ' us')} = {_ratio(older, current)}"]
        if base:
            b_older = table.get("validate per event, older", "base")
            b_current = table.get("validate per event, current", "base")
            cells += [f"{_fig(b_older, ' us')} / {_fig(b_current, ' us')} = "
                      f"{_ratio(b_older, b_current)}", ""]  # fmt: skip
        cells.append("")
        print("| " + " | ".join(cells) + " |")
    for op in ("convert", "validate", "ls"):
        small, big = table.get(f"peak {op} 10k", "trajkit"), table.get(f"peak {op} 100k", "trajkit")
        if not small or not big:
            continue
        cells = [f"peak memory {op}, 10k -> 100k", _fig(table.get(f"peak {op} 100k", "sdk"), " MB")]
        cells.append(f"{_fig(small, ' MB')} -> {_fig(big, ' MB')}")
        if base:
            b_small, b_big = (
                table.get(f"peak {op} 10k", "base"),
                table.get(f"peak {op} 100k", "base"),
            )
            cells += [f"{_fig(b_small, ' MB')} -> {_fig(b_big, ' MB')}", _ratio(b_big, big)]
        cells.append(f"100k = {_ratio(big, small)} the 10k")
        print("| " + " | ".join(cells) + " |")


def main(
    argv: list[str] | None = None, default_rows: str = "inproc,older,process,export,memory"
) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--sdk-python", default="/work/sdkvenv/bin/python")
    parser.add_argument("--base", type=Path, help="another checkout, run side by side")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--copies", type=int, default=714, help="copies of each real conversation (714: 9,996)"
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/trajkit-bench-table"))
    parser.add_argument("--rows", default=default_rows, help="any of: " + default_rows)
    parser.add_argument("--no-sdk", action="store_true", help="the recorded SDK figures")
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    inputs = make_inputs(args.work, args.copies)
    sides: dict[str, tuple[str, list[Path]]] = {}
    if not args.no_sdk and Path(args.sdk_python).exists():
        sides["sdk"] = (args.sdk_python, [HERE])
    sides["trajkit"] = (sys.executable, [REPO, HERE])
    if args.base is not None:
        sides["base"] = (sys.executable, [args.base.resolve(), HERE])
    rows = set(args.rows.split(","))
    table = Table()
    started = time.monotonic()
    corpus = inputs["corpus"]
    events = _count_events(corpus) if corpus.is_dir() else 0
    for n in range(args.rounds):  # the table so far after each round (a long run may be cut)
        run_round(table, sides, inputs, rows, n)
        load = os.getloadavg()[0]
        print(f"\n{n + 1} of {args.rounds} interleaved rounds, {time.monotonic() - started:.0f} s; "
              f"median (min-max); load average {load:.1f}; trajkit {REPO}"
              + (f", base {args.base}" if args.base else ""))  # fmt: skip
        print_table(table, list(sides), events)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
