"""The stable Arrow schemas of the two exported tables, `conversations/` and `events/`.

These schemas are a public contract: readers (Hugging Face `datasets`, DuckDB, Polars, Spark)
address columns by name and type, so a column is only ever *added* (with a bump of
`SCHEMA_VERSION`), never renamed, retyped or removed. The README section "Export dataset schema"
documents every column; a test checks the two stay in step.

Choices:
- `messages` follows Hugging Face TRL's conversational layout: a list of structs with `role`,
  `content` (a string), `tool_calls` (OpenAI shape, `arguments` kept as the JSON string the model
  wrote), `tool_call_id`, `name` and `reasoning_content`. `tools` is the Chat Completions tool list
  as JSON text (TRL's documented fallback for `datasets` without the `Json()` type), because tool
  parameter schemas are arbitrary JSON that no fixed struct can hold.
- `conversion` is the exact Chat Completions document (`{"messages", "tools"}`) that
  `trajkit convert --to chat` writes, as JSON text, for lossless use (images, thinking blocks,
  cache marks).
- Timestamps are `timestamp[us]` without a time zone: the SDK writes naive local time.
- Counts are `int64` and flags `bool`; every column is nullable except the keys.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

__all__ = [
    "CONVERSATIONS_SCHEMA",
    "EVENTS_SCHEMA",
    "MESSAGE_TYPE",
    "RL_SCHEMA",
    "SCHEMA_VERSION",
    "SFT_SCHEMA",
    "TOOL_CALL_TYPE",
    "columns_to_batch",
    "schema_for",
]

SCHEMA_VERSION = "3"
"""Version of both schemas, written in each shard's metadata as `trajkit.schema_version`.

2: `conversations` gained `title` and `tags` (the agent server's `meta.json`, else the base
state's `tags`).
3: `conversations` gained the benchmark columns (`instance_id` ... `test_result`), from an
evaluation record (`trajkit.shapes.eval_output.benchmark_fields`)."""

TOOL_CALL_TYPE = pa.struct(
    [
        pa.field("id", pa.string()),
        pa.field("type", pa.string()),
        pa.field(
            "function",
            pa.struct([pa.field("name", pa.string()), pa.field("arguments", pa.string())]),
        ),
    ]
)
"""One OpenAI tool call: `{id, type: "function", function: {name, arguments}}`."""

MESSAGE_TYPE = pa.struct(
    [
        pa.field("role", pa.string()),
        pa.field("content", pa.string()),
        pa.field("tool_calls", pa.list_(TOOL_CALL_TYPE)),
        pa.field("tool_call_id", pa.string()),
        pa.field("name", pa.string()),
        pa.field("reasoning_content", pa.string()),
    ]
)
"""One chat message in TRL's conversational layout."""

_TIMESTAMP = pa.timestamp("us")


def _doc(name: str, type_: pa.DataType, doc: str, *, nullable: bool = True) -> pa.Field:
    return pa.field(name, type_, nullable=nullable, metadata={"description": doc})


CONVERSATIONS_SCHEMA = pa.schema(
    [
        _doc("conversation_id", pa.string(), "Dashed conversation UUID.", nullable=False),
        _doc("source_path", pa.string(), "Folder (or V0 file[:line]) the conversation came from."),
        _doc("source_format", pa.string(), "`v1`, or `v0:<container>` for migrated input."),
        _doc("created_at", _TIMESTAMP, "Timestamp of the first event (naive local time)."),
        _doc("last_event_at", _TIMESTAMP, "Timestamp of the last event."),
        _doc("model", pa.string(), "The agent LLM's model name (`agent.llm.model`)."),
        _doc("agent_kind", pa.string(), "Agent class (`agent.kind`)."),
        _doc("tool_names", pa.list_(pa.string()), "Names of the tools offered to the model."),
        _doc("execution_status", pa.string(), "Run status from base_state.json."),
        _doc("n_events", pa.int64(), "Event rows exported: every event file, every branch."),
        _doc(
            "n_llm_calls",
            pa.int64(),
            "LLM calls in `stats` (all usage ids); else distinct `llm_response_id`s.",
        ),
        _doc("n_tool_calls", pa.int64(), "ActionEvents (one per tool call)."),
        _doc(
            "n_errors",
            pa.int64(),
            "Failed steps, as the report counts them (`trajkit.events.outcome`).",
        ),
        _doc("n_messages", pa.int64(), "Messages in the `messages` column."),
        _doc("accumulated_cost", pa.float64(), "Total LLM cost in USD over all usage ids."),
        _doc("prompt_tokens", pa.int64(), "Accumulated prompt tokens."),
        _doc("completion_tokens", pa.int64(), "Accumulated completion tokens."),
        _doc("cache_read_tokens", pa.int64(), "Accumulated prompt tokens read from cache."),
        _doc("cache_write_tokens", pa.int64(), "Accumulated prompt tokens written to cache."),
        _doc("reasoning_tokens", pa.int64(), "Accumulated reasoning tokens."),
        _doc("first_user_message", pa.string(), "Text of the first user message."),
        _doc("final_answer", pa.string(), "The finish tool's message, else the last agent text."),
        _doc("view", pa.string(), "`condensed` (what the model saw) or `full`."),
        _doc("messages", pa.list_(MESSAGE_TYPE), "Chat messages in TRL's conversational layout."),
        _doc("tools", pa.string(), "Chat Completions tool definitions, JSON text."),
        _doc("conversion", pa.string(), "Exact `trajkit convert --to chat` document, JSON text."),
        _doc(
            "problems",
            pa.list_(pa.string()),
            "Conversion notes, as `trajkit convert` reports them (dangling calls, unknown tools, "
            "events left out).",
        ),
        _doc(
            "n_redactions", pa.int64(), "Secrets masked in this conversation's rows (both tables)."
        ),
        _doc(
            "title",
            pa.string(),
            "The agent server's title (`meta.json`), else the base state's `tags.title`.",
        ),
        _doc(
            "tags",
            pa.list_(pa.struct([pa.field("key", pa.string()), pa.field("value", pa.string())])),
            "The agent server's tags (`meta.json`), else the base state's `tags` (no `title`), "
            "as key/value pairs sorted by key (Hugging Face `datasets` has no map type).",
        ),
        _doc("instance_id", pa.string(), "Benchmark task id (evaluation record, or tags)."),
        _doc("repo", pa.string(), "Repository of the task (`instance.repo`), when named."),
        _doc("base_commit", pa.string(), "Commit the task starts from (`instance.base_commit`)."),
        _doc("model_patch", pa.string(), "The agent's patch (`test_result.git_patch`)."),
        _doc("resolved", pa.bool_(), "The evaluation's verdict; null when not graded."),
        _doc("exit_status", pa.string(), "The record's, else `error`, `submitted` or `finished`."),
        _doc("score", pa.float64(), "`test_result.score`, passed/total checkpoints, or resolved."),
        _doc("test_result", pa.string(), "The record's raw `test_result`, JSON text."),
    ],
    metadata={"trajkit.table": "conversations", "trajkit.schema_version": SCHEMA_VERSION},
)
"""One row per conversation."""

EVENTS_SCHEMA = pa.schema(
    [
        _doc("conversation_id", pa.string(), "Dashed conversation UUID.", nullable=False),
        _doc("index", pa.int64(), "Position in the log (the file name's index).", nullable=False),
        _doc("event_id", pa.string(), "Event id."),
        _doc("parent_id", pa.string(), "Parent event id (`__root__` for an explicit root)."),
        _doc("kind", pa.string(), "Event class name, e.g. `ActionEvent`."),
        _doc("source", pa.string(), "`agent`, `user`, `environment` or `hook`."),
        _doc("timestamp", _TIMESTAMP, "Event time (naive local time)."),
        _doc("tool_name", pa.string(), "Tool name on actions and their results."),
        _doc("tool_call_id", pa.string(), "Tool call id on actions and their results."),
        _doc("llm_response_id", pa.string(), "LLM response that produced the event."),
        _doc("action_kind", pa.string(), "Action payload class, e.g. `TerminalAction`."),
        _doc("observation_kind", pa.string(), "Observation payload class."),
        _doc("is_error", pa.bool_(), "True for a failed step (`trajkit.events.outcome`)."),
        _doc("llm_text", pa.string(), "Text of the LLM message this event becomes (null if none)."),
        _doc(
            "tool_arguments", pa.string(), "Tool call arguments, the JSON string the model wrote."
        ),
        _doc("event_json", pa.string(), "The whole event as JSON text, as stored."),
    ],
    metadata={"trajkit.table": "events", "trajkit.schema_version": SCHEMA_VERSION},
)
"""One row per event."""

_SCHEMAS = {"conversations": CONVERSATIONS_SCHEMA, "events": EVENTS_SCHEMA}


def schema_for(table: str) -> pa.Schema:
    """The schema of a table: `conversations`, `events`, `sft` or `rl`."""
    return _SCHEMAS[table]


TRAIN_MESSAGE_TYPE = pa.struct([*MESSAGE_TYPE, pa.field("train", pa.bool_())])
"""A `MESSAGE_TYPE` message with its `train` flag (learned or context)."""

_BENCHMARK = [
    f for f in CONVERSATIONS_SCHEMA if f.name in ("instance_id", "repo", "base_commit")
] + [
    f for f in CONVERSATIONS_SCHEMA if f.name in ("model_patch", "resolved", "exit_status", "score")
]
_SPLIT = _doc("split", pa.string(), "`train` or `test`, by a hash of `instance_id` (else the id).")
_KEY = [CONVERSATIONS_SCHEMA.field("conversation_id"), CONVERSATIONS_SCHEMA.field("model")]

SFT_SCHEMA = pa.schema(
    [
        *_KEY,
        *_BENCHMARK,
        _SPLIT,
        _doc("example", pa.int64(), "Position of the example in its conversation (0, 1, ...)."),
        _doc("boundary", pa.string(), "`condensation` (the request before one) or `final`."),
        _doc(
            "messages",
            pa.list_(TRAIN_MESSAGE_TYPE),
            "The request in TRL's layout; `train`: an assistant turn to learn (not one an "
            "earlier example of the conversation holds).",
        ),
        _doc("tools", pa.string(), "Chat Completions tool definitions, JSON text."),
        _doc("request", pa.string(), "The exact `trajkit convert --to chat` document, JSON text."),
    ],
    metadata={"trajkit.table": "sft", "trajkit.schema_version": SCHEMA_VERSION},
)
"""`--profile sft`: one row per training example (`trajkit.export.profiles.sft_rows`)."""

RL_SCHEMA = pa.schema(
    [
        *_KEY,
        *_BENCHMARK,
        _SPLIT,
        _doc("call", pa.int64(), "Position of the LLM call in its conversation (0, 1, ...)."),
        _doc("llm_response_id", pa.string(), "The call's response id."),
        _doc("prompt", pa.list_(MESSAGE_TYPE), "The request before the call, TRL's layout."),
        _doc("completion", pa.list_(MESSAGE_TYPE), "The assistant message the call produced."),
        _doc("tools", pa.string(), "Chat Completions tool definitions, JSON text."),
        _doc("reward", pa.float64(), "The evaluation record's `score`; null without one."),
        _doc("prompt_token_ids", pa.list_(pa.int64()), "Prompt token ids, when recorded."),
        _doc("completion_token_ids", pa.list_(pa.int64()), "Response token ids, when recorded."),
        _doc(
            "completion_logprobs",
            pa.list_(pa.float64()),
            "Log-probabilities of the completion's tokens, from a completion log "
            "(`LLMCompletionLogEvent`) whose provider response holds them, or an ATIF step's "
            "`metrics.logprobs`; null when nothing recorded them.",
        ),
        _doc(
            "token_source",
            pa.string(),
            "Where the token ids come from: `TokenEvent`, `ATIF` (the step's metrics), or `none`.",
        ),
    ],
    metadata={"trajkit.table": "rl", "trajkit.schema_version": SCHEMA_VERSION},
)
"""`--profile rl`: one row per agent LLM call (`trajkit.export.profiles.rl_rows`)."""

_SCHEMAS.update(sft=SFT_SCHEMA, rl=RL_SCHEMA)


def columns_to_batch(columns: dict[str, list[Any]], schema: pa.Schema) -> pa.RecordBatch:
    """Columns (name -> values) -> a record batch of `schema`.

    String columns take `str` or UTF-8 `bytes`; bytes that are not UTF-8 (never expected: they
    were parsed as JSON) are decoded with replacement characters rather than failing.
    """
    arrays = []
    for f in schema:
        values = columns[f.name]
        if f.type == pa.string():
            joined = _joined_utf8(values)
            if joined is not None:
                arrays.append(joined)
                continue
        try:
            arrays.append(pa.array(values, type=f.type))
        except pa.ArrowInvalid:
            if not pa.types.is_string(f.type):
                raise
            values = [v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in values]
            arrays.append(pa.array(values, type=f.type))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _joined_utf8(values: list[Any]) -> pa.Array | None:
    """A string array of `values` when they are all `bytes` (JSON text as read or dumped).

    The bytes are joined into one buffer of the exact size and the offsets computed from their
    lengths, instead of `pa.array` appending them one by one into a buffer it grows (and so
    copies) by doubling: on this 2-core VM fresh pages cost ~5 us each to fault in, and
    `pa.array` of 5.7 KB event files took 16 us per event against 9.6 (loaded machine).
    None (the caller uses `pa.array`) when a value is not bytes, when the text is not UTF-8,
    or when it would not fit 32-bit offsets.
    """
    import itertools
    from array import array

    if not values or not all(type(v) is bytes for v in values):
        return None
    offsets = array("q", itertools.accumulate(map(len, values), initial=0))
    if offsets[-1] >= 2**31:
        return None
    data = pa.py_buffer(b"".join(values))
    strings = pa.StringArray.from_buffers(len(values), pa.py_buffer(array("i", offsets)), data)
    try:
        strings.validate(full=True)  # UTF-8, as `pa.array` checks it
    except pa.ArrowInvalid:
        return None
    return strings
