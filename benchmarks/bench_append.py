"""Durable append latency per event: what the runtime pays to persist one event crash-safely.

Usage:
    python benchmarks/bench_append.py [--events 300] [--dir /tmp/bench-append]

Prints median / mean / p95 / max milliseconds per event for:
- writer.append: `ConversationWriter.append(event)`: lock, atomic write of the event file
  (temp, fsync, rename, fsync folder), length marker;
- runtime emit, in a run: `Conversation.emit(event)` inside an agent step: the event file as
  above; the base state is saved once per step (a step = an action and its observation here),
  and that save is included, spread over the step's events. This is what a real run pays;
- runtime emit, alone: `Conversation.emit(event)` outside a run (e.g. `send_message`): the event
  file plus an atomic `base_state.json` rewrite for every event;
- sdk-style write: open/write/close of the same bytes with one fsync and no rename (about what
  the OpenHands SDK 1.58 does per event with fsync; its own figure on this machine is ~2 ms).

Events are real shapes (action, observation, message) copied from fixtures/sdk with fresh ids.
The target: runtime emit at most ~2 ms per event (the SDK's per-event cost here).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from trajkit.events import Event, dump_event  # noqa: E402
from trajkit.store import ConversationWriter, open_conversation  # noqa: E402

SDK_MS_PER_EVENT = 2.0


def _templates() -> list[Event]:
    folder = next(p for p in (ROOT / "fixtures/sdk/b_terminal").iterdir() if p.name != "expected")
    return [e for e in open_conversation(folder).iter_events() if e.kind != "SystemPromptEvent"]


def _fresh(template: Event, parent: str | None) -> Event:
    return template.model_copy(update={"id": str(uuid.uuid4()), "parent_id": parent})


def _stats(name: str, samples: list[float]) -> None:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[int(0.95 * (len(ms) - 1))]
    print(
        f"{name:<16} n={len(ms):<5} median {statistics.median(ms):6.3f} ms   "
        f"mean {statistics.fmean(ms):6.3f} ms   p95 {p95:6.3f} ms   max {ms[-1]:7.3f} ms"
    )


def _time_each(n: int, fn: Callable[[int], None]) -> list[float]:
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - t0)
    return out


def bench_writer(base: Path, n: int, templates: list[Event]) -> list[float]:
    writer = ConversationWriter(base / uuid.uuid4().hex)
    parent: list[str | None] = [None]

    def one(i: int) -> None:
        e = _fresh(templates[i % len(templates)], parent[0])
        writer.append(e)
        parent[0] = e.id

    return _time_each(n, one)


def bench_emit(base: Path, n: int, templates: list[Event], *, per_step: int) -> list[float]:
    """Per-event cost of `Conversation.emit`; with ``per_step`` > 1, events are grouped in
    steps (`with conv.state:`, as `run()` does) and each group's time is split evenly."""
    from pydantic import SecretStr

    from trajkit.sdk import LLM, Agent, Conversation

    agent = Agent(llm=LLM(model="openai/gpt-4o", api_key=SecretStr("x")), include_default_tools=[])
    conv = Conversation(
        agent=agent, workspace=base / "ws", persistence_dir=base / f"emit{per_step}"
    )

    def step(i: int) -> None:
        with conv.state:
            for j in range(per_step):
                t = templates[(i * per_step + j) % len(templates)]
                conv.emit(t.model_copy(update={"id": str(uuid.uuid4()), "parent_id": None}))

    try:
        if per_step == 1:
            return _time_each(n, lambda i: conv.emit(
                templates[i % len(templates)].model_copy(
                    update={"id": str(uuid.uuid4()), "parent_id": None})))  # fmt: skip
        return [t / per_step for t in _time_each(n // per_step, step) for _ in range(per_step)]
    finally:
        conv.close()


def bench_sdk_style(base: Path, n: int, templates: list[Event]) -> list[float]:
    folder = base / "sdk-style" / "events"
    folder.mkdir(parents=True)
    data = [dump_event(t).encode() for t in templates]

    def one(i: int) -> None:
        path = folder / f"event-{i:05d}-{uuid.uuid4()}.json"
        with open(path, "wb") as f:
            f.write(data[i % len(data)])
            f.flush()
            os.fsync(f.fileno())

    return _time_each(n, one)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=300)
    ap.add_argument("--dir", type=Path, default=None, help="where to write (default: a temp dir)")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-append-", dir=args.dir))
    try:
        templates = _templates()
        print(f"{args.events} events per run in {base} (filesystem of {base.parent})")
        _stats("writer.append", bench_writer(base, args.events, templates))
        emit = bench_emit(base, args.events, templates, per_step=2)
        _stats("emit, in a run", emit)
        _stats("emit, alone", bench_emit(base, args.events, templates, per_step=1))
        _stats("sdk-style write", bench_sdk_style(base, args.events, templates))
        median = statistics.median(emit) * 1000
        verdict = "meets" if median <= SDK_MS_PER_EVENT else "misses"
        print(
            f"emit in a run: median {median:.3f} ms/event {verdict} the target "
            f"(<= {SDK_MS_PER_EVENT} ms, the SDK's per-event cost here)"
        )
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
