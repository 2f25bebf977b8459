"""Abstract Action and Observation payloads, and the opaque ones for unknown tools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field

from trajkit.events._model import KeepNullExtras, StrictModel
from trajkit.events.message import Content, ImageContent, TextContent

ERROR_HEADER = "[An error occurred during execution.]\n"


class Action(StrictModel):
    """Base of every tool action payload (the nested ``action`` of an ActionEvent).

    Each concrete class declares ``kind`` last, so it is written after the regular fields.
    """

    if TYPE_CHECKING:
        kind: str


class Observation(StrictModel):
    """Base of every tool observation payload (the nested ``observation``)."""

    content: list[Content] = Field(default_factory=list)
    """Result parts as stored; what the LLM sees unless the kind overrides rendering."""
    is_error: bool = False
    """Whether the tool reported an error."""

    if TYPE_CHECKING:
        kind: str

    def to_llm_content(self) -> list[TextContent | ImageContent]:
        """Default rendering: error header item (when is_error), then ``content`` unchanged."""
        out: list[TextContent | ImageContent] = []
        if self.is_error:
            out.append(TextContent(text=ERROR_HEADER))
        out.extend(self.content)
        return out

    @property
    def text(self) -> str:
        """Concatenated text of ``content``."""
        return "".join(c.text for c in self.content if isinstance(c, TextContent))


class UnknownAction(Action, KeepNullExtras):
    """Action of a tool trajkit does not know (custom tool, newer SDK); keeps every key."""

    model_config = ConfigDict(extra="allow", frozen=True)
    _kind_last = True

    kind: str
    """Payload class name, as written."""


class UnknownObservation(Observation, KeepNullExtras):
    """Observation of a tool trajkit does not know; rendered from its ``content``."""

    model_config = ConfigDict(extra="allow", frozen=True)
    _kind_last = True

    kind: str
    """Payload class name, as written."""

    def extra_fields(self) -> dict[str, Any]:
        """Keys beyond content/is_error/kind."""
        return dict(self.__pydantic_extra__ or {})
