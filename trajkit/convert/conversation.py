"""Convert a stored conversation into a request payload: one function per target, one pipeline.

Pipeline: read the events (``store``) -> active branch -> condensed view or full projection
(``view``) -> ``events_to_messages`` -> options (dangling calls, reasoning, system, images;
``adjust``) -> the target's serializer plus the tool definitions of the ``SystemPromptEvent``.

Chat settings come from the conversation's own ``agent.llm`` (``chat_options_from_llm``), so the
messages are the ones that LLM was sent; ``chat_options`` overrides them. One deliberate
difference: images returned by a tool move to a user message after the tool results
(``tool_images="user"``), because OpenAI rejects images in tool messages; pass
``chat_options={"tool_images": "inline"}`` for the SDK's exact bytes. Nothing is written:
the SDK saves full terminal outputs into ``observations/`` while formatting, trajkit only renders
the path it would have used.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from trajkit.convert.adjust import (
    DanglingPolicy,
    drop_reasoning,
    drop_system,
    fix_dangling,
    replace_images,
)
from trajkit.convert.chat import chat_options_from_llm, messages_to_chat
from trajkit.convert.responses import messages_to_responses, uses_responses_api
from trajkit.convert.tools import tools_to_chat, tools_to_responses, unknown_tools
from trajkit.convert.view import BranchError, active_branch, condensed_view, full_view
from trajkit.errors import InputError, UsageError
from trajkit.events import BaseState, Event, Message, SystemPromptEvent, UnknownEvent
from trajkit.events.llm_messages import events_to_messages
from trajkit.store import StoredConversation, open_conversation

__all__ = [
    "TARGETS",
    "VIEWS",
    "Prepared",
    "convert_conversation",
    "convert_events",
    "prepare_messages",
    "resolve_target",
]

Target = Literal["chat", "responses", "auto"]
ViewName = Literal["condensed", "full"]
ImagesMode = Literal["keep", "placeholder"]

_Document = Callable[[list[Message], Sequence[Any], Mapping[str, Any]], dict[str, Any]]


def _chat_document(
    messages: list[Message], tools: Sequence[Any], options: Mapping[str, Any]
) -> dict[str, Any]:
    return {"messages": messages_to_chat(messages, **options), "tools": tools_to_chat(tools)}


def _responses_document(
    messages: list[Message], tools: Sequence[Any], options: Mapping[str, Any]
) -> dict[str, Any]:
    instructions, items = messages_to_responses(messages, vision=options.get("vision", True))
    return {"instructions": instructions, "input": items, "tools": tools_to_responses(tools)}


TARGETS: Mapping[str, _Document] = {"chat": _chat_document, "responses": _responses_document}
"""Wire formats ``convert`` writes: name -> document builder."""

VIEWS: Mapping[str, Callable[[Sequence[Event]], list[Any]]] = {
    "condensed": condensed_view,
    "full": full_view,
}
"""Event selections: what the model saw after condensation, or every LLM-convertible event."""


def _check(name: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise UsageError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")


@dataclass(frozen=True)
class Prepared:
    """Everything a target needs: the final ``Message`` list, tools, chat options, problems."""

    messages: list[Message]
    """Messages after view, batching, merging and the options."""
    tools: list[Any]
    """``SystemPromptEvent.tools`` of the branch (tool definitions, stored order)."""
    chat_options: dict[str, Any]
    """Keyword arguments for ``messages_to_chat``."""
    problems: list[str]
    """One line per thing the caller should know (dangling calls, dropped or unknown events)."""


def prepare_messages(
    events: Sequence[Event],
    *,
    view: ViewName = "condensed",
    state: BaseState | None = None,
    reasoning: bool = True,
    system: bool = True,
    images: ImagesMode = "keep",
    dangling: DanglingPolicy = "drop",
    chat_options: Mapping[str, Any] | None = None,
) -> Prepared:
    """The shared pipeline up to the wire format (``export`` and ``convert`` both use it).

    Raises ``BranchError`` when the parent links do not lead to the leaf.
    """
    _check("view", view, tuple(VIEWS))
    _check("images", images, ("keep", "placeholder"))
    _check("dangling", dangling, ("report", "drop", "synthesize"))
    branch = active_branch(
        events,
        leaf_event_id=state.leaf_event_id if state else None,
        head_is_empty=bool(state and state.head_is_empty),
    )
    dropped: list[tuple[str, Any]] = []
    selected = condensed_view(branch, dropped=dropped) if view == "condensed" else full_view(branch)
    messages, found = fix_dangling(events_to_messages(selected), dangling)
    if not reasoning:
        messages = drop_reasoning(messages)
    if not system:
        messages = drop_system(messages)
    if images == "placeholder":
        messages = replace_images(messages)
    tools = next((list(e.tools) for e in branch if isinstance(e, SystemPromptEvent)), [])
    options = {**chat_options_from_llm(_llm_config(state)), "tool_images": "user"}
    options.update(chat_options or {})
    problems = [f"{e.kind} {e.id} left out of the condensed view ({rule})" for rule, e in dropped]
    problems += [d.describe() for d in found]
    unknown = sorted({e.kind for e in branch if isinstance(e, UnknownEvent)})
    if unknown:
        problems.append(f"events of unknown kind left out: {', '.join(unknown)}")
    problems += [
        f"tool {n!r}: parameter schema unknown, sent as an open object"
        for n in unknown_tools(tools)
    ]
    return Prepared(messages, tools, options, problems)


def convert_events(
    events: Sequence[Event],
    *,
    to: Literal["chat", "responses"] = "chat",
    view: ViewName = "condensed",
    state: BaseState | None = None,
    reasoning: bool = True,
    system: bool = True,
    images: ImagesMode = "keep",
    dangling: DanglingPolicy = "drop",
    chat_options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Convert events already in memory (index order); see ``convert_conversation``.

    Raises ``BranchError`` when the parent links do not lead to the leaf.
    """
    _check("to", to, tuple(TARGETS))
    prepared = prepare_messages(
        events,
        view=view,
        state=state,
        reasoning=reasoning,
        system=system,
        images=images,
        dangling=dangling,
        chat_options=chat_options,
    )
    document = TARGETS[to](prepared.messages, prepared.tools, prepared.chat_options)
    return {**document, "problems": prepared.problems}


def _llm_config(state: BaseState | None) -> dict[str, Any]:
    if state is None:
        return {}
    llm = state.agent.llm
    return llm.model_dump() if hasattr(llm, "model_dump") else dict(llm)


def resolve_target(to: Target, state: BaseState | None) -> Literal["chat", "responses"]:
    """``"auto"`` -> the API this conversation's LLM used (without litellm: name rules)."""
    if to != "auto":
        return to
    llm = _llm_config(state)
    use = uses_responses_api(
        llm.get("model"),
        api_mode=str(llm.get("api_mode") or "auto"),
        capability_overrides=llm.get("capability_overrides"),
        model_canonical_name=llm.get("model_canonical_name"),
    )
    return "responses" if use else "chat"


def convert_conversation(
    path_or_stored: str | os.PathLike[str] | StoredConversation,
    *,
    to: Target = "chat",
    view: ViewName = "condensed",
    reasoning: bool = True,
    system: bool = True,
    images: ImagesMode = "keep",
    dangling: DanglingPolicy = "drop",
    chat_options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The payload an LLM was (or would be) sent for a stored conversation.

    Returns ``{"conversation_id", "messages", "tools", "problems"}`` for chat and
    ``{"conversation_id", "instructions", "input", "tools", "problems"}`` for responses;
    ``problems`` lists dangling tool calls and tools whose schema is unknown, one line each.

    Args:
        path_or_stored: a conversation folder or an opened ``StoredConversation``.
        to: ``"chat"``, ``"responses"``, or ``"auto"`` (the API its LLM uses).
        view: ``"condensed"`` (what the model saw) or ``"full"`` (every LLM-convertible event).
        reasoning: keep reasoning content, thinking blocks and Responses reasoning items.
        system: keep the system message (Responses: ``instructions``).
        images: ``"keep"`` data URLs or replace each by a ``"[image]"`` text ``"placeholder"``.
        dangling: unanswered tool calls are reported and ``"drop"``-ped, answered by a
            ``"synthesize"``-d error, or only reported (``"report"``).
        chat_options: overrides for ``messages_to_chat`` (model, caching, vision, ...).

    Raises:
        InputError: an unreadable or invalid file, or broken parent links (file and pointer).
    """
    conv = (
        path_or_stored
        if isinstance(path_or_stored, StoredConversation)
        else open_conversation(path_or_stored)
    )
    state = conv.base_state()
    events = list(conv.iter_events(skip_empty=True))
    _check("to", to, ("chat", "responses", "auto"))
    try:
        result = convert_events(
            events,
            to=resolve_target(to, state),
            view=view,
            state=state,
            reasoning=reasoning,
            system=system,
            images=images,
            dangling=dangling,
            chat_options=chat_options,
        )
    except BranchError as exc:
        raise _branch_input_error(conv, events, exc) from None
    return {"conversation_id": conv.id, **result}


def _branch_input_error(
    conv: StoredConversation, events: Sequence[Event], exc: BranchError
) -> InputError:
    files = conv.event_files()
    message = str(exc)
    skipped = next((f for f in files if exc.missing and f.event_id == exc.missing), None)
    if skipped is not None:  # the named event's file exists but is empty (skipped on reading)
        message += f" (its file {skipped.path.name} is empty)"
    if exc.index is None:
        return InputError(conv.base_state_path, "/leaf_event_id", message)
    event_id = events[exc.index].id
    path = next((f.path for f in files if f.event_id == event_id), conv.path)
    return InputError(path, "/parent_id", message)
