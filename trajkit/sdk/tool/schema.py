"""`Action` and `Observation`: the bases of a custom tool's arguments and result.

Both are persisted with ``kind`` = the class name, written after the fields as the SDK writes
it; the toolkit reads them back as ``UnknownAction``/``UnknownObservation``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import ConfigDict, SerializerFunctionWrapHandler, model_serializer

from trajkit.events import Action as _PayloadAction
from trajkit.events import Observation as _PayloadObservation
from trajkit.events import TextContent
from trajkit.events.payloads.base import ERROR_HEADER

__all__ = ["Action", "Observation"]

_CONFIG = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


def _kind_last(self: Any, handler: SerializerFunctionWrapHandler) -> Any:
    """The fields, then ``kind`` = the class name (a serializer both bases share)."""
    data = handler(self)
    if isinstance(data, dict):
        data.pop("kind", None)
        data["kind"] = type(self).__name__
    return data


class Action(_PayloadAction):
    """Base of a custom tool's action (the SDK's ``Action``): its fields are the arguments."""

    model_config = _CONFIG
    _with_kind = model_serializer(mode="wrap")(_kind_last)


class Observation(_PayloadObservation):
    """Base of a custom tool's observation (the SDK's ``Observation``).

    Override ``to_llm_content`` (a property, as in the SDK, or a method) to choose what the LLM
    reads; by default it is the error header (when ``is_error``) and ``content``.
    """

    model_config = _CONFIG
    _with_kind = model_serializer(mode="wrap")(_kind_last)
    ERROR_MESSAGE_HEADER: ClassVar[str] = ERROR_HEADER
    """The first item of an error's LLM content, as in the SDK."""

    @classmethod
    def from_text(cls, text: str, *, is_error: bool = False, **fields: Any) -> Any:
        """An observation whose content is one text item."""
        return cls(content=[TextContent(text=text)], is_error=is_error, **fields)
