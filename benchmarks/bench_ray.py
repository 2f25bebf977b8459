"""Ray benchmark: `trajkit export --engine ray` against the local engine on the same corpus.

Usage:
    python benchmarks/bench_ray.py                        # 1000 conversations x 200 events
    python benchmarks/bench_ray.py --size 2000x250 --work /tmp/bench-ray
    python benchmarks/bench_ray.py --corpus /tmp/corpus   # an existing corpus
    python benchmarks/bench_ray.py --modes local ray cluster  # also a pre-started head

The corpus is made by `benchmarks/gen_corpus.py` under `--work` (reused when already there).
Each export runs as `python -m trajkit export CORPUS -o OUT --overwrite` in a fresh process,
after one untimed read of the corpus (warm file cache), in these modes:

- `local`:   the local engine, `--jobs 2` (the default);
- `ray`:     `--engine ray`: starts a private local Ray (2 CPUs) and shuts it down again, as a
             user without a cluster would run it: startup included;
- `cluster`: `--engine ray --address ADDR` against a Ray head started by this script
             (`ray start --head --block --num-cpus 2` in its own process group, ended by its
             id afterwards) and joined with `--address auto` and `RAY_AUTH_MODE=token` (the
             token `ray start` made), as on a real cluster where Ray is already up.

Prints per mode: wall seconds of the whole command, the export's own seconds (from its summary
line: the work after the engine is up), events/s, and the ratio to the local wall time.
Target on this 2-core machine: Ray at most 1.5x the local time.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _corpus(work: Path, size: str) -> Path:
    conversations, events = (int(x) for x in size.split("x"))
    folder = work / f"corpus-{size}"
    if not (folder / ".complete").exists():
        shutil.rmtree(folder, ignore_errors=True)
        cmd = [sys.executable, str(REPO / "benchmarks" / "gen_corpus.py"), str(folder)]
        cmd += ["--conversations", str(conversations), "--events", str(events)]
        subprocess.run(cmd, check=True)
        (folder / ".complete").touch()
    return folder


def _warm(corpus: Path) -> int:
    """Read every file once (warm cache); returns the number of event files."""
    n = 0
    for root, _, files in os.walk(corpus):
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                f.read()
            n += name.startswith("event-")
    return n


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _export(corpus: Path, out: Path, extra: list[str]) -> tuple[float, float, str]:
    cmd = [sys.executable, "-m", "trajkit", "export", str(corpus), "-o", str(out), "--overwrite"]
    env = {**os.environ, "RAY_AUTH_MODE": "token"}  # `ray start` turns token auth on
    started = time.perf_counter()
    result = subprocess.run(cmd + extra, capture_output=True, text=True, cwd=REPO, env=env)
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"export failed ({' '.join(extra)}):\n{result.stderr[-2000:]}")
    summary = result.stderr.strip().splitlines()[-1]
    m = re.search(r" in (\d+\.\d)s;", summary)
    return wall, float(m.group(1)) if m else float("nan"), summary


def _start_head() -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    ray = shutil.which("ray", path=str(Path(sys.executable).parent)) or "ray"
    cmd = [ray, "start", "--head", "--block", "--port", str(port), "--num-cpus", "2"]
    cmd += ["--include-dashboard", "false", "--disable-usage-stats"]
    head = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    address = "auto"  # `ray start` records the head's address (it advertises the host's IP)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                time.sleep(3)  # the GCS answers before the raylet has registered
                return head, address
        except OSError:
            time.sleep(0.5)
    _stop_head(head)
    raise SystemExit("ray head did not start")


def _stop_head(head: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(head.pid, signal.SIGTERM)  # the process group this script started
        head.wait(timeout=30)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(head.pid, signal.SIGKILL)
        head.wait()
    Path("/tmp/ray/ray_current_cluster").unlink(missing_ok=True)  # written by our `ray start`


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="1000x200", help="conversations x events")
    parser.add_argument("--corpus", type=Path, help="use this corpus instead of generating one")
    parser.add_argument("--work", type=Path, default=Path("/tmp/trajkit-bench-ray"))
    parser.add_argument(
        "--modes",
        nargs="+",
        default=["local", "ray", "cluster"],
        choices=["local", "ray", "cluster"],
    )
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    corpus = args.corpus or _corpus(args.work, args.size)
    events = _warm(corpus)
    print(f"corpus {corpus}: {events} events; {os.cpu_count()} cores")
    print(f"{'mode':8} {'wall s':>8} {'export s':>9} {'events/s':>10} {'x local':>8}")
    local_wall = None
    for mode in args.modes:
        head = None
        extra = {"local": ["--jobs", "2"], "ray": ["--engine", "ray"]}.get(mode, [])
        if mode == "cluster":
            head, address = _start_head()
            extra = ["--engine", "ray", "--address", address]
        try:
            wall, inner, _ = _export(corpus, args.work / f"out-{mode}", extra)
        finally:
            if head is not None:
                _stop_head(head)
        local_wall = wall if mode == "local" else local_wall
        ratio = f"{wall / local_wall:.2f}" if local_wall else "-"
        print(f"{mode:8} {wall:8.1f} {inner:9.1f} {events / wall:10.0f} {ratio:>8}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
