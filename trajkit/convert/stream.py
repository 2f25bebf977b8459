"""Convert one stored conversation straight into a JSON document, without holding it.

``write_conversation`` gives the bytes ``trajkit convert`` writes for one folder (the document
of ``convert_conversation`` through ``indented_json``: ``json.dumps(indent=2)``'s layout), with
memory that does not grow with the conversation:

1. One scan of the folder (``trajkit.store.scan``) reads every event file once, each handed to
   the verdict ``convert`` shares with ``validate`` and ``export`` (``validate.verdict``); the
   event the scan parses is kept only long enough to note a ``ViewEntry`` (ids, kind flags, call and response ids), the call ids
   its message makes and answers, and the tools of a ``SystemPromptEvent``.
2. The entries give the active branch, the condensed (or full) view and the events the view
   properties drop, with the same code as the in-memory path (``convert.view``); the call ids
   give the answered/called sets of the dangling-call rule (``convert.adjust``).
3. A second pass reads only the events of the view, in order, and feeds them one at a time
   to the message rules the in-memory path runs as ``list()`` (``MessageBuilder``,
   ``DanglingFixer``, ``message_options``, ``ChatWriter`` / ``ResponsesWriter``); each message
   is written as soon as the rules hand it on.

The first pass also guesses the view and converts it at once (``_Speculation``); when the
guess holds there is no second pass. It writes into ``out`` itself when ``out`` is a regular
file written at its end and the target is chat (truncated back to where it was if the verdict
or the exact view says otherwise), else into a temporary spool copied onto ``out`` at the end:
either way no byte stays written unless the verdict lets the conversation through.

Peak memory is the entries plus one message at a time (about 250 bytes an event), against
~10 KB an event for holding the parsed conversation. The case the streaming path does not take
(a conversation validate rejects but ``keep_invalid`` converts, a newer SDK's
``SystemPromptUpdateEvent``, an empty call id) is converted in memory, so the bytes are always
the in-memory path's (``tests/convert/test_stream.py`` checks every fixture).
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import stat
import tempfile
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson

from trajkit.convert.adjust import DanglingCall, DanglingFixer, message_options
from trajkit.convert.chat import ChatWriter
from trajkit.convert.conversation import (
    branch_input_error,
    conversion_problems,
    convert_conversation,
    llm_config,
    resolve_target,
)
from trajkit.convert.options import ConversionOptions, FormatOptions, Target, check_choice
from trajkit.convert.responses import ResponsesWriter, join_instructions, message_to_responses
from trajkit.convert.targets import OTHER_TARGETS, write_target
from trajkit.convert.tools import tools_to_chat, tools_to_responses
from trajkit.convert.view import (
    ACTION,
    CONDENSATION,
    LLM,
    RESULT,
    SUMMARY,
    UNKNOWN,
    BranchError,
    ViewEntry,
    branch_entries,
    condensed_entries,
    entry_of,
    full_entries,
    summary_event,
)
from trajkit.errors import InputError, TrajkitError
from trajkit.events import Event, Message, MessageEvent, SystemPromptEvent
from trajkit.events.base import ROOT_PARENT
from trajkit.events.llm_messages import MessageBuilder
from trajkit.gc_pause import paused_gc
from trajkit.store import StoredConversation, open_conversation
from trajkit.store.reader import scanned_event

if TYPE_CHECKING:
    from trajkit.events.state import BaseState
    from trajkit.store.scan import Listing, ScannedFile

__all__ = ["Written", "indented_json", "jsonl_line", "write_conversation"]

_DEFAULT = ConversionOptions()
_INDENT = orjson.OPT_INDENT_2
_UPDATE = "SystemPromptUpdateEvent"  # convert.newer: applied by the in-memory path


@dataclass(frozen=True)
class Written:
    """What ``write_conversation`` has to say besides the document."""

    errors: list[str] = field(default_factory=list)
    """Why validate rejects the conversation (converted anyway: ``keep_invalid``)."""
    problems: list[str] = field(default_factory=list)
    """The conversion's warnings, as ``convert_conversation``'s ``problems``."""


def jsonl_line(result: dict[str, Any]) -> bytes:
    """``convert_corpus``'s line for ``convert_conversation``'s result: compact, the document's
    keys only, ``conversation_id`` first (no newline).
    """
    keys = ("conversation_id", "messages", "instructions", "input", "tools")
    return orjson.dumps({k: result[k] for k in keys if k in result})


def indented_json(document: Any) -> bytes:
    """`json.dumps(document, indent=2, ensure_ascii=False)` + newline, as UTF-8, made by orjson.

    `indent` makes the standard library fall back to its pure-Python encoder (0.35 s and
    +360 MB at 10k events); orjson writes the same bytes about 20x faster. The one known
    difference is a float written with a negative exponent (`1e-7`, json: `1e-07`), the same
    number. An integer beyond 64 bits (orjson refuses it) goes through json.
    """
    try:
        return orjson.dumps(document, option=_INDENT | orjson.OPT_APPEND_NEWLINE)
    except TypeError:
        import json

        return json.dumps(document, indent=2, ensure_ascii=False).encode() + b"\n"


@paused_gc()
def write_conversation(
    path_or_stored: str | os.PathLike[str] | StoredConversation,
    out: IO[bytes],
    *,
    to: Target = "chat",
    options: ConversionOptions = _DEFAULT,
    keep_invalid: bool = False,
    line: bool = False,
) -> Written:
    """Write the converted document of one conversation folder to ``out`` (see the module).

    The document is ``convert_conversation``'s without ``conversation_id`` and ``problems``
    (those come back in ``Written``), indented as ``indented_json`` writes it; with ``line``,
    it is ``convert_corpus``'s JSONL line instead (compact, ``conversation_id`` first, no
    newline).

    Raises:
        TrajkitError: validate rejects the conversation (its first error), unless
            ``keep_invalid``; nothing is left written then (a regular file ``out``
            is truncated back to where it was).
        InputError: an unreadable event, or parent links that do not reach the leaf.
    """
    from trajkit.validate.verdict import Verdict, invalid_reason

    if to in OTHER_TARGETS:  # ATIF, Anthropic: their own writers
        errors, problems = write_target(
            to, path_or_stored, out, options=options, keep_invalid=keep_invalid, line=line
        )
        return Written(errors, problems)
    check_choice("to", to, ("chat", "responses", "auto"))
    conv = (
        path_or_stored
        if isinstance(path_or_stored, StoredConversation)
        else open_conversation(path_or_stored)
    )
    try:
        state: BaseState | None = conv.base_state()
        readable = True
    except (TrajkitError, ValueError):  # validate says what is wrong with it
        state, readable = None, False
    layout = _Layout(conv.id if line else None)
    start = _end_of_file(out) if readable and resolve_target(to, state) == "chat" else None
    with _first_pass_sink(out, start) as spool:
        index = _Index(_speculation(state, spool, to, options, layout) if readable else None)
        verdict = Verdict(conv.path)
        index.listing = verdict.listing
        for scanned in verdict.files():
            verdict.add(scanned)
            index.add(scanned)
        errors = verdict.errors()
        if errors and not keep_invalid:
            raise TrajkitError(invalid_reason(errors))
        if errors or index.in_memory:
            _rewind(out, start)
            result = convert_conversation(conv, to=to, options=options)
            problems = result.pop("problems")
            out.write(layout.document(result))
            return Written(errors, problems)
        if index.error is not None:
            raise index.error
        if not readable:
            state = conv.base_state()  # raises what the in-memory path raises
        return _write(conv, state, index, out, to, options, layout, start)


@contextlib.contextmanager
def _first_pass_sink(out: IO[bytes], start: int | None) -> Iterator[IO[bytes]]:
    """Where the first pass writes: ``out`` itself from ``start`` (taken back if the block
    raises), or a temporary spool when ``start`` is None.
    """
    if start is None:
        with tempfile.TemporaryFile(buffering=1 << 20) as spool:  # big items: few syscalls
            yield spool
        return
    try:
        yield out
    except BaseException:
        with contextlib.suppress(OSError, ValueError):
            _rewind(out, start)  # nothing written
        raise


def _end_of_file(out: IO[bytes]) -> int | None:
    """Where ``out`` ends when it is a regular file written at its end: the first pass then
    writes the document there at once, not into a spool (``_rewind`` takes it back when the
    verdict or the view says otherwise, so nothing is left written but the document).
    """
    try:
        out.flush()
        size = os.fstat(out.fileno())
        at = out.tell()
        seekable = out.seekable()
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        return None  # a pipe, a terminal, a stream without a file (e.g. masking on the way)
    return at if seekable and stat.S_ISREG(size.st_mode) and at == size.st_size else None


def _rewind(out: IO[bytes], start: int | None) -> None:
    """``out`` as it was at ``start`` (what the first pass wrote there taken back)."""
    if start is not None:
        out.seek(start)
        out.truncate()


def _write(
    conv: StoredConversation,
    state: BaseState | None,
    index: _Index,
    out: IO[bytes],
    to: Target,
    options: ConversionOptions,
    layout: _Layout,
    start: int | None,
) -> Written:
    conv.upgrades.update(index.upgrades)
    notes = [*getattr(conv, "notes", ()), *conv.upgrade_notes()]
    try:
        branch = branch_entries(
            index.entries,
            leaf_event_id=state.leaf_event_id if state else None,
            head_is_empty=bool(state and state.head_is_empty),
        )
    except BranchError as exc:
        files = conv.event_files()
        raise branch_input_error(
            exc, index.entries, base_state_path=conv.base_state_path, files=files
        ) from None
    dropped: list[tuple[str, ViewEntry]] = []
    if options.view == "condensed":
        view = condensed_entries(branch, dropped=dropped)
    else:
        view = full_entries(branch)
    tools = next((index.tools[e.pos] for e in branch if e.pos in index.tools), [])
    target = resolve_target(to, state)
    answered = {a for e in view if (a := index.answer_of(e)) is not None}
    called = {c for e in view for c in index.calls_of(e)}
    spec = index.speculation
    if spec is not None and spec.finish(view, answered, called):
        found = spec.converter.finish()
        if spec.spool is not out:  # else the first pass wrote the document there
            if target != "chat":  # the chat head is the spool's first bytes
                out.write(layout.head(target, spec.converter.instructions))
            _copy(spec.spool, out)
    else:  # the second pass: read the events of the view again
        _rewind(out, start)
        formatting = options.format_for(llm_config(state))
        converter = _Converter(out, options, formatting, target, layout)
        converter.answered.update(answered)  # the sets the dangling rule holds
        converter.called.update(called)
        loaded: dict[int, Event] = {}
        instructions = None
        if target == "responses" and options.system:  # instructions come first
            for e in view:
                if e.pos in index.system:
                    loaded[e.pos] = event = _load(e, index)
                    text = message_to_responses(event.to_llm_message(), [])  # type: ignore[attr-defined]
                    if text:
                        instructions = join_instructions(instructions, text)
        out.write(layout.head(target, instructions))
        for e in view:
            kept = loaded.pop(e.pos, None) if e.pos >= 0 else None
            converter.add(kept if kept is not None else _load(e, index))
        found = converter.finish()
    listed = tools_to_chat(tools) if target == "chat" else tools_to_responses(tools)
    items = spec.converter.items if spec and spec.used else converter.items
    out.write(layout.tail(items, listed))
    unknown = {e.kind for e in branch if e.flags & UNKNOWN}
    problems = conversion_problems(dropped, found, unknown, tools)
    return Written([], [*notes, *problems])


_WRAP_HEAD = len(b'{\n  "": [')  # orjson.dumps({"": [...]}, option=_INDENT) around the elements
_WRAP_TAIL = len(b"\n  ]\n}")


@dataclass(frozen=True)
class _Layout:
    """How the document is written: indented (``trajkit convert FOLDER``), or one compact line
    led by ``conversation_id`` (``convert_corpus``) when that id is given.
    """

    conversation_id: str | None = None

    def document(self, result: dict[str, Any]) -> bytes:
        """A whole document from ``convert_conversation``'s result (the in-memory path)."""
        if self.conversation_id is None:
            return indented_json({k: v for k, v in result.items() if k != "conversation_id"})
        return jsonl_line(result)

    def head(self, target: str, instructions: str | None) -> bytes:
        if self.conversation_id is None:
            if target == "chat":
                return b'{\n  "messages": ['
            return b'{\n  "instructions": ' + orjson.dumps(instructions) + b',\n  "input": ['
        head = b'{"conversation_id":' + orjson.dumps(self.conversation_id)
        if target == "chat":
            return head + b',"messages":['
        return head + b',"instructions":' + orjson.dumps(instructions) + b',"input":['

    def items(self, items: list[dict[str, Any]]) -> bytes | memoryview:
        """Consecutive elements of the array, with the separators between them (the one
        before the first is the caller's: ``b","``).

        One ``orjson.dumps`` for the lot: wrapped in a one-key object, the indented elements
        come out at the depth the document holds them, so the bytes between the brackets are
        the elements as ``json.dumps(indent=2)`` lays them out there (a view of them: no copy).
        """
        try:
            if self.conversation_id is not None:
                return memoryview(orjson.dumps(items))[1:-1]
            return memoryview(orjson.dumps({"": items}, option=_INDENT))[_WRAP_HEAD:-_WRAP_TAIL]
        except TypeError:  # an integer beyond 64 bits somewhere: element by element
            return b"".join(self.item(item, not k) for k, item in enumerate(items))

    def item(self, item: dict[str, Any], first: bool) -> bytes:
        """One element of the array, with its separator (the slow path of ``items``)."""
        if self.conversation_id is not None:
            try:
                data = orjson.dumps(item)
            except TypeError:  # an integer beyond 64 bits
                import json

                data = json.dumps(item, separators=(",", ":"), ensure_ascii=False).encode()
            return data if first else b"," + data
        data = indented_json(item)[:-1]  # without its final newline
        # JSON strings hold no raw newline: every b"\n" is layout, indented one level deeper
        return (b"\n    " if first else b",\n    ") + data.replace(b"\n", b"\n    ")

    def tail(self, items: _Items, tools: list[Any]) -> bytes:
        if self.conversation_id is not None:
            return b'],"tools":' + orjson.dumps(tools) + b"}"
        listed = orjson.dumps(tools, option=_INDENT).replace(b"\n", b"\n  ")
        closing = b"\n  ]" if items.count else b"]"
        return closing + b',\n  "tools": ' + listed + b"\n}\n"


def _copy(spool: IO[bytes], out: IO[bytes]) -> None:
    """The spooled items onto ``out`` (``sendfile``: the kernel copies, no Python buffers)."""
    spool.flush()
    size = spool.tell()
    out.flush()
    try:
        out_fd = out.fileno()
        sent = 0
        while sent < size:
            n = os.sendfile(out_fd, spool.fileno(), sent, size - sent)
            if n == 0:
                break
            sent += n
        if sent == size:
            return
        spool.seek(sent)
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        spool.seek(0)
    shutil.copyfileobj(spool, out, 1 << 20)


def _speculation(
    state: BaseState | None,
    spool: IO[bytes],
    to: Target,
    options: ConversionOptions,
    layout: _Layout,
) -> _Speculation | None:
    """The single-pass conversion (None when there is nothing to convert)."""
    if state is not None and state.head_is_empty:
        return None
    formatting = options.format_for(llm_config(state))
    target = resolve_target(to, state)
    if target == "chat":  # the head says nothing the pass finds out: written first
        spool.write(layout.head(target, None))
    converter = _Converter(spool, options, formatting, target, layout)
    leaf = state.leaf_event_id if state else None
    return _Speculation(converter, spool, condensed=options.view == "condensed", leaf=leaf)


class _Index:
    """The first pass: one entry per event file (as ``iter_events(skip_empty=True)`` reads it)."""

    def __init__(self, speculation: _Speculation | None = None) -> None:
        self.entries: list[ViewEntry] = []
        self.upgrades: Counter[str] = Counter()
        self.tools: dict[int, list[Any]] = {}
        """Position of each ``SystemPromptEvent`` -> its tools."""
        self.calls: dict[int, list[str]] = {}
        """Position -> the call ids of its (assistant) message, for an action only when they
        are not its ``tool_call_id`` (``calls_of``: no list kept per action)."""
        self.answers: dict[int, str] = {}
        """Position -> the call id its tool message answers, but a result's (``answer_of``)."""
        self.system: set[int] = set()
        """Positions whose message is a system message."""
        self.in_memory = False
        """A case only the in-memory path converts (see the module docstring)."""
        self.error: InputError | None = None
        """What the reader would have raised on a file (the first such file)."""
        self.speculation = speculation
        self.folder = Path()
        """The scanned files' folder (``events/``)."""
        self.listing: Listing | None = None
        """The listing the scanned files come from (the verdict's)."""
        self.files = array("q")
        """Each entry's file, as its position in ``listing`` (no name kept per event)."""
        self._scanned = 0

    def calls_of(self, entry: ViewEntry) -> list[str] | tuple[str, ...]:
        """The call ids the message of ``entry`` makes (an action: its own)."""
        found = self.calls.get(entry.pos)
        if found is None and entry.flags & ACTION and entry.tool_call_id is not None:
            return (entry.tool_call_id,)
        return () if found is None else found

    def answer_of(self, entry: ViewEntry) -> str | None:
        """The call id the message of ``entry`` answers (a result: its own)."""
        if entry.flags & RESULT:
            return entry.tool_call_id
        return self.answers.get(entry.pos)

    def add(self, scanned: ScannedFile) -> None:
        """One file of the listing's scan, in order (every file: positions count them)."""
        listed = self._scanned
        self._scanned += 1
        raw = scanned.raw
        if not raw or raw.isspace() or self.error is not None:
            return  # empty: skipped as the SDK does (and an error of validate's)
        try:
            event = scanned_event(scanned, self.upgrades)
        except InputError as exc:
            self.error = exc
            return
        self.folder = scanned.folder
        self.files.append(listed)
        self._note(event)

    def _note(self, event: Event) -> None:
        pos = len(self.entries)
        entry = entry_of(event, pos)
        if pos and entry.parent_id == (prev := self.entries[-1].id):
            entry.parent_id = prev  # one string for both (100k events: 8 MB)
        self.entries.append(entry)
        flags = entry.flags
        calls: list[str] | tuple[()] = ()
        answer = None
        if flags & ACTION:
            call: str = event.tool_call.id  # type: ignore[attr-defined]
            same = entry.tool_call_id
            if same is None or call != same:
                self.calls[pos] = [call]
            calls = [call]
        elif flags & RESULT:  # a tool message (a result's call id is never None)
            answer = entry.tool_call_id
        elif flags & LLM:
            if isinstance(event, SystemPromptEvent):
                self.tools[pos] = list(event.tools)
                self.system.add(pos)
            elif isinstance(event, MessageEvent):
                m = event.llm_message
                if m.role == "system":
                    self.system.add(pos)
                elif m.role == "tool" and m.tool_call_id is not None:
                    answer = self.answers[pos] = m.tool_call_id
                elif m.role == "assistant" and m.tool_calls:
                    calls = self.calls[pos] = [tc.id for tc in m.tool_calls]
        elif flags & UNKNOWN and event.kind == _UPDATE:
            self.in_memory = True
        if answer == "" or "" in calls:
            self.in_memory = True
        speculation = self.speculation
        if speculation is not None and speculation.active:
            speculation.add(entry, event, calls, answer)


class _Speculation:
    """The view guessed while the first pass reads, converted at once into a spool file.

    The guess: a linear branch with no condensation, every LLM-convertible event in it, the
    first result of each call; an event making calls is held (with what follows) until every
    call is answered, so what reaches the converter is what the view properties keep in a
    well-formed log. ``finish`` checks the guess against the exact view of the index; when
    it holds, the held tail is converted as the exact view says and the spool is the document.
    Anything else (a branch, a condensation, a call answered too late) stops the guess, and
    the second pass converts from the index.
    """

    HELD_LIMIT = 2_000
    """Events held at most while calls wait for results; beyond, two passes are cheaper."""

    def __init__(
        self, converter: _Converter, spool: IO[bytes], *, condensed: bool, leaf: str | None
    ) -> None:
        self.converter = converter
        self.spool = spool
        self.active = True
        self.used = False
        self._condensed = condensed
        self._leaf = leaf
        self._done = False
        self._prev: str | None = None
        self._released = array("q")  # positions: 8 bytes each, not an int object
        self._held: list[tuple[ViewEntry, Event]] = []
        self._open: set[str] = set()
        self._results: set[str | None] = set()
        self._answered = converter.answered
        self._called = converter.called

    def add(
        self, entry: ViewEntry, event: Event, calls: list[str] | tuple[()], answer: str | None
    ) -> None:
        if self._done:
            return
        parent = entry.parent_id
        if parent is not None and parent != (self._prev if entry.pos else ROOT_PARENT):
            self._stop()  # not the linear case (or a root that names no root)
            return
        self._prev = entry.id
        self._done = entry.id == self._leaf
        flags = entry.flags
        if flags & CONDENSATION and self._condensed:
            self._stop()
            return
        if not flags & LLM or (flags & SUMMARY and not self._condensed):
            return
        if flags & RESULT and self._condensed:
            if entry.tool_call_id in self._results:
                return  # observation uniqueness: the first result wins
            self._results.add(entry.tool_call_id)
        if calls:
            self._called.update(calls)
        if answer is not None:
            self._answered.add(answer)
            self._open.discard(answer)
        waiting = [c for c in calls if c not in self._answered] if calls else calls
        if self._held or waiting:
            self._held.append((entry, event))
            self._open.update(waiting)
            if not self._open:
                self._release()
            elif len(self._held) > self.HELD_LIMIT:
                self._stop()
            return
        self._released.append(entry.pos)
        self.converter.add(event)

    def _release(self) -> None:
        for entry, event in self._held:
            self._released.append(entry.pos)
            self.converter.add(event)
        self._held = []

    def _stop(self) -> None:
        self.active = False
        self._held = []
        self._released = array("q")

    def finish(self, view: list[ViewEntry], answered: set[str], called: set[str]) -> bool:
        """Whether the guess was the exact view; if so the held tail is converted too."""
        if not self.active:
            return False
        n = len(self._released)
        if len(view) < n or any(e.pos != p for e, p in zip(view, self._released, strict=False)):
            return False
        held = {entry.pos: event for entry, event in self._held}
        tail = view[n:]
        if any(e.pos not in held for e in tail):
            return False
        if any(  # a call judged unanswered, or a result judged unasked, while reading
            d.tool_call_id in (called if d.orphan else answered) for d in self.converter.found
        ):
            return False
        self.converter.answered.clear()
        self.converter.answered.update(answered)
        self.converter.called.clear()
        self.converter.called.update(called)
        for e in tail:
            self.converter.add(held[e.pos])
        self.used = True
        return True


class _Converter:
    """Events -> document items on ``sink``, one event at a time, through the message rules:
    ``MessageBuilder`` (``events_to_messages``), ``DanglingFixer`` (``fix_dangling``), the
    other options (``message_options``), the wire format's writer. ``answered``/``called``
    are the call ids the dangling rule sees (filled by the caller).
    """

    def __init__(
        self,
        sink: IO[bytes],
        options: ConversionOptions,
        formatting: FormatOptions,
        target: str,
        layout: _Layout,
    ) -> None:
        self.items = _Items(sink, layout)
        self.answered: set[str] = set()
        self.called: set[str] = set()
        self._writer: ChatWriter | ResponsesWriter
        if target == "chat":
            self._writer = ChatWriter(formatting, self.items.add)
        else:
            self._writer = ResponsesWriter(formatting.vision, self.items.add)
        emit = self._writer.add
        adjust = message_options(options)
        if adjust is not None:

            def emit(m: Message) -> None:
                adjusted = adjust(m)
                if adjusted is not None:
                    self._writer.add(adjusted)

        self._fixer = DanglingFixer(options.dangling, self.answered, self.called, emit)
        self._builder = MessageBuilder(self._fixer.add)
        # one event at a time (the view's events, every one LLM-convertible)
        self.add: Callable[[Event], None] = self._builder.add  # type: ignore[assignment]

    @property
    def found(self) -> list[DanglingCall]:
        return self._fixer.found

    @property
    def instructions(self) -> str | None:
        return getattr(self._writer, "instructions", None)

    def finish(self) -> list[DanglingCall]:
        self._builder.finish()
        self._fixer.finish()
        self._writer.finish()
        self.items.flush()
        return self._fixer.found


def _load(entry: ViewEntry, index: _Index) -> Event:
    from trajkit.store.reader import parse_event_bytes, read_file_bytes

    if entry.pos < 0:
        return summary_event(entry)
    assert index.listing is not None
    path = index.folder / index.listing.entries[index.files[entry.pos]][1]
    return parse_event_bytes(path, read_file_bytes(path))  # nodes checked there


class _Items:
    """The array being written: one JSON value per ``add``, laid out by ``layout``, written
    ``CHUNK`` at a time (one serialization and one write for each chunk); ``flush`` writes
    what is pending.
    """

    CHUNK = 64

    def __init__(self, out: IO[bytes], layout: _Layout) -> None:
        self._out = out
        self._layout = layout
        self._pending: list[dict[str, Any]] = []
        self.count = 0

    def add(self, item: dict[str, Any]) -> None:
        pending = self._pending
        pending.append(item)
        if len(pending) >= self.CHUNK:
            self.flush()

    def flush(self) -> None:
        pending = self._pending
        if pending:
            if self.count:
                self._out.write(b",")
            self._out.write(self._layout.items(pending))
            self.count += len(pending)
            pending.clear()
