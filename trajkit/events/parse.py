"""Read any event: one discriminated union over every kind, and ``parse_event``.

The discriminator is a function of the raw object, so a ``kind`` outside the union becomes
``UnknownEvent`` (keeping the raw JSON) instead of an error. Adding a kind means: the class, an
entry in ``EVENT_CLASSES`` (which ``AnyEvent`` is built from), and a regenerated schema.

Readers of whole conversations go through ``parse_current_dump``: one TypeAdapter over the known
kinds, discriminated by the ``kind`` key itself, validating straight from the file's bytes.
A function discriminator (what ``AnyEvent`` needs for unknown kinds) makes pydantic-core turn
the whole JSON document into Python objects just to call it; a key discriminator is looked up
in the parsed JSON, so the bytes are parsed once (issue 20: 12-15 us per event instead of
17-18, against 6-7 us for ``orjson.loads`` alone; loaded 2-core machine).
"""

from __future__ import annotations

from typing import Annotated, Any, Union

import orjson
from pydantic import Field, TypeAdapter

from trajkit.events.base import Event, UnknownEvent, dispatch
from trajkit.events.condensation import (
    Condensation,
    CondensationRequest,
    CondensationSummaryEvent,
)
from trajkit.events.conversation import (
    ACPToolCallEvent,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    HookExecutionEvent,
    InterruptEvent,
    LLMCompletionLogEvent,
    MessageEvent,
    PauseEvent,
    ServerErrorEvent,
    StreamingDeltaEvent,
    SystemPromptEvent,
    TokenEvent,
)
from trajkit.events.payloads import UNKNOWN_TAG, kind_discriminator, kind_union
from trajkit.events.tool_events import (
    ActionEvent,
    AgentErrorEvent,
    ObservationEvent,
    UserRejectObservation,
)

EVENT_CLASSES: dict[str, type[Event]] = {
    c.__name__: c
    for c in (
        SystemPromptEvent,
        MessageEvent,
        ActionEvent,
        ObservationEvent,
        UserRejectObservation,
        AgentErrorEvent,
        Condensation,
        CondensationRequest,
        CondensationSummaryEvent,
        PauseEvent,
        InterruptEvent,
        ConversationStateUpdateEvent,
        ConversationErrorEvent,
        ServerErrorEvent,
        HookExecutionEvent,
        LLMCompletionLogEvent,
        TokenEvent,
        StreamingDeltaEvent,
        ACPToolCallEvent,
    )
}
"""Every known event kind, by name."""

_event_kind = kind_discriminator(EVENT_CLASSES)

AnyEvent: Any = kind_union(EVENT_CLASSES, UnknownEvent)
"""Any event, chosen by ``kind``."""

_KNOWN_ADAPTER: TypeAdapter[Any] = TypeAdapter(AnyEvent)
_VALIDATORS: dict[str, Any] = {k: c.__pydantic_validator__ for k, c in EVENT_CLASSES.items()}


def parse_event(data: str | bytes | bytearray | dict[str, Any]) -> Event:
    """Parse one event (JSON text or a decoded object) into its concrete class.

    An unknown ``kind`` gives an ``UnknownEvent`` that keeps the raw object. Invalid content of a
    known kind raises ``pydantic.ValidationError``; text that is not a JSON object raises
    ``ValueError``.
    """
    if isinstance(data, dict):
        obj = data
    else:
        if isinstance(data, str | bytes | bytearray):
            kind = peek_kind(data)
            validator = _VALIDATORS.get(kind) if kind is not None else None
            if validator is not None:
                # Fast path: pydantic-core parses and validates in one pass, straight from the
                # bytes (the class's own validator: what `model_validate_json` calls).
                return validator.validate_json(data)  # type: ignore[no-any-return]
        obj = orjson.loads(data)
        if not isinstance(obj, dict):
            raise ValueError(f"an event must be a JSON object, got {type(obj).__name__}")
    if _event_kind(obj) == UNKNOWN_TAG:
        return UnknownEvent.from_raw(obj)
    event: Event = _KNOWN_ADAPTER.validate_python(obj)
    return event


_known: Any = Union[tuple(EVENT_CLASSES.values())]  # noqa: UP007 (built from a tuple)
CURRENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(Annotated[_known, Field(discriminator="kind")])
"""The known kinds, chosen by the ``kind`` key (unknown kinds are refused, not kept)."""
_validate_current = CURRENT_ADAPTER.validator.validate_json  # pydantic-core's, no wrapper


def parse_current_dump(raw: bytes) -> Event | None:
    """The event in a compact dump of the current SDK (``kind`` last), parsed in one pass.

    None when ``raw`` is not such a dump (``kind`` elsewhere, or escaped), or when the known
    kinds' models refuse it (an unknown kind, an older SDK's shape, invalid content): the
    caller then decodes it and decides (upgrades, ``UnknownEvent``, the error to report).
    """
    if kind_span(raw) is None:
        return None
    try:
        event: Event = _validate_current(raw)
    except ValueError:  # pydantic's ValidationError included
        return None
    return event


def peek_kind(data: str | bytes | bytearray) -> str | None:
    """The ``kind`` of a compact SDK dump, read from its last key without parsing the whole text.

    None when ``kind`` is not the top-level object's last key or its value holds an escape: the
    caller then lets the full parser decide (the answer is a hint, never trusted alone).
    """
    raw = data[-96:].encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    span = kind_span(raw)
    return None if span is None else raw[span[0] : span[1]].decode("ascii", "replace")


def kind_span(raw: bytes | bytearray) -> tuple[int, int] | None:
    """Where the value of a last top-level ``kind`` key is in ``raw`` (within its last 96 bytes).

    Offsets into ``raw`` itself: no copy of the tail, so the check costs well under a
    microsecond. None when the last key is not ``kind`` or its value holds an escape.
    """
    start = len(raw) - 96
    idx = raw.rfind(b'"kind":"', start if start > 0 else 0)
    if idx < 0:
        return None
    end = raw.find(b'"', idx + 8)
    if end < 0 or raw.find(b"\\", idx + 8, end) >= 0 or raw[end + 1 :].strip() != b"}":
        return None
    return idx + 8, end


def dump_event(event: Event) -> str:
    """Compact JSON as the SDK writes it: ``exclude_none``, fields in SDK order, kind last."""
    return event.to_json()


dispatch.parse_event = parse_event
