"""Data behind `trajkit ls` and `trajkit stats`: rows and corpus summaries, no printing.

- `iter_sources(paths)`: what each path holds, as the input registry says
  (`trajkit.shapes.resolve_inputs`: V1 folders, other shapes, V0 trajectories migrated in
  memory when read), and a `Skipped` record for what is not read.
- `iter_rows(paths)` yields one `ConversationRow` per conversation found (cheap for V1: the
  store's `header()`, plus event files read until the first user message), or a `Skipped`.
- `conversation_stats(folder)` reads one conversation's events (one file at a time) and counts
  them (`iter_stats` does it for a corpus, on worker processes); `CorpusStats.add()` folds
  those into totals, keeping only a few numbers per
  conversation (for the percentiles), so a corpus streams through in bounded memory.
- `conversation_totals(state)` sums tokens and cost over every LLM of a `base_state.json`.

A file that cannot be read is skipped and reported (`problems`); the rest is still counted.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from trajkit.errors import InputError, TrajkitError
from trajkit.gc_pause import paused_gc
from trajkit.shapes import Input, SkippedInput, resolve_inputs
from trajkit.shapes.eval_output import benchmark_fields
from trajkit.shapes.memory import BareFolderConversation, MemoryConversation
from trajkit.store import open_conversation

if TYPE_CHECKING:
    from trajkit.engine import Engine
    from trajkit.events import BaseState, Event
    from trajkit.store import StoredConversation
    from trajkit.store.reader import EventFile

__all__ = [
    "LENGTH_BUCKETS",
    "ConversationRow",
    "ConversationStats",
    "CorpusStats",
    "Skipped",
    "Totals",
    "conversation_stats",
    "conversation_totals",
    "iter_rows",
    "iter_sources",
    "iter_stats",
    "source_stats",
    "percentiles",
]

LENGTH_BUCKETS = ((0, 0), (1, 9), (10, 49), (50, 99), (100, 499), (500, 999), (1000, None))
"""Event-count buckets of the length distribution (inclusive bounds; None = no upper bound)."""

_FIRST_MESSAGE_SCAN = 50
"""Event files read at most while looking for the first user message."""


@dataclass(frozen=True)
class Skipped:
    """An input that was not shown or counted, and why (`path:pointer: message`)."""

    message: str

    def __str__(self) -> str:
        return self.message


@dataclass
class Totals:
    """Model, status, tokens and cost of a conversation from its `base_state.json`."""

    model: str | None = None
    status: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None


def conversation_totals(state: BaseState | None) -> Totals:
    """Tokens and cost (`trajkit.store.usage.usage_totals`), the model and the status."""
    from trajkit.store.usage import usage_totals

    if state is None:
        return Totals()
    usage = usage_totals(state)  # the one sum, as `ls` and `export`
    return Totals(
        model=state.agent.llm.model,
        status=state.execution_status,
        prompt_tokens=usage.prompt_tokens or 0,
        completion_tokens=usage.completion_tokens or 0,
        cache_read_tokens=usage.cache_read_tokens or 0,
        reasoning_tokens=usage.reasoning_tokens or 0,
        cost=usage.cost,
    )


# -- ls ------------------------------------------------------------------------------------------


@dataclass
class ConversationRow:
    """One line of `trajkit ls`."""

    id: str
    path: str
    first_time: str | None
    last_time: str | None
    status: str | None
    n_events: int
    model: str | None
    cost: float | None
    first_message: str
    problems: list[str] = field(default_factory=list)
    title: str | None = None
    """The agent server's title (`meta.json`), else the base state's `tags.title`."""
    tags: dict[str, str] = field(default_factory=dict)
    """The agent server's tags (`meta.json`), else the base state's `tags`."""
    benchmark: dict[str, Any] = field(default_factory=dict)
    """`trajkit.shapes.eval_output.benchmark_fields`: instance, patch, outcome, score."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-able values (problems, title, tags and the benchmark fields left out when
        there are none; the benchmark fields at the top level, named as in `export`).
        """
        data = dict(self.__dict__)
        benchmark = data.pop("benchmark")
        for key in ("problems", "title", "tags"):
            if not data[key]:
                data.pop(key)
        if any(v is not None for v in benchmark.values()):
            data.update(benchmark)
        return data


def iter_sources(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Input | Skipped]:
    """What each path holds (`trajkit.shapes.resolve_inputs`), with a `Skipped` per unread part."""
    for item in resolve_inputs(paths):
        yield Skipped(str(item)) if isinstance(item, SkippedInput) else item


def iter_rows(paths: Iterable[str | os.PathLike[str]]) -> Iterator[ConversationRow | Skipped]:
    """One row per conversation found under `paths` (see the module docstring)."""
    for item in iter_sources(paths):
        if isinstance(item, Skipped):
            yield item
            continue
        try:
            yield _row(open_conversation(item))
        except TrajkitError as exc:
            yield Skipped(str(exc))


def _row(conv: StoredConversation) -> ConversationRow:
    header = conv.header()
    row = ConversationRow(
        id=header.id,
        path=str(conv.path),
        first_time=header.first_timestamp,
        last_time=header.last_timestamp,
        status=header.execution_status,
        n_events=header.n_events,
        model=header.model,
        cost=header.accumulated_cost,
        first_message="",
        problems=list(header.problems),
    )
    state = _check_state_json(conv, row.problems) if header.has_base_state else None
    tags = state.get("tags") if isinstance(state, dict) else None
    if isinstance(tags, dict):
        row.tags = {str(k): str(v) for k, v in tags.items() if k != "title"}
        title = tags.get("title")
        row.title = title if isinstance(title, str) and title else None
    _add_server_meta(conv, row)
    row.benchmark = benchmark_fields(getattr(conv, "record", None), row.tags)
    row.first_message = _first_user_message(header.files, row.problems)
    return row


def _add_server_meta(conv: StoredConversation, row: ConversationRow) -> None:
    """Title, tags, times and metrics of an agent server's `meta.json` (`trajkit.shapes`)."""
    from trajkit.shapes.agent_server import read_server_meta

    if isinstance(conv, MemoryConversation | BareFolderConversation):
        return
    try:
        meta = read_server_meta(conv.path)
    except InputError as exc:
        row.problems.append(str(exc))
        return
    if meta is None:
        return
    row.title = meta.title or row.title
    row.tags = meta.tags or row.tags
    row.first_time = row.first_time or meta.created_at
    row.last_time = row.last_time or meta.updated_at
    row.model = row.model or meta.model
    row.cost = row.cost if row.cost is not None else meta.cost


def _check_state_json(conv: StoredConversation, problems: list[str]) -> Any:
    """The base state's JSON (None when it cannot be read: the reason goes to `problems`)."""
    try:
        raw = conv.base_state_raw()
        if raw and raw.strip():
            return orjson.loads(raw)
    except InputError as exc:
        problems.append(str(exc))
    except orjson.JSONDecodeError as exc:
        problems.append(f"{conv.base_state_path}: not valid JSON: {exc}")
    return None


def _first_user_message(files: Iterable[EventFile], problems: list[str]) -> str:
    for n, event_file in enumerate(files):
        if n >= _FIRST_MESSAGE_SCAN:
            break
        try:
            data = orjson.loads(event_file.read_bytes())
        except InputError as exc:
            problems.append(str(exc))
            continue
        except orjson.JSONDecodeError as exc:
            problems.append(f"{event_file.path}: not valid JSON: {exc}")
            continue
        if not isinstance(data, dict) or data.get("kind") != "MessageEvent":
            continue
        if data.get("source") != "user":
            continue
        content = (data.get("llm_message") or {}).get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return " ".join(
                c["text"] for c in content if isinstance(c, dict) and isinstance(c.get("text"), str)
            )
    return ""


# -- stats ---------------------------------------------------------------------------------------


@dataclass
class ConversationStats:
    """Counts for one conversation."""

    id: str
    status: str | None = None
    model: str | None = None
    n_events: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    tool_calls: Counter[str] = field(default_factory=Counter)
    tool_errors: Counter[str] = field(default_factory=Counter)
    tool_rejections: Counter[str] = field(default_factory=Counter)
    errors: int = 0
    """Failed steps (`trajkit.events.outcome.is_failed_step`), as the report counts them."""
    resolved: bool | None = None
    """An evaluation record's verdict (`benchmark_fields`), None when there is none."""
    totals: Totals = field(default_factory=Totals)
    duration_s: float | None = None
    problems: list[str] = field(default_factory=list)


@paused_gc()
def conversation_stats(folder: str | os.PathLike[str]) -> ConversationStats:
    """Read one conversation folder, one event at a time, and count what it holds."""
    conv = open_conversation(folder)
    stats = _new_stats(conv)
    return _count(stats, conv.iter_events_or_none(stats.problems))


def _new_stats(conv: StoredConversation) -> ConversationStats:
    """Stats with the base state's totals, not yet counted (`_count`)."""
    stats = ConversationStats(id=conv.id)
    stats.resolved = benchmark_fields(getattr(conv, "record", None))["resolved"]
    try:
        stats.totals = conversation_totals(conv.base_state())
    except TrajkitError as exc:
        stats.problems.append(str(exc))
    return stats


def source_stats(source: Input | Skipped) -> ConversationStats | Skipped:
    """`conversation_stats` of one conversation; never raises `TrajkitError` (it becomes a
    `Skipped`), so it can run in a worker over a corpus.
    """
    if isinstance(source, Skipped):
        return source
    try:
        return conversation_stats(source)
    except TrajkitError as exc:
        return Skipped(str(exc))


def _count(stats: ConversationStats, events: Iterator[Event | None]) -> ConversationStats:
    from trajkit.events import (
        ActionEvent,
        AgentErrorEvent,
        ObservationEvent,
        UserRejectObservation,
    )
    from trajkit.events.outcome import is_failed_step
    from trajkit.views.entries import seconds_between  # lazy, as the event model: not for ls

    stats.status, stats.model = stats.totals.status, stats.totals.model
    first: str | None = None
    last: str | None = None
    for event in events:
        stats.n_events += 1
        if event is None:  # unreadable; reported by the producer
            continue
        stats.kinds[event.kind] += 1
        stats.errors += is_failed_step(event)
        if event.timestamp:  # earliest to latest: events are not always in time order
            first = min(first, event.timestamp) if first else event.timestamp
            last = max(last, event.timestamp) if last else event.timestamp
        if isinstance(event, ActionEvent):
            stats.tool_calls[event.tool_name] += 1
        elif isinstance(event, AgentErrorEvent) or (
            isinstance(event, ObservationEvent) and event.observation.is_error
        ):
            stats.tool_errors[event.tool_name] += 1
        elif isinstance(event, UserRejectObservation):
            stats.tool_rejections[event.tool_name] += 1
    stats.duration_s = seconds_between(first, last)
    return stats


def iter_stats(
    paths: Iterable[str | os.PathLike[str]], *, engine: Engine | None = None
) -> Iterator[ConversationStats | Skipped]:
    """`source_stats` of everything under `paths`, in order, on `engine` (default this process)."""
    from trajkit.engine import LocalEngine

    engine = engine or LocalEngine(1)
    yield from engine.map(source_stats, iter_sources(engine.portable(paths)), chunksize=4)


@dataclass
class CorpusStats:
    """Totals over many conversations; `to_dict()` is the `--json` document."""

    conversations: int = 0
    by_status: Counter[str] = field(default_factory=Counter)
    by_model: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    tool_calls: Counter[str] = field(default_factory=Counter)
    tool_errors: Counter[str] = field(default_factory=Counter)
    tool_rejections: Counter[str] = field(default_factory=Counter)
    errors: int = 0
    """Failed steps over all conversations (`trajkit.events.outcome`)."""
    graded: Counter[str] = field(default_factory=Counter)
    """Per model: conversations an evaluation record graded (`resolved` true or false)."""
    resolved: Counter[str] = field(default_factory=Counter)
    """Per model: conversations an evaluation record marks resolved."""
    totals: Totals = field(default_factory=Totals)
    lengths: list[int] = field(default_factory=list)
    costs: list[float] = field(default_factory=list)
    prompt_tokens: list[int] = field(default_factory=list)
    completion_tokens: list[int] = field(default_factory=list)
    durations: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def add(self, c: ConversationStats) -> None:
        """Fold one conversation in."""
        self.conversations += 1
        self.by_status[c.status or "unknown"] += 1
        self.by_model[c.model or "unknown"] += 1
        self.errors += c.errors
        if c.resolved is not None:
            self.graded[c.model or "unknown"] += 1
            self.resolved[c.model or "unknown"] += c.resolved
        for mine, theirs in (
            (self.kinds, c.kinds),
            (self.tool_calls, c.tool_calls),
            (self.tool_errors, c.tool_errors),
            (self.tool_rejections, c.tool_rejections),
        ):
            mine.update(theirs)
        t = self.totals
        t.prompt_tokens += c.totals.prompt_tokens
        t.completion_tokens += c.totals.completion_tokens
        t.cache_read_tokens += c.totals.cache_read_tokens
        t.reasoning_tokens += c.totals.reasoning_tokens
        if c.totals.cost is not None:
            t.cost = (t.cost or 0.0) + c.totals.cost
            self.costs.append(c.totals.cost)
        self.lengths.append(c.n_events)
        if c.totals.cost is not None or c.totals.prompt_tokens or c.totals.completion_tokens:
            # Only conversations that recorded usage: one without any is missing, not 0.
            self.prompt_tokens.append(c.totals.prompt_tokens)
            self.completion_tokens.append(c.totals.completion_tokens)
        if c.duration_s is not None:
            self.durations.append(c.duration_s)
        self.problems.extend(c.problems)

    def tools(self) -> dict[str, dict[str, Any]]:
        """Per tool: calls, errors, rejections and error rate (errors / calls)."""
        names = sorted(set(self.tool_calls) | set(self.tool_errors) | set(self.tool_rejections))
        out: dict[str, dict[str, Any]] = {}
        for name in sorted(names, key=lambda n: (-self.tool_calls[n], n)):
            calls = self.tool_calls[name]
            errors = self.tool_errors[name]
            out[name] = {
                "calls": calls,
                "errors": errors,
                "rejections": self.tool_rejections[name],
                "error_rate": round(errors / calls, 4) if calls else None,
            }
        return out

    def length_distribution(self) -> dict[str, int]:
        """Number of conversations per event-count bucket (`LENGTH_BUCKETS`)."""
        out: dict[str, int] = {}
        for lo, hi in LENGTH_BUCKETS:
            label = str(lo) if lo == hi else (f"{lo}+" if hi is None else f"{lo}-{hi}")
            out[label] = sum(1 for n in self.lengths if n >= lo and (hi is None or n <= hi))
        return out

    def to_dict(self) -> dict[str, Any]:
        """The summary as plain JSON-able values."""
        t = self.totals
        return {
            "conversations": self.conversations,
            "by_status": dict(self.by_status.most_common()),
            "by_model": dict(self.by_model.most_common()),
            "events": {
                "total": sum(self.kinds.values()),
                "by_kind": dict(self.kinds.most_common()),
                "failed_steps": self.errors,
            },
            "tools": self.tools(),
            "resolved_by_model": {
                model: {
                    "graded": n,
                    "resolved": self.resolved[model],
                    "rate": round(self.resolved[model] / n, 4),
                }
                for model, n in self.graded.most_common()
            },
            "tokens": {
                "prompt": t.prompt_tokens,
                "completion": t.completion_tokens,
                "cache_read": t.cache_read_tokens,
                "reasoning": t.reasoning_tokens,
            },
            "cost": {"total": t.cost},
            "per_conversation": {
                "events": percentiles(self.lengths),
                "cost": percentiles(self.costs),
                "prompt_tokens": percentiles(self.prompt_tokens),
                "completion_tokens": percentiles(self.completion_tokens),
                "duration_s": percentiles(self.durations),
            },
            "length_distribution": self.length_distribution(),
            "problems": list(self.problems),
        }


def percentiles(values: Iterable[float]) -> dict[str, float | None]:
    """min, p50, p90, p99, max and mean (linear interpolation); None for no values."""
    data = sorted(values)
    keys = ("min", "p50", "p90", "p99", "max", "mean")
    if not data:
        return dict.fromkeys(keys)
    out = {
        "min": data[0],
        "p50": _quantile(data, 0.5),
        "p90": _quantile(data, 0.9),
        "p99": _quantile(data, 0.99),
        "max": data[-1],
        "mean": sum(data) / len(data),
    }
    return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in out.items()}


def _quantile(data: list[float], q: float) -> float:
    pos = (len(data) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)
