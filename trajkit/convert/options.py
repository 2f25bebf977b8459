"""The options of a conversion, typed: what to convert (``ConversionOptions``) and how messages
are written on the wire (``FormatOptions``, derived from the conversation's ``agent.llm``).

Both are frozen dataclasses, so they pickle to worker processes, hash, and are checked by mypy
where they are built; ``ConversionOptions`` also checks its choices when built at run time
(a library caller passing a plain string gets a ``UsageError``, not a wrong document).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from trajkit.errors import UsageError

__all__ = [
    "TARGETS",
    "VIEWS",
    "ConversionOptions",
    "DanglingPolicy",
    "FormatOptions",
    "ImagesMode",
    "Target",
    "ToolImages",
    "ViewName",
    "check_choice",
]

Target = Literal["chat", "responses", "auto", "atif", "anthropic", "inspect"]
ViewName = Literal["condensed", "full"]
ImagesMode = Literal["keep", "placeholder"]
DanglingPolicy = Literal["report", "drop", "synthesize"]
ToolImages = Literal["inline", "user"]

TARGETS: tuple[Target, ...] = ("chat", "responses", "auto", "atif", "anthropic", "inspect")
"""Wire formats: Chat Completions, Responses, or the one the conversation's LLM used; then
other ecosystems' formats (`trajkit.convert.targets`; `inspect` is one log for all
conversations: `trajkit.convert.inspect_log`)."""
VIEWS: tuple[ViewName, ...] = ("condensed", "full")
"""Event selections: what the model saw after condensation, or every LLM-convertible event."""


@dataclass(frozen=True)
class FormatOptions:
    """How messages are serialized (``messages_to_chat``; Responses reads ``vision``).

    The defaults are what ``from_llm({})`` gives, and ``tool_images="inline"`` is the SDK's own
    behaviour.
    """

    model: str | None = None
    """The model name; decides the two ``None`` settings below by name rules."""
    caching: bool = False
    """Explicit prompt caching is active (Anthropic models)."""
    vision: bool = True
    """Images are sent."""
    native_tool_calling: bool = True
    """The provider's native tool calling is used."""
    force_string_serializer: bool | None = None
    """Send content as one string (None: from the model name)."""
    send_reasoning_content: bool | None = None
    """Send ``reasoning_content`` back (None: from the model name)."""
    tool_images: ToolImages = "inline"
    """``"inline"`` as the SDK, or ``"user"``: tool-result images move to a user message."""

    @classmethod
    def from_llm(cls, llm: Mapping[str, Any], **changes: Any) -> FormatOptions:
        """The settings of a persisted ``agent.llm`` config, resolved without litellm.

        Caching counts as active only for Claude/Anthropic models (or an explicit
        ``supports_prompt_cache`` override); vision is on unless disabled or overridden off.
        ``changes`` replace fields of the result (as ``dataclasses.replace``).
        """
        model = str(llm.get("model") or "")
        overrides = llm.get("capability_overrides")
        if not isinstance(overrides, Mapping):  # absent, or a hand-edited file with another type
            overrides = {}
        explicit_cache = overrides.get("supports_prompt_cache")
        if not isinstance(explicit_cache, bool):
            explicit_cache = "claude" in model.lower() or model.lower().startswith("anthropic/")
        fss = llm.get("force_string_serializer")
        options = cls(
            model=model or None,
            caching=bool(llm.get("caching_prompt", True)) and explicit_cache,
            vision=not llm.get("disable_vision") and overrides.get("supports_vision") is not False,
            native_tool_calling=bool(llm.get("native_tool_calling", True)),
            force_string_serializer=fss if isinstance(fss, bool) else None,
        )
        return dataclasses.replace(options, **changes) if changes else options


@dataclass(frozen=True)
class ConversionOptions:
    """What a conversion keeps (``convert_conversation``, ``convert_corpus``, ``export``)."""

    view: ViewName = "condensed"
    """``"condensed"`` (what the model saw) or ``"full"`` (every LLM-convertible event)."""
    reasoning: bool = True
    """Keep reasoning content, thinking blocks and Responses reasoning items."""
    system: bool = True
    """Keep the system message (Responses: ``instructions``)."""
    images: ImagesMode = "keep"
    """``"keep"`` data URLs or replace each by a ``"[image]"`` text ``"placeholder"``."""
    dangling: DanglingPolicy = "drop"
    """Unanswered tool calls: ``"drop"``-ped, answered by a ``"synthesize"``-d error, or only
    ``"report"``-ed."""
    send_reasoning_content: bool = False
    """Chat: send ``reasoning_content`` on every assistant message that has one (the SDK sends
    it back only to the models that need it)."""
    formatting: FormatOptions | None = None
    """The wire settings to use; None: the conversation's own ``agent.llm``
    (``FormatOptions.from_llm``) with tool-result images moved to a user message, because
    OpenAI rejects images in tool messages."""

    def __post_init__(self) -> None:
        check_choice("view", self.view, VIEWS)
        check_choice("images", self.images, ("keep", "placeholder"))
        check_choice("dangling", self.dangling, ("report", "drop", "synthesize"))

    def format_for(self, llm: Mapping[str, Any]) -> FormatOptions:
        """The wire settings for a conversation whose ``agent.llm`` config is ``llm``."""
        options = self.formatting or FormatOptions.from_llm(llm, tool_images="user")
        if self.send_reasoning_content:
            options = dataclasses.replace(options, send_reasoning_content=True)
        return options


def check_choice(name: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise UsageError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
