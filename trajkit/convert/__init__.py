"""Persisted events -> the messages an LLM saw, as Chat Completions or Responses payloads.

Modules: ``view`` (active branch, condensed view, full projection), ``chat`` and ``responses`` (one per wire format), ``tools`` (tool
definitions from the ``SystemPromptEvent``), ``adjust`` (dangling calls, reasoning, system,
images), ``conversation`` (``convert_conversation``), ``corpus`` (``convert_corpus``),
``stream`` (``write_conversation``: one folder validated and converted in one read, written as
produced, memory flat in the conversation's length).
``options`` holds the two typed option records, ``ConversionOptions`` (what to keep) and
``FormatOptions`` (how messages are written, from the LLM config). ``events_to_messages`` lives in ``trajkit.events.llm_messages`` (it needs only the event
classes) and is re-exported here.

The serializers are pure and import neither litellm nor the runtime; ``trajkit.sdk`` formats its
requests with them. ``convert_conversation`` and ``convert_corpus`` load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trajkit.convert.adjust import DanglingCall, find_dangling, fix_dangling
from trajkit.convert.chat import messages_to_chat
from trajkit.convert.options import ConversionOptions, FormatOptions
from trajkit.convert.responses import messages_to_responses, uses_responses_api
from trajkit.convert.tools import tools_to_chat, tools_to_responses
from trajkit.convert.view import active_branch, condensed_view, full_view
from trajkit.events.llm_messages import events_to_messages

if TYPE_CHECKING:
    from trajkit.convert.conversation import convert_conversation, convert_events
    from trajkit.convert.corpus import CorpusItem, convert_corpus

__all__ = [
    "ConversionOptions",
    "CorpusItem",
    "DanglingCall",
    "FormatOptions",
    "active_branch",
    "condensed_view",
    "convert_conversation",
    "convert_corpus",
    "convert_events",
    "events_to_messages",
    "find_dangling",
    "fix_dangling",
    "full_view",
    "messages_to_chat",
    "messages_to_responses",
    "tools_to_chat",
    "tools_to_responses",
    "uses_responses_api",
]

_LAZY = {
    "convert_conversation": "trajkit.convert.conversation",
    "convert_events": "trajkit.convert.conversation",
    "convert_corpus": "trajkit.convert.corpus",
    "CorpusItem": "trajkit.convert.corpus",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'trajkit.convert' has no attribute {name!r}")
