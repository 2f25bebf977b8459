"""Read any event: one discriminated union over every kind, and ``parse_event``.

The discriminator is a function of the raw object, so a ``kind`` outside the union becomes
``UnknownEvent`` (keeping the raw JSON) instead of an error. Adding a kind means: the class, an
entry in ``EVENT_CLASSES`` (which ``AnyEvent`` is built from), and a regenerated schema.

Readers of whole conversations go through ``parse_current_dump``: the kind named by the dump's
last key, read by that kind's ``KindReader`` straight from the file's bytes. A function
discriminator (what ``AnyEvent`` needs for unknown kinds) makes pydantic-core turn the whole
JSON document into Python objects just to call it; a key lookup parses the bytes once (issue
20), and ``current_validator`` does the same for the payload unions inside an event (issue 31).
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel, TypeAdapter
from pydantic_core import SchemaValidator

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
from trajkit.events.payloads import (
    UNKNOWN_TAG,
    KindDiscriminator,
    kind_discriminator,
    kind_union,
)
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


def current_validator(cls: type[BaseModel]) -> SchemaValidator:
    """``cls``'s own validator narrowed to what current SDKs write, for the readers' fast path.

    Built from ``cls``'s core schema, with no Python call per object: a payload union
    (``kind_union``) is chosen by its ``kind`` key among the known kinds (a function
    discriminator makes pydantic-core turn the whole payload into Python objects to call it,
    a quarter of an observation's cost), and ``legacy_input`` validators are left out. It
    accepts a subset of what the model accepts, giving the same event; what it refuses (an
    unknown payload kind, an older SDK's key) goes to the model itself (``KindReader``).
    """
    schema = _current_shapes(cls.__pydantic_core_schema__)
    try:  # not prebuilt: the nested models' own validators (with their Python calls) not reused
        return SchemaValidator(schema, _use_prebuilt=False)
    except TypeError:  # a pydantic-core before that switch: the model's own, no fast path
        return cls.__pydantic_validator__  # type: ignore[return-value]


def _current_shapes(node: Any) -> Any:
    if isinstance(node, list):
        return [_current_shapes(item) for item in node]
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    if kind == "function-before" and getattr(node["function"].get("function"), "legacy_input", 0):
        return _current_shapes(node["schema"])
    out = {key: _current_shapes(value) for key, value in node.items()}
    if kind == "tagged-union" and isinstance(node["discriminator"], KindDiscriminator):
        out["discriminator"] = "kind"
        out["choices"] = {tag: c for tag, c in out["choices"].items() if tag != UNKNOWN_TAG}
    return out


MODEL_REFUSALS = (ValueError, TypeError, KeyError, AttributeError, IndexError)
"""What a model raises for a file it cannot read: pydantic's ValidationError (a ValueError),
or a validator tripping over an odd shape (the readers' fast paths return None for either, and
the caller's slower path names the problem: `validate.diagnose`)."""


class KindReader:
    """Reads one known kind from JSON: ``current_validator`` first, the model's own validator
    when that refuses (so the result, and the error raised, are the model's).
    """

    __slots__ = ("_current", "_model")

    def __init__(self, cls: type[Event]) -> None:
        self._current = current_validator(cls).validate_json
        self._model = cls.__pydantic_validator__.validate_json

    def __call__(self, raw: str | bytes | bytearray, strict: bool = False) -> Event:
        try:
            return self._current(raw, strict=strict)  # type: ignore[no-any-return]
        except MODEL_REFUSALS:
            return self._model(raw, strict=strict)  # type: ignore[no-any-return]


KIND_READERS: dict[str, KindReader] = {k: KindReader(c) for k, c in EVENT_CLASSES.items()}
"""The reader of each known event kind, by name."""


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
            reader = KIND_READERS.get(kind) if kind is not None else None
            if reader is not None:
                # Fast path: pydantic-core parses and validates in one pass, straight from the
                # bytes (the class's own rules: what `model_validate_json` calls).
                return reader(data)
        obj = orjson.loads(data)
        if not isinstance(obj, dict):
            raise ValueError(f"an event must be a JSON object, got {type(obj).__name__}")
    if _event_kind(obj) == UNKNOWN_TAG:
        return UnknownEvent.from_raw(obj)
    event: Event = _KNOWN_ADAPTER.validate_python(obj)
    return event


_READERS_BY_BYTES = {k.encode(): r for k, r in KIND_READERS.items()}


def parse_current_dump(raw: bytes, *, strict: bool = False) -> Event | None:
    """The event in a compact dump of the current SDK (``kind`` last), parsed in one pass.

    None when ``raw`` is not such a dump (``kind`` elsewhere, or escaped), or when the known
    kinds' models refuse it (an unknown kind, an older SDK's shape, invalid content): the
    caller then decodes it and decides (upgrades, ``UnknownEvent``, the error to report).
    ``strict``: JSON Schema's type rules (``"0"`` is no integer), as ``validate`` reads.
    """
    span = kind_span(raw)
    reader = None if span is None else _READERS_BY_BYTES.get(raw[span[0] : span[1]])
    if reader is None:
        return None
    try:
        return reader(raw, strict)
    except MODEL_REFUSALS:
        return None


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
