"""One conversation -> its export rows: `conversation_rows(location, options)`.

This is the whole per-conversation job, and it is pure: it reads one conversation (a V1 folder,
or a V0 input through the migrator, in memory), and returns plain Python rows matching
`arrow_schema` (one conversation row, one row per event) or says why it produced none. It
writes nothing and keeps no state, so the local process pool and a Ray task can both run it.

Steps, cheapest first:
1. fingerprint the input (file names, sizes, mtimes; or the V0 line's bytes); when it equals the
   fingerprint of the last export, stop (`Unchanged`);
2. read `base_state.json` and apply the status and model filters before reading events;
3. read and parse every event (invalid -> `Skipped` with file and JSON pointer), apply the date
   and tool filters;
4. convert to chat messages (the same pipeline as `trajkit convert --to chat`), fill the rows;
5. mask secrets (see `redaction`) unless asked not to.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from trajkit.errors import InputError
from trajkit.events.outcome import is_failed_step
from trajkit.export.redaction import Redactor, secret_values
from trajkit.export.summary import Loaded, conversation_row, tag_pairs
from trajkit.filters import ConversationFilters, parse_timestamp
from trajkit.gc_pause import paused_gc
from trajkit.shapes.eval_output import BENCHMARK_FIELDS, benchmark_fields
from trajkit.shapes.memory import ShapeRef
from trajkit.store.location import Location as Folder
from trajkit.store.location import is_location, is_remote, label, version_tag
from trajkit.store.reader import EventFile

if TYPE_CHECKING:
    from trajkit.convert.options import ConversionOptions
    from trajkit.events import Event
    from trajkit.store.scan import ScannedFile

__all__ = [
    "ConversationRows",
    "Filtered",
    "Location",
    "RowOptions",
    "Skipped",
    "Unchanged",
    "conversation_rows",
    "location_label",
]

Location: TypeAlias = "Folder | ShapeRef"
"""A V1 conversation folder (on disk or in storage) or one another shape holds (`ShapeRef`)."""


@dataclass(frozen=True)
class RowOptions:
    """How rows are built."""

    view: Literal["condensed", "full"] = "condensed"
    """Message view: what the model saw after condensation, or every LLM-convertible event."""
    redact: bool = True
    """Mask secret values and API-key-looking strings."""
    filters: ConversationFilters = field(default_factory=ConversationFilters)
    """Which conversations to export: the filters every command shares (`trajkit.filters`)."""
    secret_key: str | None = None
    """The SDK's cipher key, to decrypt registered secrets and mask their values too."""
    extra_secrets: tuple[str, ...] = ()
    """More secret values to mask everywhere."""
    profile: Literal["analysis", "sft", "rl"] = "analysis"
    """`sft` or `rl` add that table's rows (`trajkit.export.profiles`) to the analysis tables."""
    resolved_only: bool = False
    """Only conversations an evaluation record marks resolved."""
    min_steps: int = 0
    """Only conversations with at least this many LLM calls (`n_llm_calls`, condenser too)."""
    keep_invalid: bool = False
    """Export conversations `trajkit validate` rejects, their errors in the row's `problems`
    (default: skip them with their first error; `trajkit.validate.verdict`)."""

    @property
    def conversion(self) -> ConversionOptions:
        """The `conversion` column's options: `trajkit convert --to chat --view <view>`."""
        from trajkit.convert.options import ConversionOptions

        return ConversionOptions(view=self.view)


@dataclass
class ConversationRows:
    """The rows of one exported conversation.

    Event rows are held by column (`event_columns`: column name -> one value per event, in
    `EVENTS_SCHEMA` order), which is how Arrow takes them; `events` gives them as dicts. JSON
    text values (`event_json`, and the conversation's `tools` and `conversion`) may be UTF-8
    `bytes` (the file's bytes, orjson's output) rather than `str`: Arrow stores both alike.
    """

    conversation_id: str
    source: str
    fingerprint: str
    conversation: dict[str, Any]
    event_columns: dict[str, list[Any]]
    n_redactions: int = 0
    profile_rows: Iterable[dict[str, Any]] = ()
    """Rows of the profile's table (`RowOptions.profile`), none for `analysis`: built one at a
    time as the writer takes them (an RL row holds its whole prompt; a long conversation's rows
    together are far larger than the conversation)."""
    content_hash: str = ""
    """Digest of the messages and tools (the `conversion` column): equal for exact copies."""

    @property
    def events(self) -> list[dict[str, Any]]:
        """One dict per event row (column name -> value)."""
        names = list(self.event_columns)
        return [
            dict(zip(names, row, strict=True))
            for row in zip(*self.event_columns.values(), strict=True)
        ]


@dataclass(frozen=True)
class Unchanged:
    """Same fingerprint as in the last export: nothing to do."""

    source: str
    fingerprint: str


@dataclass(frozen=True)
class Filtered:
    """Left out by a filter."""

    source: str
    reason: str


@dataclass(frozen=True)
class Skipped:
    """Invalid input: not exported. `reason` is `file:pointer: message`."""

    source: str
    reason: str


Result = ConversationRows | Unchanged | Filtered | Skipped


def location_label(location: Location) -> str:
    """The source string stored in rows and the manifest: an absolute folder, or `file#key`."""
    if isinstance(location, ShapeRef):  # trajkit.shapes: file.jsonl#instance_id, ...
        path = os.path.abspath(location.file)
        return f"{path}#{location.key}" if location.key else path
    return label(location)


@paused_gc()
def conversation_rows(
    location: Location,
    options: RowOptions = RowOptions(),  # noqa: B008 - frozen dataclass
    *,
    previous_fingerprint: str | None = None,
) -> Result:
    """Build the rows of one conversation (see the module docstring for the steps).

    The garbage collector is paused meanwhile (`trajkit.gc_pause`): building rows creates tens
    of thousands of objects without reference cycles, and the collector's passes over them cost
    about half the time otherwise. Reference counting still frees everything.
    """
    source = location_label(location)
    try:
        if is_location(location) or isinstance(location, ShapeRef):  # any shape, V0 too
            return _v1_rows(location, source, options, previous_fingerprint)  # type: ignore[arg-type]
        return _v1_rows(Path(location), source, options, previous_fingerprint)
    except InputError as exc:
        return Skipped(source, str(exc))


# -- loading -------------------------------------------------------------------------------


def _v1_rows(path: Path, source: str, options: RowOptions, previous: str | None) -> Result:
    from trajkit.store import open_conversation
    from trajkit.store.reader import parse_event_bytes
    from trajkit.validate.verdict import Verdict, conversation_errors, invalid_reason

    conv = open_conversation(path)
    files: Sequence[EventFile] | None = None  # the reader's listing, when needed
    fingerprint: str | None = getattr(conv, "fingerprint", None)  # trajkit.shapes: from bytes
    if fingerprint is not None and fingerprint == previous:
        return Unchanged(source, fingerprint)
    if fingerprint is None and (previous is not None or is_remote(path)):
        files = conv.event_files()
        fingerprint = _fingerprint_files([conv.base_state_path, *(f.path for f in files)])
        if fingerprint == previous:
            return Unchanged(source, fingerprint)
    # the check validate and convert make too, any shape; a folder on disk is scanned once,
    # for the verdict and for the rows
    scanned: list[ScannedFile] | None = None
    if isinstance(path, Path) and path.is_dir():
        verdict = Verdict(path)
        scanned = []
        for one in verdict.files():
            verdict.add(one)
            scanned.append(one)
        errors = verdict.errors()
    else:
        errors = conversation_errors(path)
    if errors and not options.keep_invalid:
        return Skipped(source, invalid_reason(errors))
    state_json, state = conv.read_base_state()
    status, model = (state.execution_status, state.agent.llm.model) if state else (None, None)
    if reason := options.filters.state_reason(status, model):
        return Filtered(source, reason)
    has_events = getattr(conv, "has_events_dir", None) or conv.events_dir.is_dir()
    if not has_events and state is not None and state.leaf_event_id:
        raise InputError(
            conv.events_dir, "", "missing events/ folder (base_state.json names events)"
        )
    events: list[tuple[int, Event, str | bytes]] = []
    paths: list[Path] = []
    reads: list[tuple[bytes, Event | None]] | None = None
    if not errors and scanned is not None and _same_files(files, scanned):
        # Valid: the scan read every event file of the folder's listing in order (a file it
        # could not read is an error), so its files are the reader's (same names, same order):
        # `events/` is not listed a second time, and the fingerprint is made from the `fstat`s
        # of the scan (the same sizes and times `os.stat` gives), saving one `stat` per file.
        if files is None:
            files = [EventFile(s.index, s.event_id, s.path) for s in scanned]  # type: ignore[arg-type]
        reads = [(s.raw, s.event) for s in scanned]
        if fingerprint is None:
            stats = (f"{s.name}:{s.stat.st_size}:{s.stat.st_mtime_ns}\n" for s in scanned if s.stat)
            fingerprint = _fingerprint_files([conv.base_state_path], "".join(stats))
        conv.upgrades.update(rule for s in scanned for rule in s.upgrades)
    if files is None:
        files = conv.event_files()
    if fingerprint is None:
        fingerprint = _fingerprint_files([conv.base_state_path, *(f.path for f in files)])
    for f, (raw, event) in zip(
        files, reads or ((f.read_bytes(), None) for f in files), strict=True
    ):
        if not raw or raw.isspace():  # as `not raw.strip()`, without copying the file
            continue  # the SDK skips empty files when it iterates (named in branch errors)
        if event is None:
            event = parse_event_bytes(f.path, raw, conv.upgrades)
        events.append((f.index, event, raw))  # parsed, so valid UTF-8: kept as bytes
        paths.append(f.path)
    shape = path.shape if isinstance(path, ShapeRef) else None
    origin = getattr(conv, "origin", "v1")  # `v0 <container>`: a V0 trajectory, migrated
    source_format = origin.replace(" ", ":") if origin != "v1" else f"v1:{shape}" if shape else "v1"
    loaded = Loaded(conv.id, source_format, state_json, state, events, paths, files)
    loaded.record = getattr(conv, "record", None)
    conv_path = Path(path.label) if isinstance(path, ShapeRef) else path
    result = _finish(loaded, source, fingerprint, options, conv_path=conv_path)
    if isinstance(result, ConversationRows) and not isinstance(path, ShapeRef):
        _add_server_meta(path, result, options)
    if errors and isinstance(result, ConversationRows):  # kept with --keep-invalid
        result.conversation["problems"] = [*errors, *result.conversation["problems"]]
    return result


def _same_files(files: Sequence[EventFile] | None, scanned: list[ScannedFile]) -> bool:
    """True when the scan read exactly `files` (the reader's listing, when made), in order."""
    return files is None or [f.path.name for f in files] == [f.name for f in scanned]


def _fingerprint_files(paths: Sequence[Path], stats: str = "") -> str:
    """Hash of names, sizes and mtimes of `paths`, then of `stats` (lines made the same way)."""
    h = hashlib.blake2b(digest_size=16)
    for p in paths:  # size and mtime on disk; size and ETag in storage (from the listing)
        tag = version_tag(p)
        h.update(f"{p.name}:{'-' if tag is None else tag}\n".encode())
    if stats:
        h.update(stats.encode())
    return h.hexdigest()


# -- rows ----------------------------------------------------------------------------------


def _finish(
    loaded: Loaded, source: str, fingerprint: str, options: RowOptions, *, conv_path: Path | None
) -> Result:
    from trajkit.events import ActionEvent

    timestamps = [parse_timestamp(e.timestamp) for _, e, _ in loaded.events]
    created = next((t for t in timestamps if t is not None), None)
    tools_used = {e.tool_name for _, e, _ in loaded.events if isinstance(e, ActionEvent)}
    reason = options.filters.event_reason(created, tools_used)
    if reason:
        return Filtered(source, reason)
    redactor = None
    if options.redact:
        values = secret_values(
            loaded.state_json, secret_key=options.secret_key, extra=options.extra_secrets
        )
        redactor = Redactor(values)
    event_columns, dirty = _event_columns(loaded, timestamps, redactor)
    conversation = conversation_row(loaded, source, options.conversion, timestamps, conv_path)
    reason = _training_filter(conversation, options)
    if reason:
        return Filtered(source, reason)
    if redactor is not None:
        conversation = _redact_conversation(conversation, redactor, dirty)
        conversation["n_redactions"] = redactor.count
    profile_rows = _profile_rows(loaded, conversation, options)  # its columns come redacted
    if redactor is not None and dirty:
        profile_rows = map(redactor.value, profile_rows)
    conversion = conversation["conversion"]
    conversion = conversion.encode() if isinstance(conversion, str) else conversion
    content = hashlib.blake2b(conversion, digest_size=16).hexdigest()
    return ConversationRows(
        loaded.conversation_id,
        source,
        fingerprint,
        conversation,
        event_columns,
        redactor.count if redactor else 0,
        profile_rows,
        content,
    )


def _training_filter(row: dict[str, Any], options: RowOptions) -> str | None:
    if options.resolved_only and row["resolved"] is not True:
        return "not resolved (--resolved-only)"
    if row["n_llm_calls"] < options.min_steps:
        return f"{row['n_llm_calls']} LLM calls, fewer than --min-steps {options.min_steps}"
    return None


def _profile_rows(
    loaded: Loaded, conversation: dict[str, Any], options: RowOptions
) -> Iterable[dict[str, Any]]:
    from trajkit.export.profiles import rl_rows, sft_rows

    if options.profile == "analysis":
        return ()
    build = sft_rows if options.profile == "sft" else rl_rows
    # Lazy (see `profile_rows`), holding only what it needs: not the event files' bytes, not
    # the conversation row's messages.
    small = {k: conversation[k] for k in ("conversation_id", "model", *BENCHMARK_FIELDS)}
    events: list[tuple[int, Event, str | bytes]] = [(i, e, b"") for i, e, _ in loaded.events]
    return build(dataclasses.replace(loaded, events=events), small, options.conversion)


def _add_server_meta(path: Path, result: ConversationRows, options: RowOptions) -> None:
    """Title, tags, model and cost of an agent server's `meta.json` (`trajkit.shapes`)."""
    from trajkit.shapes.agent_server import read_server_meta

    row = result.conversation
    try:
        meta = read_server_meta(path)
    except InputError as exc:
        row["problems"] = [*row["problems"], str(exc)]
        return
    if meta is None:
        return
    redactor = Redactor(set()) if options.redact else None  # API-key-looking text is masked
    title = meta.title or row["title"]
    row["title"] = redactor.text(title) if redactor and title else title
    if meta.tags:
        row["tags"] = tag_pairs(
            {k: redactor.text(v) if redactor else v for k, v in meta.tags.items()}
        )
        for key, value in benchmark_fields(None, meta.tags).items():
            row[key] = row[key] if value is None else redactor.text(value) if redactor else value
    row["model"] = row["model"] or meta.model
    if row["accumulated_cost"] is None:
        row["accumulated_cost"] = meta.cost


def _redact_conversation(row: dict[str, Any], redactor: Redactor, dirty: bool) -> dict[str, Any]:
    if dirty:
        return {k: redactor.value(v) for k, v in row.items()}
    # No event held a secret: only the fields that come from base_state.json need a look.
    for key in (
        "model",
        "agent_kind",
        "execution_status",
        "source_path",
        "model_patch",
        "test_result",
    ):
        value = row.get(key)
        if isinstance(value, str):
            row[key] = redactor.text(value)
    return row


def _event_columns(
    loaded: Loaded, timestamps: list[datetime | None], redactor: Redactor | None
) -> tuple[dict[str, list[Any]], bool]:
    """The event rows by column (see `ConversationRows`); True when one held a secret.

    Also fills `loaded.llm_messages` (each LLM-convertible event's message, built once).
    """
    from trajkit.events import LLMConvertibleEvent

    messages = loaded.llm_messages
    n = len(loaded.events)
    index: list[int] = []
    event_id: list[str | None] = []
    parent_id: list[str | None] = []
    kind: list[str] = []
    source: list[str | None] = []
    tool_name: list[str | None] = []
    tool_call_id: list[str | None] = []
    llm_response_id: list[str | None] = []
    action_kind: list[str | None] = []
    observation_kind: list[str | None] = []
    errors: list[bool] = []
    llm_text: list[str | None] = []
    tool_arguments: list[str | None] = []
    event_json: list[str | bytes] = []
    for i, event, text in loaded.events:
        get = event.__dict__.get
        index.append(i)
        event_id.append(event.id or None)
        parent_id.append(event.parent_id)
        kind.append(event.kind)
        source.append(event.source or None)
        tool_name.append(_str(get("tool_name")))
        tool_call_id.append(_str(get("tool_call_id")))
        llm_response_id.append(_str(get("llm_response_id")))
        action_kind.append(getattr(get("action"), "kind", None))
        observation_kind.append(getattr(get("observation"), "kind", None))
        errors.append(is_failed_step(event))
        if isinstance(event, LLMConvertibleEvent):
            message = messages[id(event)] = event.to_llm_message()  # reused for `messages`
            llm_text.append(message.text)
        else:
            llm_text.append(None)
        tool_arguments.append(getattr(get("tool_call"), "arguments", None))
        event_json.append(text)
    columns: dict[str, list[Any]] = {
        "conversation_id": [loaded.conversation_id] * n,
        "index": index,
        "event_id": event_id,
        "parent_id": parent_id,
        "kind": kind,
        "source": source,
        "timestamp": list(timestamps),
        "tool_name": tool_name,
        "tool_call_id": tool_call_id,
        "llm_response_id": llm_response_id,
        "action_kind": action_kind,
        "observation_kind": observation_kind,
        "is_error": errors,
        "llm_text": llm_text,
        "tool_arguments": tool_arguments,
        "event_json": event_json,
    }
    if redactor is None:
        return columns, False
    flags = redactor.dirty(event_json)
    dirty = False
    for row, flagged in enumerate(flags):
        if flagged:
            dirty = True
            for values in columns.values():
                value = values[row]
                if isinstance(value, str | bytes):
                    values[row] = redactor.value(value)
    return columns, dirty


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
