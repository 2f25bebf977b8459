"""Generate a synthetic corpus of V1 conversations with realistic sizes.

Each conversation is built from real SDK 1.58.2 events in `fixtures/sdk/` used as templates
(same keys, same order, same compact JSON), with fresh ids, a linked `parent_id` chain,
matching `tool_call_id`/`action_id` pairs and increasing timestamps:

- event 0: the fixture's `SystemPromptEvent` (about 22 KB: system prompt plus tool list);
- a user `MessageEvent`;
- then agent steps: terminal or file-editor `ActionEvent` + `ObservationEvent` whose output
  is 1-10 KB, with `--big-fraction` of observations (default 5%) at 100 KB; now and then an
  assistant `MessageEvent`;
- with `--condense-every N`, a `Condensation` (as the SDK's summarizing condenser writes it)
  every N events, forgetting the older half of the steps the model still sees, so the view
  stays about N events long however long the conversation is;
- a `FinishAction` and its observation, then `base_state.json` pointing at the last event.

Usage:
    python benchmarks/gen_corpus.py OUT --conversations 200 --events 100 [--seed 0]

Files are written plainly (no fsync): this builds test data, it is not the store.
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parents[1]
SDK = REPO / "fixtures" / "sdk"

_WORDS = """src tests build error warning info debug passed failed import module function return
value config path file line column token request response cache index event agent tool call
result output input json schema commit branch merge diff patch version"""
WORDS = _WORDS.split()


def _events(scenario: str) -> list[dict[str, Any]]:
    folder = next(p for p in (SDK / scenario).iterdir() if p.is_dir() and p.name != "expected")
    files = sorted(
        (folder / "events").glob("event-*.json"), key=lambda p: int(p.name[6:].split("-")[0])
    )
    return [orjson.loads(p.read_bytes()) for p in files]


def load_templates() -> dict[str, Any]:
    """Real events to copy from, keyed by role in the synthetic conversation."""
    a, b, c = _events("a_text"), _events("b_terminal"), _events("c_file_editor")
    condensation = next(e for e in _events("j_condense") if e["kind"] == "Condensation")
    folder = next(p for p in (SDK / "b_terminal").iterdir() if p.is_dir() and p.name != "expected")
    templates: dict[str, Any] = {
        "system": a[0],
        "user": b[1],
        "assistant": a[2],
        "terminal_action": b[2],
        "terminal_obs": b[3],
        "editor_action": c[4],
        "editor_obs": c[5],
        "finish_action": b[4],
        "finish_obs": b[5],
        "condensation": condensation,
        "base_state": orjson.loads((folder / "base_state.json").read_bytes()),
    }
    # Copies are made by re-parsing compact bytes: several times faster than deepcopy.
    templates["_bytes"] = {id(v): orjson.dumps(v) for v in templates.values()}
    return templates


class TextPool:
    """A few hundred KB of log-like text; slices of it make observation outputs quickly."""

    def __init__(self, rng: random.Random, size: int = 400_000) -> None:
        lines, total = [], 0
        while total < size:
            n = rng.randint(3, 14)
            line = f"{rng.choice(WORDS)}/{rng.choice(WORDS)}.py:{rng.randint(1, 999)}: " + " ".join(
                rng.choice(WORDS) for _ in range(n)
            )
            lines.append(line)
            total += len(line) + 1
        self.text = "\n".join(lines)

    def take(self, rng: random.Random, size: int) -> str:
        start = rng.randrange(0, len(self.text) - size)
        return self.text[start : start + size]


class ConversationBuilder:
    """Builds one conversation's events as dicts, in order."""

    def __init__(self, templates: dict[str, Any], rng: random.Random, conv_id: uuid.UUID):
        self.t = templates
        self.rng = rng
        self.conv_id = conv_id
        self.events: list[dict[str, Any]] = []
        self.clock = datetime(2026, 11, 1, 9, 0, 0) + timedelta(seconds=rng.randint(0, 10**6))
        self.step = 0
        self.seen: list[list[str]] = []
        """Ids of each step the model still sees (after the system prompt and user message)."""

    def _add(self, template: dict[str, Any], **changes: Any) -> dict[str, Any]:
        event = orjson.loads(self.t["_bytes"][id(template)])
        self.clock += timedelta(milliseconds=self.rng.randint(5, 4000))
        event["id"] = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        event["timestamp"] = self.clock.isoformat(timespec="microseconds")
        if "parent_id" in event:
            event["parent_id"] = self.events[-1]["id"] if self.events else None
            if event["parent_id"] is None:
                del event["parent_id"]
        event.update(changes)
        self.events.append(event)
        return event

    def tool_step(self, output: str) -> None:
        kind = "terminal" if self.rng.random() < 0.7 else "editor"
        call_id = f"call_{self.conv_id.hex[:8]}_{self.step}"
        response_id = f"chatcmpl-{self.conv_id.hex[:8]}-{self.step}"
        self.step += 1
        action = self._add(
            self.t[f"{kind}_action"], tool_call_id=call_id, llm_response_id=response_id
        )
        action["tool_call"]["id"] = call_id
        obs = self._add(self.t[f"{kind}_obs"], tool_call_id=call_id, action_id=action["id"])
        obs["observation"]["content"][0]["text"] = output
        self.seen.append([action["id"], obs["id"]])

    def condense(self) -> None:
        """A `Condensation` forgetting the older half of the steps in view, with a summary."""
        half = len(self.seen) // 2
        forgotten = [i for step in self.seen[:half] for i in step]
        del self.seen[:half]
        self._add(
            self.t["condensation"],
            forgotten_event_ids=forgotten,
            summary=f"USER_CONTEXT: synthetic task. COMPLETED: {self.step} steps so far.",
            summary_offset=2,
            llm_response_id=f"chatcmpl-{self.conv_id.hex[:8]}-condense-{self.step}",
        )

    def build(
        self, n_events: int, pool: TextPool, big_fraction: float, condense_every: int = 0
    ) -> list[dict[str, Any]]:
        self._add(self.t["system"])
        self._add(self.t["user"])
        last = 0  # events when the last condensation was added
        while len(self.events) < n_events - 2:
            if condense_every and len(self.events) - last >= condense_every:
                self.condense()
                last = len(self.events)
                continue
            if self.rng.random() < 0.08:
                msg = self._add(self.t["assistant"], llm_response_id=f"chatcmpl-{self.step}")
                msg["llm_message"]["content"][0]["text"] = pool.take(
                    self.rng, self.rng.randint(80, 600)
                )
                self.seen.append([msg["id"]])
                continue
            big = self.rng.random() < big_fraction
            size = 100_000 if big else self.rng.randint(1_000, 10_000)
            self.tool_step(pool.take(self.rng, size))
        call_id = f"call_{self.conv_id.hex[:8]}_{self.step}"
        action = self._add(self.t["finish_action"], tool_call_id=call_id)
        action["tool_call"]["id"] = call_id
        self._add(self.t["finish_obs"], tool_call_id=call_id, action_id=action["id"])
        return self.events


def write_conversation(
    out: Path,
    templates: dict[str, Any],
    rng: random.Random,
    pool: TextPool,
    n_events: int,
    big_fraction: float,
    condense_every: int = 0,
) -> tuple[int, int]:
    """Write one conversation; return (events, bytes of event JSON)."""
    conv_id = uuid.UUID(int=rng.getrandbits(128), version=4)
    folder = out / conv_id.hex
    (folder / "events").mkdir(parents=True)
    builder = ConversationBuilder(templates, rng, conv_id)
    events = builder.build(n_events, pool, big_fraction, condense_every)
    total = 0
    for index, event in enumerate(events):
        data = orjson.dumps(event)
        (folder / "events" / f"event-{index:05d}-{event['id']}.json").write_bytes(data)
        total += len(data)
    (folder / "events" / ".eventlog.lock").write_bytes(b"")
    (folder / "events" / f".eventlog-len-{len(events)}.marker").write_bytes(b"")
    state = copy.deepcopy(templates["base_state"])
    state["id"] = str(conv_id)
    state["persistence_dir"] = str(folder)
    state["leaf_event_id"] = events[-1]["id"]
    state["last_user_message_id"] = events[1]["id"]
    (folder / "base_state.json").write_bytes(orjson.dumps(state))
    return len(events), total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to create (must not exist or be empty)")
    parser.add_argument("--conversations", type=int, default=100)
    parser.add_argument("--events", type=int, default=100, help="events per conversation")
    parser.add_argument("--big-fraction", type=float, default=0.05, help="share of 100 KB outputs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--condense-every", type=int, default=0, metavar="N",
                        help="a Condensation every N events (0: none)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.out.exists() and any(args.out.iterdir()):
        print(f"{args.out}: exists and is not empty; choose a new folder", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    templates, pool = load_templates(), TextPool(rng)
    start, total, n = time.perf_counter(), 0, 0
    for _ in range(args.conversations):
        events, size = write_conversation(
            args.out, templates, rng, pool, args.events, args.big_fraction, args.condense_every
        )
        n, total = n + events, total + size
    elapsed = time.perf_counter() - start
    print(
        f"wrote {args.conversations} conversations, {n} events, {total / 2**20:.1f} MiB "
        f"of event JSON to {args.out} in {elapsed:.1f}s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
