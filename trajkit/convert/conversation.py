"""Convert a stored conversation into a request payload: one function per target, one pipeline.

Pipeline (``prepare_messages``, used by ``convert`` and ``export`` alike): read the events
(``store``) -> active branch -> condensed view or full projection (``view``) ->
``events_to_messages`` -> options (dangling calls, reasoning, system, images; ``adjust``) ->
the target's serializer plus the tool definitions of the ``SystemPromptEvent``.

What to keep is a ``ConversionOptions``; how messages are written is a ``FormatOptions`` taken
from the conversation's own ``agent.llm`` (``FormatOptions.from_llm``), so the messages are the
ones that LLM was sent. One deliberate difference: images returned by a tool move to a user
message after the tool results (``tool_images="user"``), because OpenAI rejects images in tool
messages; pass ``ConversionOptions(formatting=FormatOptions.from_llm(llm))`` for the SDK's exact
bytes. Nothing is written: the SDK saves full terminal outputs into ``observations/`` while
formatting, trajkit only renders the path it would have used.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from trajkit.convert.adjust import DanglingCall, fix_dangling, message_options
from trajkit.convert.chat import messages_to_chat, move_tool_images
from trajkit.convert.newer import apply_newer_kinds
from trajkit.convert.options import ConversionOptions, FormatOptions, Target, check_choice
from trajkit.convert.responses import messages_to_responses, uses_responses_api
from trajkit.convert.targets import OTHER_TARGETS, write_target
from trajkit.convert.tools import tools_to_chat, tools_to_responses, unknown_tools
from trajkit.convert.view import (
    UNKNOWN,
    BranchError,
    ViewEntry,
    branch_entries,
    condensed_entries,
    entry_of,
    full_entries,
    summary_event,
)
from trajkit.errors import InputError
from trajkit.events import (
    BaseState,
    Event,
    LLMConvertibleEvent,
    Message,
    SystemPromptEvent,
)
from trajkit.events.llm_messages import events_to_messages
from trajkit.gc_pause import paused_gc
from trajkit.store import StoredConversation, open_conversation

if TYPE_CHECKING:
    from trajkit.store import EventFile

__all__ = [
    "DOCUMENTS",
    "Prepared",
    "branch_input_error",
    "chat_messages",
    "conversion_problems",
    "llm_config",
    "convert_conversation",
    "convert_events",
    "prepare_messages",
    "resolve_target",
]

_DEFAULT = ConversionOptions()


@dataclass(frozen=True)
class Prepared:
    """Everything a target needs: the final ``Message`` list, tools, wire settings, problems."""

    messages: list[Message]
    """Messages after view, batching, merging and the options."""
    tools: list[Any]
    """``SystemPromptEvent.tools`` of the branch (tool definitions, stored order)."""
    formatting: FormatOptions
    """How to serialize ``messages`` (from the LLM config and the options)."""
    problems: list[str]
    """One line per thing the caller should know (dangling calls, dropped or unknown events)."""


def prepare_messages(
    events: Sequence[Event] | Mapping[int, Event],
    *,
    state: BaseState | None = None,
    options: ConversionOptions = _DEFAULT,
    message_of: Callable[[LLMConvertibleEvent], Message] | None = None,
    entries: Sequence[ViewEntry] | None = None,
) -> Prepared:
    """The shared pipeline up to the wire format (``convert`` and ``export`` both call it).

    ``message_of(event)`` must return ``event.to_llm_message()``; a caller that has built
    those already (``export``, for its events table) passes them in (``events_to_messages``).
    With ``entries`` (``entry_of`` each event, by position), ``events`` may hold only the
    positions the view can take: the branch's LLM events no condensation forgot and its
    ``SystemPromptEvent`` (``export`` holds no more of a long conversation); a newer SDK's
    kinds (``convert.newer``) need every event, so without ``entries``.
    Raises ``BranchError`` when the parent links do not lead to the leaf.
    """
    leaf = state.leaf_event_id if state else None
    head_is_empty = bool(state and state.head_is_empty)
    newer: list[str] = []
    source: Sequence[Event] | Mapping[int, Event] = events
    if entries is None:  # every event: a sequence (``active_branch``, its entries kept)
        entries = [entry_of(e, n) for n, e in enumerate(events)]  # type: ignore[arg-type]
        branch = branch_entries(entries, leaf_event_id=leaf, head_is_empty=head_is_empty)
        applied, newer = apply_newer_kinds([events[e.pos] for e in branch])
        if newer:  # e.g. SystemPromptUpdateEvent: the branch's events changed
            source = applied
            branch = [entry_of(e, n) for n, e in enumerate(source)]
    else:
        branch = branch_entries(entries, leaf_event_id=leaf, head_is_empty=head_is_empty)
    dropped: list[tuple[str, ViewEntry]] = []
    if options.view == "condensed":
        view = condensed_entries(branch, dropped=dropped)
    else:
        view = full_entries(branch)
    selected = [source[e.pos] if e.pos >= 0 else summary_event(e) for e in view]
    converted = events_to_messages(selected, message_of=message_of)  # type: ignore[arg-type]
    messages, found = fix_dangling(converted, options.dangling)
    adjust = message_options(options)
    if adjust is not None:
        messages = [a for m in messages if (a := adjust(m)) is not None]
    prompt = next((source[e.pos] for e in branch if e.kind == "SystemPromptEvent"), None)
    tools = list(prompt.tools) if isinstance(prompt, SystemPromptEvent) else []
    unknown = {e.kind for e in branch if e.flags & UNKNOWN}
    problems = newer + conversion_problems(dropped, found, unknown, tools)
    return Prepared(messages, tools, options.format_for(llm_config(state)), problems)


def conversion_problems(
    dropped: Iterable[tuple[str, Any]],
    found: Iterable[DanglingCall],
    unknown_kinds: Collection[str],
    tools: Iterable[Any],
) -> list[str]:
    """The lines of a conversion's ``problems``: events a view property ``dropped`` (``(rule,
    event or entry)``), dangling calls ``found``, kinds left out, tools without a schema.
    """
    problems = [f"{e.kind} {e.id} left out of the condensed view ({rule})" for rule, e in dropped]
    problems += [d.describe() for d in found]
    if unknown_kinds:
        problems.append(f"events of unknown kind left out: {', '.join(sorted(unknown_kinds))}")
    problems += [
        f"tool {n!r}: parameter schema unknown, sent as an open object"
        for n in unknown_tools(tools)
    ]
    return problems


def chat_messages(prepared: Prepared) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(one chat dict per prepared message, the chat messages as sent)``.

    The two differ only when tool-result images move to a user message (``tool_images="user"``);
    ``export`` pairs the first with ``prepared.messages`` for its TRL columns.
    """
    formatting = prepared.formatting
    if formatting.tool_images == "inline":
        chat = messages_to_chat(prepared.messages, formatting)
        return chat, chat
    one_each = messages_to_chat(
        prepared.messages, dataclasses.replace(formatting, tool_images="inline")
    )
    return one_each, move_tool_images(one_each)


def _chat_document(prepared: Prepared) -> dict[str, Any]:
    # the chat messages as sent (`chat_messages(prepared)[1]`) in one pass: the writer moves
    # tool-result images itself when `tool_images="user"`
    messages = messages_to_chat(prepared.messages, prepared.formatting)
    return {"messages": messages, "tools": tools_to_chat(prepared.tools)}


def _responses_document(prepared: Prepared) -> dict[str, Any]:
    instructions, items = messages_to_responses(
        prepared.messages, vision=prepared.formatting.vision
    )
    return {
        "instructions": instructions,
        "input": items,
        "tools": tools_to_responses(prepared.tools),
    }


DOCUMENTS: Mapping[str, Callable[[Prepared], dict[str, Any]]] = {
    "chat": _chat_document,
    "responses": _responses_document,
}
"""Wire formats ``convert`` writes: name -> document builder."""


@paused_gc()
def convert_events(
    events: Sequence[Event],
    *,
    to: Literal["chat", "responses"] = "chat",
    state: BaseState | None = None,
    options: ConversionOptions = _DEFAULT,
) -> dict[str, Any]:
    """Convert events already in memory (index order); see ``convert_conversation``.

    Raises ``BranchError`` when the parent links do not lead to the leaf.
    """
    check_choice("to", to, tuple(DOCUMENTS))
    prepared = prepare_messages(events, state=state, options=options)
    return {**DOCUMENTS[to](prepared), "problems": prepared.problems}


def llm_config(state: BaseState | None) -> dict[str, Any]:
    """The conversation's ``agent.llm`` config as a dict (empty without a base state)."""
    if state is None:
        return {}
    llm = state.agent.llm
    return llm.model_dump() if hasattr(llm, "model_dump") else dict(llm)


def resolve_target(to: Target, state: BaseState | None) -> Literal["chat", "responses"]:
    """``"auto"`` -> the API this conversation's LLM used (without litellm: name rules)."""
    if to == "chat" or to == "responses":
        return to
    llm = llm_config(state)
    use = uses_responses_api(
        llm.get("model"),
        api_mode=str(llm.get("api_mode") or "auto"),
        capability_overrides=llm.get("capability_overrides"),
        model_canonical_name=llm.get("model_canonical_name"),
    )
    return "responses" if use else "chat"


@paused_gc()
def convert_conversation(
    path_or_stored: str | os.PathLike[str] | StoredConversation,
    *,
    to: Target = "chat",
    options: ConversionOptions = _DEFAULT,
) -> dict[str, Any]:
    """The payload an LLM was (or would be) sent for a stored conversation.

    Returns ``{"conversation_id", "messages", "tools", "problems"}`` for chat and
    ``{"conversation_id", "instructions", "input", "tools", "problems"}`` for responses;
    ``problems`` lists dangling tool calls and tools whose schema is unknown, one line each.

    Args:
        path_or_stored: a conversation folder or an opened ``StoredConversation``.
        to: ``"chat"``, ``"responses"``, or ``"auto"`` (the API its LLM uses).
        options: what to keep (view, reasoning, system, images, dangling calls) and, when
            set, the wire settings to use instead of the conversation's LLM's.

    Raises:
        InputError: an unreadable or invalid file, or broken parent links (file and pointer).
    """
    conv = (
        path_or_stored
        if isinstance(path_or_stored, StoredConversation)
        else open_conversation(path_or_stored)
    )
    if to in OTHER_TARGETS:  # ATIF, Anthropic: the document their writer streams
        import io

        import orjson

        out = io.BytesIO()
        _, problems = write_target(to, conv, out, options=options, keep_invalid=True, line=True)
        return {"conversation_id": conv.id, **orjson.loads(out.getvalue()), "problems": problems}
    check_choice("to", to, ("chat", "responses", "auto"))
    state = conv.base_state()
    events = list(conv.iter_events(skip_empty=True))
    try:
        result = convert_events(events, to=resolve_target(to, state), state=state, options=options)
    except BranchError as exc:
        raise branch_input_error(
            exc, events, base_state_path=conv.base_state_path, files=conv.event_files()
        ) from None
    notes = [*getattr(conv, "notes", ()), *conv.upgrade_notes()]
    if notes:
        result["problems"] = [*notes, *result["problems"]]
    return {"conversation_id": conv.id, **result}


def branch_input_error(
    exc: BranchError,
    events: Sequence[Event] | Sequence[ViewEntry],
    *,
    base_state_path: Path,
    event_paths: Sequence[Path] | None = None,
    files: Sequence[EventFile] = (),
) -> InputError:
    """The ``InputError`` for broken parent links: the file and pointer a user can follow.

    ``event_paths`` (parallel to ``events``) or ``files`` (the folder's event files) name the
    event's file; a missing event whose file is in ``files`` was an empty file, skipped.
    """
    message = str(exc)
    skipped = next((f for f in files if exc.missing and f.event_id == exc.missing), None)
    if skipped is not None:  # the named event's file exists but is empty (skipped on reading)
        message += f" (its file {skipped.path.name} is empty)"
    if exc.index is None:
        return InputError(base_state_path, "/leaf_event_id", message)
    if event_paths is not None:
        return InputError(event_paths[exc.index], "/parent_id", message)
    event_id = events[exc.index].id
    path = next((f.path for f in files if f.event_id == event_id), base_state_path.parent)
    return InputError(path, "/parent_id", message)
