"""One conversation's event rows and what its conversation row needs, built one event at a time.

`EventRows.add(index, event, text)` takes the events in order, once each. Per event it
- appends the event's row to column lists; every `CUT_BYTES` of event JSON the rows so far
  are masked (`redaction`) and, once more than `SPOOL_BYTES` of them were cut, made into an
  Arrow record batch written to a spool file (Arrow IPC, a temp file), so a long conversation's
  rows are never all in memory: `finish()` hands back either the columns (a short
  conversation: the writer batches them with the next conversations', as before) or the spool
  read back one batch at a time;
- counts what the conversation row says of every event (`summary.Tally`);
- notes the event's `ViewEntry` (a few ids and flags) and keeps the event itself only while the
  model's view can still show it: an LLM event a condensation forgot is let go (as the SDK's
  own view forgets it), so the condensed view is built at the end from the entries and the
  events kept (`convert.conversation.prepare_messages(entries=)`). `keep_all` keeps every
  event instead (the `full` view, input read in memory); a branching log or a newer SDK's kind
  keeps or needs every event too (`complete`). The training profiles read the events again
  through their own `ViewTracker` (`profiles`).

Memory is then the spool's current batch, the entries (~300 bytes an event) and the view,
whatever the conversation's length.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from datetime import datetime
from typing import IO, TYPE_CHECKING, Any

from trajkit.events import LLMConvertibleEvent
from trajkit.events.outcome import is_failed_step
from trajkit.export.summary import Tally
from trajkit.export.view_tracker import ViewTracker
from trajkit.filters import parse_timestamp

if TYPE_CHECKING:
    import pyarrow as pa

    from trajkit.events import Event
    from trajkit.export.redaction import Redactor

__all__ = ["CUT_BYTES", "SPOOL_BYTES", "EventRows"]

CUT_BYTES = 4 * 2**20
"""Event JSON (bytes) of the rows masked and, when spooling, made into one record batch."""
SPOOL_BYTES = 16 * 2**20
"""Event JSON (bytes) of one conversation held as Python rows at most; beyond, rows are spooled."""

_COLUMNS = (
    "conversation_id", "index", "event_id", "parent_id", "kind", "source", "timestamp",
    "tool_name", "tool_call_id", "llm_response_id", "action_kind", "observation_kind",
    "is_error", "llm_text", "tool_arguments", "event_json",
)  # fmt: skip


class EventRows:
    """The rows of one conversation's events as they come (module docstring)."""

    def __init__(
        self, conversation_id: str, redactor: Redactor | None, *, keep_all: bool, leaf: str | None
    ) -> None:
        self.conversation_id = conversation_id
        self.redactor = redactor
        self.keep_all = keep_all
        self.tally = Tally()
        self.columns: dict[str, list[Any]] = {name: [] for name in _COLUMNS}
        self.dirty = False
        """An event row held a secret (masked)."""
        self.view = ViewTracker(keep_all=keep_all, leaf=leaf)
        self.events: list[tuple[int, Event, str | bytes]] = []
        """Every event (`keep_all`), as `summary.Loaded.events` holds them (no text)."""
        self.messages = self.view.messages
        self.logprobs: dict[str, list[float]] | None = None
        """When a dict: filled with the completion logs' log-probabilities (`profiles`)."""
        self._cut_size = 0
        self._held_size = 0
        self._masked = 0
        self._spool: IO[bytes] | None = None
        self._writer: Any = None
        self._schema: pa.Schema | None = None

    @property
    def complete(self) -> bool:
        """False when the view needs every event (a newer SDK's kind) and not all were kept:
        read the conversation again with `keep_all`.
        """
        return self.view.complete

    @property
    def n_events(self) -> int:
        return self.tally.n_events

    def add(self, index: int, event: Event, text: str | bytes) -> None:
        """Take the next event (`text`: its stored JSON)."""
        timestamp = parse_timestamp(event.timestamp)
        self.tally.add(event, timestamp)
        self._row(index, event, text, timestamp)
        if self.keep_all:
            self.events.append((index, event, b""))
        self.view.add(event)
        if self.logprobs is not None and event.kind == "LLMCompletionLogEvent":
            from trajkit.export.profiles import completion_logprobs  # profiles import this

            for rid, values in completion_logprobs([event]).items():
                self.logprobs.setdefault(rid, values)

    def _row(self, index: int, event: Event, text: str | bytes, timestamp: datetime | None) -> None:
        c = self.columns
        get = event.__dict__.get
        c["conversation_id"].append(self.conversation_id)
        c["index"].append(index)
        c["event_id"].append(event.id or None)
        c["parent_id"].append(event.parent_id)
        c["kind"].append(event.kind)
        c["source"].append(event.source or None)
        c["timestamp"].append(timestamp)
        c["tool_name"].append(_str(get("tool_name")))
        c["tool_call_id"].append(_str(get("tool_call_id")))
        c["llm_response_id"].append(_str(get("llm_response_id")))
        c["action_kind"].append(getattr(get("action"), "kind", None))
        c["observation_kind"].append(getattr(get("observation"), "kind", None))
        c["is_error"].append(is_failed_step(event))
        if isinstance(event, LLMConvertibleEvent):
            message = self.view.messages[id(event)] = event.to_llm_message()  # for `messages`
            c["llm_text"].append(message.text)
        else:
            c["llm_text"].append(None)
        c["tool_arguments"].append(getattr(get("tool_call"), "arguments", None))
        c["event_json"].append(text)
        self._cut_size += len(text)
        if self._cut_size >= CUT_BYTES:
            self._cut()

    def _cut(self) -> None:
        """Mask the rows not masked yet; spool the held rows once they are too many."""
        self._mask()
        self._held_size += self._cut_size
        self._cut_size = 0
        if self._held_size >= SPOOL_BYTES or self._spool is not None:
            self._spool_rows()

    def _mask(self) -> None:
        """Mask the rows added since the last call (`redaction`: only the flagged ones)."""
        redactor = self.redactor
        start, self._masked = self._masked, len(self.columns["index"])
        if redactor is None or start >= self._masked:
            return
        flags = redactor.dirty(self.columns["event_json"][start:])
        for row, flagged in enumerate(flags, start):
            if flagged:
                self.dirty = True
                for values in self.columns.values():
                    value = values[row]
                    if isinstance(value, str | bytes):
                        values[row] = redactor.value(value)

    def _spool_rows(self) -> None:
        import pyarrow as pa

        from trajkit.export.arrow_schema import EVENTS_SCHEMA, columns_to_batch

        if not self.columns["index"]:
            return
        if self._writer is None:
            self._spool = tempfile.TemporaryFile()  # noqa: SIM115 - closed by finish/close
            self._writer = pa.ipc.new_stream(self._spool, EVENTS_SCHEMA)
        self._writer.write_batch(columns_to_batch(self.columns, EVENTS_SCHEMA))
        for values in self.columns.values():
            values.clear()
        self._masked = 0

    def finish(self) -> dict[str, list[Any]] | Iterator[pa.RecordBatch]:
        """Mask the last rows; the columns (short) or the spooled batches, one at a time."""
        self._mask()
        if self._spool is None:
            return self.columns
        self._spool_rows()
        self._writer.close()
        spool, self._spool, self._writer = self._spool, None, None
        return _read_spool(spool)

    def close(self) -> None:
        """Drop the spool (rows not wanted after all)."""
        if self._spool is not None:
            self._spool.close()
            self._spool = None


def _read_spool(spool: IO[bytes]) -> Iterator[pa.RecordBatch]:
    import pyarrow as pa

    spool.seek(0)
    try:
        yield from pa.ipc.open_stream(spool)
    finally:
        spool.close()


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
