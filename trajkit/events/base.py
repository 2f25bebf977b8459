"""The base ``Event``, ``LLMConvertibleEvent`` and the opaque ``UnknownEvent``.

Every concrete event declares ``kind`` (its class name, as the SDK writes it) as its last field,
so dumps put it after the regular fields, as the SDK does. Reading an abstract class
(``Event.model_validate_json(text)``) dispatches on ``kind`` and returns the concrete subclass.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import ConfigDict, Field, PrivateAttr, field_validator

from trajkit.events._model import StrictModel

if TYPE_CHECKING:
    from trajkit.events.message import Message

Source = Literal["agent", "user", "environment", "hook"]
ROOT_PARENT = "__root__"
"""``parent_id`` value marking an explicit root (since 1.31.0)."""


def _new_id() -> str:
    return str(uuid.uuid4())


def _now() -> str:
    # The SDK writes naive local time, no time zone.
    return datetime.now().isoformat()


class Event(StrictModel):
    """Base of every persisted event."""

    abstract: ClassVar[bool] = True

    id: str = Field(default_factory=_new_id)
    """Event id, a dashed uuid4 by default. Never ``__root__``."""
    timestamp: str = Field(default_factory=_now)
    """Naive local ISO-8601 time (no time zone)."""
    source: Source
    """Who produced the event."""
    parent_id: str | None = None
    """Parent in the conversation tree (since 1.31.0); absent means the previous event."""

    if TYPE_CHECKING:
        kind: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "abstract" not in cls.__dict__:
            cls.abstract = False

    @field_validator("id")
    @classmethod
    def _not_root(cls, v: str) -> str:
        if v == ROOT_PARENT:
            raise ValueError("event id '__root__' is reserved")
        return v

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **kwargs: Any) -> Any:
        """Validate JSON text; on an abstract class, return the subclass named by ``kind``."""
        if cls.abstract:
            return _checked(cls, dispatch.parse_event(json_data))
        return super().model_validate_json(json_data, **kwargs)

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Any:
        """Validate a dict; on an abstract class, return the subclass named by ``kind``."""
        if cls.abstract and isinstance(obj, dict):
            return _checked(cls, dispatch.parse_event(obj))
        return super().model_validate(obj, **kwargs)

    def to_json(self) -> str:
        """Compact JSON exactly as the SDK writes it (``exclude_none``)."""
        return self.model_dump_json(exclude_none=True)


class _Dispatch:
    """The rules the abstract classes here hand over to the modules built on them.

    ``Event.model_validate`` needs the union of every kind (``parse.py``) and
    ``LLMConvertibleEvent.events_to_messages`` the message rules (``llm_messages.py``); both
    modules import this one, so this one does not import them back: each fills its slot when it
    is imported, and importing ``trajkit.events`` (which any ``trajkit.events.*`` import does
    first) imports both.
    """

    parse_event: Callable[[Any], Event]
    events_to_messages: Callable[[Sequence[LLMConvertibleEvent]], list[Message]]


dispatch = _Dispatch()


def _checked(cls: type[Event], event: Event) -> Event:
    if not isinstance(event, cls):
        raise TypeError(f"expected a {cls.__name__}, got kind {event.kind!r}")
    return event


class LLMConvertibleEvent(Event):
    """An event that becomes an LLM message."""

    abstract: ClassVar[bool] = True

    def to_llm_message(self) -> Message:
        """The message this event contributes to an LLM request."""
        raise NotImplementedError

    @staticmethod
    def events_to_messages(events: Sequence[LLMConvertibleEvent]) -> list[Message]:
        """Messages for ``events``: batches actions of one response, merges user turns."""
        return dispatch.events_to_messages(events)


class UnknownEvent(Event):
    """An event whose ``kind`` trajkit does not know; kept whole, never dropped.

    ``raw`` holds the JSON object as read, and dumping gives it back unchanged.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    id: str = ""
    """Event id, when present."""
    timestamp: str = ""
    """Timestamp, when present."""
    source: str = ""  # type: ignore[assignment]
    """Source, when present."""
    kind: str
    """The unknown kind, as written."""
    _raw: dict[str, Any] = PrivateAttr(default_factory=dict)

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> UnknownEvent:
        """Keep ``raw`` whole; expose id, timestamp, source, parent_id and kind when usable."""
        known = {
            k: raw[k]
            for k in ("id", "timestamp", "source", "parent_id", "kind")
            if isinstance(raw.get(k), str)
        }
        known.setdefault("kind", str(raw.get("kind")))
        ev = cls.model_construct(**known)
        ev._raw = raw
        return ev

    @property
    def raw(self) -> dict[str, Any]:
        """The event's JSON object as read."""
        return self._raw

    def to_json(self) -> str:
        """The raw JSON object, re-encoded compactly."""
        import json

        return json.dumps(self._raw, ensure_ascii=False, separators=(",", ":"))
