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

import contextlib
import dataclasses
import hashlib
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast

from trajkit.errors import InputError
from trajkit.export.event_rows import EventRows
from trajkit.export.redaction import Redactor, secret_values
from trajkit.export.summary import Loaded, conversation_row, tag_pairs
from trajkit.filters import ConversationFilters
from trajkit.gc_pause import paused_gc
from trajkit.shapes.eval_output import BENCHMARK_FIELDS, benchmark_fields
from trajkit.shapes.memory import ShapeRef
from trajkit.store.location import Location as Folder
from trajkit.store.location import is_location, is_remote, label, version_tag
from trajkit.store.reader import EventFile, ListedFiles

if TYPE_CHECKING:
    import pyarrow as pa

    from trajkit.convert.options import ConversionOptions
    from trajkit.events import BaseState, Event
    from trajkit.store.scan import Listing
    from trajkit.validate.verdict import Verdict

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
    `EVENTS_SCHEMA` order), which is how Arrow takes them; `events` gives them as dicts; a
    long conversation's come as record batches instead (`event_batches`). JSON
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
    n_events: int = 0
    """Event rows."""
    event_batches: Iterator[pa.RecordBatch] | None = None
    """A long conversation's event rows (then `event_columns` is empty): record batches read
    back one at a time from the file they were spooled to as they were built
    (`trajkit.export.event_rows`)."""

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
    # for the verdict and for the rows (built as the scan reads, let go of if not wanted)
    verdict = Verdict(path) if isinstance(path, Path) and path.is_dir() else None
    state_json, state, state_error = _base_state(conv, verdict)
    rows = _new_rows(conv.id, state_json, state, options, keep_all=False)
    names: list[str] = []  # the file of each event fed to `rows` (a `Path` made if named)
    fed = False
    stats: Any = None
    if verdict is not None:
        stats = _fingerprint_hash([conv.base_state_path])
        fed = _scan_rows(verdict, rows, names, stats)
        errors = verdict.errors()
    else:
        errors = conversation_errors(path)
    try:
        if errors and not options.keep_invalid:
            return Skipped(source, invalid_reason(errors))
        if state_error is not None:
            raise state_error
        status, model = (state.execution_status, state.agent.llm.model) if state else (None, None)
        if reason := options.filters.state_reason(status, model):
            return Filtered(source, reason)
        has_events = getattr(conv, "has_events_dir", None) or conv.events_dir.is_dir()
        if not has_events and state is not None and state.leaf_event_id:
            raise InputError(
                conv.events_dir, "", "missing events/ folder (base_state.json names events)"
            )
        listing = verdict.listing if verdict is not None else None
        scanned = not errors and listing is not None and fed and _same_files(files, listing)
        if files is None and listing is not None:
            files = _listed(conv, listing)  # the scan's: `events/` is not listed again
        if scanned and rows.complete:
            # Valid: the scan read every event file of the folder's listing in order (a file
            # it could not read is an error), so its files are the reader's (same names, same
            # order): `events/` is not listed a second time, and the fingerprint is made from
            # the `fstat`s of the scan (the sizes and times `os.stat` gives), one `stat` less
            # per file.
            fingerprint = fingerprint or stats.hexdigest()
        else:  # read the listing's files (again), with every event if the view needs them
            rows.close()
            rows = _new_rows(conv.id, state_json, state, options, keep_all=True)
            files = files if files is not None else conv.event_files()
            fingerprint = fingerprint or _fingerprint_files(
                [conv.base_state_path, *(f.path for f in files)]
            )
            names = _read_rows(files, rows, conv.upgrades)
    except BaseException:
        rows.close()
        raise
    assert files is not None and fingerprint is not None
    shape = path.shape if isinstance(path, ShapeRef) else None
    origin = getattr(conv, "origin", "v1")  # `v0 <container>`: a V0 trajectory, migrated
    source_format = origin.replace(" ", ":") if origin != "v1" else f"v1:{shape}" if shape else "v1"
    paths = _EventPaths(conv.events_dir, names)
    loaded = Loaded(conv.id, source_format, state_json, state, rows.events, paths, files)
    loaded.record = getattr(conv, "record", None)
    loaded.llm_messages = rows.messages
    if not rows.keep_all:  # only the events the view may show: the view from the entries
        loaded.entries, loaded.kept = rows.view.entries, rows.view.kept
    conv_path = Path(path.label) if isinstance(path, ShapeRef) else path
    try:
        result = _finish(loaded, rows, source, fingerprint, options, conv_path=conv_path)
    except BaseException:
        rows.close()
        raise
    if not isinstance(result, ConversationRows):
        rows.close()
    if isinstance(result, ConversationRows) and not isinstance(path, ShapeRef):
        _add_server_meta(path, result, options)
    if errors and isinstance(result, ConversationRows):  # kept with --keep-invalid
        result.conversation["problems"] = [*errors, *result.conversation["problems"]]
    return result


def _base_state(
    conv: Any, verdict: Verdict | None
) -> tuple[dict[str, Any] | None, BaseState | None, InputError | None]:
    """`base_state.json`'s object and state, or the error reading it (raised later, where the
    rows need it: masking starts with the first rows). A file the verdict read and found sound
    is not read again: its object is the reader's (upgraded the same way).
    """
    from trajkit.events.state import parse_base_state

    data = verdict.base_state if verdict is not None else None
    try:
        if data is not None:
            with contextlib.suppress(ValueError):  # (never seen: the strict model took it)
                return data, parse_base_state(data), None
        state_json, state = conv.read_base_state()
    except InputError as exc:
        return None, None, exc
    return state_json, state, None


def _scan_rows(verdict: Verdict, rows: EventRows, names: list[str], stats: Any) -> bool:
    """Hand each file of the verdict's scan to it and its event to `rows`; True when every
    non-empty file gave an event (else the rows are incomplete: validate says why).
    """
    from trajkit.store.reader import parse_event_bytes

    upgrades: Counter[str] = Counter()  # (counted by the verdict: only the parse needs it)
    lines: list[str] = []  # the fingerprint's, from the scan's `fstat`s
    fed = True
    for one in verdict.files():
        verdict.add(one)
        st = one.stat
        if st is not None:
            lines.append(f"{one.name}:{st.st_size}:{st.st_mtime_ns}\n")
        raw = one.raw
        if not fed or not raw or raw.isspace():  # as `not raw.strip()`, without a copy
            continue  # the SDK skips empty files when it iterates (named in branch errors)
        event = one.event
        try:  # the scan leaves some kinds (unknown ones) unparsed
            event = event or parse_event_bytes(one.path, raw, upgrades)
        except InputError:
            event = None
        if event is None or one.index is None:
            fed = False  # unreadable: validate says why
            continue
        rows.add(one.index, event, raw)  # parsed, so valid UTF-8: kept as bytes
        names.append(one.name)
    stats.update("".join(lines).encode())
    return fed


def _listed(conv: Any, listing: Listing) -> Sequence[EventFile]:
    """The reader's event files of `listing` (the scan's), each made when asked for."""
    linked = os.path.islink(conv.events_dir)
    files = ListedFiles(listing.entries, conv.events_dir, conv.path, linked, listing.not_files)
    return cast("Sequence[EventFile]", files)  # (indexed and iterated, never sliced)


class _EventPaths(Sequence[Path]):
    """The path of each event of the rows, made only when an error names one: the names are
    the listing's strings, so no `Path` is kept per event (issue 31).
    """

    def __init__(self, folder: Path, names: list[str]) -> None:
        self._folder = folder
        self._names = names

    def __len__(self) -> int:
        return len(self._names)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self._folder / name for name in self._names[i]]
        return self._folder / self._names[i]


def _same_files(files: Sequence[EventFile] | None, listing: Listing) -> bool:
    """True when the scan read exactly `files` (the reader's listing, when made), in order."""
    return files is None or [f.path.name for f in files] == [e[1] for e in listing.entries]


def _fingerprint_files(paths: Sequence[Path]) -> str:
    """Hash of names, sizes and mtimes of `paths`."""
    digest: str = _fingerprint_hash(paths).hexdigest()
    return digest


def _fingerprint_hash(paths: Sequence[Path]) -> Any:
    """`_fingerprint_files`'s hash, open for more lines made the same way (the scan's `fstat`s)."""
    h = hashlib.blake2b(digest_size=16)
    for p in paths:  # size and mtime on disk; size and ETag in storage (from the listing)
        tag = version_tag(p)
        h.update(f"{p.name}:{'-' if tag is None else tag}\n".encode())
    return h


def _new_rows(
    conversation_id: str,
    state_json: dict[str, Any] | None,
    state: BaseState | None,
    options: RowOptions,
    *,
    keep_all: bool,
) -> EventRows:
    """The rows builder of one conversation: masking with its secrets, keeping what is needed."""
    redactor = None
    if options.redact:
        values = secret_values(
            state_json, secret_key=options.secret_key, extra=options.extra_secrets
        )
        redactor = Redactor(values)
    keep_all = keep_all or options.view == "full"
    leaf = state.leaf_event_id if state is not None else None
    rows = EventRows(conversation_id, redactor, keep_all=keep_all, leaf=leaf)
    rows.logprobs = {} if options.profile == "rl" else None
    return rows


def _read_rows(files: Sequence[EventFile], rows: EventRows, upgrades: Counter[str]) -> list[str]:
    """Read and parse `files` into `rows`; returns the names of the events' files (empty
    files skipped).
    """
    from trajkit.store.reader import parse_event_bytes

    names = []
    for f in files:
        raw = f.read_bytes()
        if not raw or raw.isspace():  # as `not raw.strip()`, without copying the file
            continue  # the SDK skips empty files when it iterates (named in branch errors)
        rows.add(f.index, parse_event_bytes(f.path, raw, upgrades), raw)
        names.append(f.path.name)
    return names


# -- rows ----------------------------------------------------------------------------------


def _finish(
    loaded: Loaded,
    rows: EventRows,
    source: str,
    fingerprint: str,
    options: RowOptions,
    *,
    conv_path: Path | None,
) -> Result:
    tally = rows.tally
    reason = options.filters.event_reason(tally.created_at, tally.tools_used)
    if reason:
        return Filtered(source, reason)
    conversation = conversation_row(loaded, source, options.conversion, tally, conv_path)
    reason = _training_filter(conversation, options)
    if reason:
        return Filtered(source, reason)
    events = rows.finish()  # the last rows masked: `dirty` is known
    redactor, dirty = rows.redactor, rows.dirty
    if redactor is not None:
        conversation = _redact_conversation(conversation, redactor, dirty)
        conversation["n_redactions"] = redactor.count
    profile_rows = _profile_rows(loaded, rows, conversation, options)  # columns come redacted
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
        events if isinstance(events, dict) else {},
        redactor.count if redactor else 0,
        profile_rows,
        content,
        n_events=tally.n_events,
        event_batches=None if isinstance(events, dict) else events,
    )


def _training_filter(row: dict[str, Any], options: RowOptions) -> str | None:
    if options.resolved_only and row["resolved"] is not True:
        return "not resolved (--resolved-only)"
    if row["n_llm_calls"] < options.min_steps:
        return f"{row['n_llm_calls']} LLM calls, fewer than --min-steps {options.min_steps}"
    return None


def _profile_rows(
    loaded: Loaded, rows: EventRows, conversation: dict[str, Any], options: RowOptions
) -> Iterable[dict[str, Any]]:
    from trajkit.export.profiles import rl_rows, sft_rows

    if options.profile == "analysis":
        return ()
    # Lazy (see `profile_rows`), holding only what it needs: not the event files' bytes, not
    # the conversation row's messages; without every event in memory, the events are read
    # again one at a time (`ViewTracker` keeps what the view needs).
    small = {k: conversation[k] for k in ("conversation_id", "model", *BENCHMARK_FIELDS)}
    part = dataclasses.replace(loaded, events=[], entries=None, kept={}, llm_messages={})
    events = [e for _, e, _ in rows.events] if rows.keep_all else _read_again(loaded.files)
    if options.profile == "sft":
        return sft_rows(events, part, small, options.conversion, keep_all=rows.keep_all)
    return rl_rows(
        events, part, small, options.conversion, keep_all=rows.keep_all, logprobs=rows.logprobs
    )


def _read_again(files: Sequence[EventFile]) -> Iterator[Event]:
    """The events of `files`, read and parsed one at a time (empty files skipped)."""
    from trajkit.store.reader import parse_event_bytes

    upgrades: Counter[str] = Counter()
    for f in files:
        raw = f.read_bytes()
        if raw and not raw.isspace():
            yield parse_event_bytes(f.path, raw, upgrades)


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
