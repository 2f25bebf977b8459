"""Training profiles: the rows `export --profile sft|rl` adds, built from one loaded conversation.

`sft_rows(loaded, conversation)`: one row per training example, the exact request the model
was sent at each condensation boundary (the view just before each `Condensation` event: what
the condenser and the last agent call of that span saw) and the final one, each the same
pipeline as `trajkit convert --to chat` over the events up to that point (the branch ending
at the point's last event). `messages` is the TRL conversational layout of the analysis table
plus a per-message `train` flag: assistant turns are learned, except one an earlier example of
the same conversation already holds (context copied across a condensation); system, user,
tool results and the condensation summary (injected context) are not. `request` is the exact
Chat Completions document. (`_size`, not a column, is what the shard writer's buffer counts.)
`split` is `test` for about one task in ten, chosen by a hash of
`instance_id` (else the conversation id), so one task's attempts never straddle train and test.

`rl_rows(loaded, conversation)`: one row per LLM call of the agent (events sharing an
`llm_response_id`): `prompt` is the request before the call (as above), `completion` the
assistant message it produced, `reward` the evaluation record's score when there is one, and
the token ids when a `TokenEvent` recorded them (or an ATIF trajectory's step `metrics`, kept
by `trajkit.shapes.atif` in the `ATIFData` event after the step); `token_source` says which
(`none` when not).
`completion_logprobs` are the log-probabilities of the completion's tokens where they were
recorded: SDK 1.58.2 has no field for them (`TokenEvent` holds token ids only); they exist
only inside the provider's response a completion log holds (`LLMCompletionLogEvent.log_data`,
`log_completions=True` on a remote conversation), when the request asked for them
(`logprobs`): Chat Completions `choices[0].logprobs.content[*].logprob`, or the Responses
API's `output[*].content[*].logprobs[*].logprob`, matched to the call by the response `id`
(the events' `llm_response_id`); an ATIF step's `metrics.logprobs` otherwise. Null when
nothing recorded them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from itertools import accumulate
from typing import TYPE_CHECKING, Any

import orjson

from trajkit.export.summary import Loaded, chat_conversion, trl_message
from trajkit.export.view_tracker import ViewTracker
from trajkit.shapes.eval_output import BENCHMARK_FIELDS

if TYPE_CHECKING:
    from trajkit.convert.options import ConversionOptions
    from trajkit.convert.view import ViewEntry
    from trajkit.events import Event

__all__ = ["PROFILES", "TEST_SHARE", "completion_logprobs", "rl_rows", "sft_rows", "split_of"]

PROFILES = ("analysis", "sft", "rl")
TEST_SHARE = 10
"""Percent of tasks in the `test` split."""


def split_of(key: str) -> str:
    """`train` or `test`, stable for a task (`instance_id`) across runs and machines."""
    digest = hashlib.blake2b(key.encode(), digest_size=8).digest()
    return "test" if int.from_bytes(digest, "big") % 100 < TEST_SHARE else "train"


def _request(loaded: Loaded, view: ViewTracker, end: int, options: ConversionOptions) -> Any:
    """(TRL messages, chat document) of the request the model saw after the first `end`
    events `view` took.
    """
    state = loaded.state
    if state is not None and end:
        leaf = view.entries[end - 1].id
        state = state.model_copy(update={"leaf_event_id": leaf, "head_is_empty": False})
    if view.keep_all:
        events: Sequence[Event] | dict[int, Event] = view.events[:end]
        part = replace(loaded, state=state, entries=None, llm_messages={})
    else:  # the events no condensation forgot, placed by the entries
        events = view.kept
        part = replace(loaded, state=state, entries=view.entries[:end], llm_messages={})
    messages, one_each, chat, tools, _ = chat_conversion(events, options, part, None)
    trl = [trl_message(m, c) for m, c in zip(messages, one_each, strict=True)]
    return trl, {"messages": chat, "tools": tools}


def _common(conversation: dict[str, Any]) -> dict[str, Any]:
    key = conversation["instance_id"] or conversation["conversation_id"]
    return {
        "conversation_id": conversation["conversation_id"],
        "model": conversation["model"],
        **{k: conversation[k] for k in BENCHMARK_FIELDS if k != "test_result"},
        "split": split_of(key),
    }


def sft_rows(
    events: Iterable[Event],
    loaded: Loaded,
    conversation: dict[str, Any],
    options: ConversionOptions,
    *,
    keep_all: bool = False,
) -> Iterator[dict[str, Any]]:
    """The SFT examples of one conversation (module docstring), one at a time, as `events`
    (every event, in order) come: the view holds what the model still saw (`ViewTracker`;
    every event with `keep_all`).
    """
    view = ViewTracker(keep_all=keep_all)
    learned: set[bytes] = set()  # digests of the assistant turns learned so far
    common = _common(conversation)

    def example(n: int, boundary: str) -> dict[str, Any]:
        messages, request = _request(loaded, view, len(view.entries), options)
        for m in messages:
            key = hashlib.blake2b(orjson.dumps(m), digest_size=16).digest()
            m["train"] = m["role"] == "assistant" and key not in learned
            learned.add(key)
        return {
            **common,
            "example": n,
            "boundary": boundary,
            "messages": messages,
            "tools": orjson.dumps(request["tools"]),
            "request": orjson.dumps(request),
            "_size": len(messages) * 64 + sum(len(m["content"] or "") for m in messages),
        }

    n = 0
    for event in events:
        if event.kind == "Condensation":  # the request just before it
            yield example(n, "condensation")
            n += 1
        view.add(event)
    yield example(n, "final")


def rl_rows(
    events: Iterable[Event],
    loaded: Loaded,
    conversation: dict[str, Any],
    options: ConversionOptions,
    *,
    keep_all: bool = False,
    logprobs: dict[str, list[float]] | None = None,
) -> Iterator[dict[str, Any]]:
    """One row per agent LLM call (module docstring), one at a time, as `events` come.

    Between two condensations the model's view only grows, so the request of every call of
    that span is a prefix of the span's last request: it is converted once per span, and call
    k's prompt is the messages before the span's k-th assistant message (a span whose assistant
    messages do not match its calls one to one is converted call by call instead).
    `logprobs`: `completion_logprobs` of the conversation's events, by response id.
    """
    view = ViewTracker(keep_all=keep_all)
    common = {**_common(conversation), "reward": conversation["score"]}
    numbers: dict[str, int] = {}  # response id -> call number, by first appearance
    span: dict[str, list[int]] = {}  # the calls starting in this span -> their positions
    tokens: dict[int, tuple[list[int], list[int]]] = {}  # of this span's calls, by position
    pending: tuple[list[int], list[int]] | None = None
    steps: dict[str, dict[str, Any]] = {}  # response id -> its ATIF step's metrics
    last: str | None = None  # the response id of the last agent event
    for event in events:
        pos = len(view.entries)
        if event.kind == "Condensation":
            yield from _span_rows(
                loaded, view, pos, options, span, numbers, tokens, common, logprobs, steps
            )
            span, tokens = {}, {}
        view.add(event)
        rid = event.__dict__.get("llm_response_id")
        if event.kind == "TokenEvent":  # token ids of the call whose events follow
            pending = (event.__dict__["prompt_token_ids"], event.__dict__["response_token_ids"])
        elif pending is not None and event.source == "agent" and rid:
            tokens[pos], pending = pending, None
        if event.kind == ATIF_DATA and last is not None:  # after the step it completes
            metrics = _atif_metrics(event)
            if metrics:
                steps.setdefault(last, metrics)
        elif event.source == "user":
            last = None
        if isinstance(rid, str) and rid and event.source == "agent":
            last = rid
        if (
            isinstance(rid, str)
            and rid
            and event.source == "agent"
            and event.kind != "Condensation"
        ):
            if rid not in numbers:
                numbers[rid] = len(numbers)
                span[rid] = []
            if rid in span:
                span[rid].append(pos)
    yield from _span_rows(
        loaded, view, len(view.entries), options, span, numbers, tokens, common, logprobs, steps
    )


def _span_rows(
    loaded: Loaded,
    view: ViewTracker,
    end: int,
    options: ConversionOptions,
    span: dict[str, list[int]],
    numbers: dict[str, int],
    tokens: dict[int, tuple[list[int], list[int]]],
    common: dict[str, Any],
    logprobs: dict[str, list[float]] | None,
    steps: dict[str, dict[str, Any]],
) -> Iterator[dict[str, Any]]:
    """The rows of the calls starting in one span, which ends before position `end`."""
    if not span:
        return
    messages, request = _request(loaded, view, end, options)
    tools = orjson.dumps(request["tools"])
    turns = [i for i, m in enumerate(messages) if m["role"] == "assistant"][-len(span) :]
    sizes = list(accumulate((64 + len(m["content"] or "") for m in messages), initial=0))
    for n, (rid, positions) in enumerate(span.items()):
        if len(turns) == len(span):
            prompt, completion = messages[: turns[n]], messages[turns[n] : turns[n] + 1]
        else:  # the view is not one assistant message per call: convert this call alone
            prompt, _ = _request(loaded, view, positions[0], options)
            results = _results_end(view.entries[:end], positions)
            full, _ = _request(loaded, view, results, options)
            completion = full[len(prompt) : len(prompt) + 1]
        found, source = tokens.get(positions[0]), "TokenEvent"
        step = steps.get(rid, {})
        if found is None and "prompt_token_ids" in step and "completion_token_ids" in step:
            found, source = (step["prompt_token_ids"], step["completion_token_ids"]), "ATIF"
        values = (logprobs.get(rid) if logprobs else None) or step.get("logprobs")
        yield {
            **common,
            "call": numbers[rid],
            "llm_response_id": rid,
            "prompt": prompt,
            "completion": completion,
            "tools": tools,
            "prompt_token_ids": found[0] if found else None,
            "completion_token_ids": found[1] if found else None,
            "completion_logprobs": values,
            "token_source": source if found else "none",
            "_size": sizes[len(prompt)] if len(prompt) < len(sizes) else 0,
        }


def _results_end(entries: Sequence[ViewEntry], positions: list[int]) -> int:
    """The position after the call's events and the results of the tools it called."""
    calls = {entries[i].tool_call_id for i in positions} - {None}
    end = positions[-1] + 1
    for i in range(end, len(entries)):
        if entries[i].tool_call_id in calls:
            end = i + 1
    return end


def completion_logprobs(events: Iterable[Event]) -> dict[str, list[float]]:
    """Log-probabilities of each call's completion by response id, from the completion logs
    (`LLMCompletionLogEvent`) whose provider response holds them (module docstring).
    """
    out: dict[str, list[float]] = {}
    for e in events:
        if e.kind != "LLMCompletionLogEvent":
            continue
        try:
            log = orjson.loads(e.__dict__["log_data"])
        except orjson.JSONDecodeError:
            continue  # not JSON: nothing to read (the viewer shows the log as it is)
        for key in ("response", "raw_response"):  # raw: before the SDK's tool-call mapping
            response = log.get(key) if isinstance(log, dict) else None
            if not isinstance(response, dict) or not isinstance(response.get("id"), str):
                continue
            values = _logprobs(response)
            if values is not None:
                out.setdefault(response["id"], values)
    return out


def _logprobs(response: dict[str, Any]) -> list[float] | None:
    """The token log-probabilities of a Chat Completions or Responses API response, if any."""
    choices = response.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        found = choices[0].get("logprobs")
        items = found.get("content") if isinstance(found, dict) else None
    else:
        items = [
            item
            for output in response.get("output") or ()
            if isinstance(output, dict)
            for part in output.get("content") or ()
            if isinstance(part, dict)
            for item in part.get("logprobs") or ()
        ]
    if not isinstance(items, list) or not items:
        return None
    values = [item.get("logprob") if isinstance(item, dict) else None for item in items]
    if not all(isinstance(v, int | float) for v in values):
        return None
    return [float(v) for v in values]  # type: ignore[arg-type]


ATIF_DATA = "ATIFData"
"""The kind `trajkit.shapes.atif` keeps what V1 has no field for in (an `UnknownEvent`)."""


def _atif_metrics(event: Event) -> dict[str, Any]:
    """Token ids and log-probabilities an ATIF step recorded (`metrics`, as ATIF names them)."""
    raw = getattr(event, "raw", None)
    data = raw.get("data") if isinstance(raw, dict) else None
    metrics = data.get("metrics") if isinstance(data, dict) else None
    if not isinstance(metrics, dict):
        return {}
    out: dict[str, Any] = {}
    for key in ("prompt_token_ids", "completion_token_ids"):
        ids = metrics.get(key)
        if isinstance(ids, list) and all(type(i) is int for i in ids):
            out[key] = ids
    values = metrics.get("logprobs")
    if isinstance(values, list) and values and all(isinstance(v, int | float) for v in values):
        out["logprobs"] = [float(v) for v in values]
    return out
