"""The conversation row: summary fields, TRL `messages`, `tools` and the exact chat conversion.

`conversation_row(loaded, ...)` builds one row of the `conversations` table from a conversation
already read into memory (`Loaded`). Messages come from `trajkit convert --to chat`'s own
pipeline (`trajkit.convert.conversation.prepare_messages`, given the messages the events table
already built), keeping the `Message` objects next to the chat dicts so the TRL
`reasoning_content` can be taken from the stored message; `conversion` is convert's document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from trajkit.events import ActionEvent, FinishAction, MessageEvent
from trajkit.events.outcome import is_failed_step
from trajkit.shapes.eval_output import benchmark_fields
from trajkit.store.layout import BASE_STATE

if TYPE_CHECKING:
    from trajkit.convert.options import ConversionOptions
    from trajkit.convert.view import ViewEntry
    from trajkit.events import BaseState, Event, LLMConvertibleEvent, Message
    from trajkit.store import EventFile

__all__ = ["Loaded", "Tally", "chat_conversion", "conversation_row", "trl_message"]


@dataclass
class Loaded:
    """One conversation read into memory."""

    conversation_id: str
    source_format: str
    state_json: dict[str, Any] | None
    state: BaseState | None
    events: list[tuple[int, Event, str | bytes]]
    """(index, parsed event, stored JSON text: the file's bytes, or a `str`)."""
    paths: Sequence[Path] | None = None
    """Event files, parallel to `events` (V1 input only), to name them in errors."""
    files: Sequence[EventFile] = ()
    """Every event file of the folder, empty ones included (V1 input only), for errors."""
    record: dict[str, Any] | None = None
    """The evaluation record the conversation came from (without its history), if any."""
    llm_messages: dict[int, Message] = field(default_factory=dict)
    """`event.to_llm_message()` by `id(event)`, filled while building the event rows and
    reused by the chat conversion (each event's message is built once)."""
    entries: list[ViewEntry] | None = None
    """One view entry per event, when `events` holds only the events the view may show
    (`trajkit.export.event_rows`): the view is made from them (`prepare_messages(entries=)`)."""
    kept: dict[int, Event] = field(default_factory=dict)
    """With `entries`: position -> event, the events the view may show."""


@dataclass
class Tally:
    """What the conversation row says of every event, counted one event at a time."""

    n_events: int = 0
    n_tool_calls: int = 0
    n_errors: int = 0
    first_user_message: str | None = None
    final_answer: str | None = None
    """The last `FinishAction`'s message or agent message's text."""
    created_at: datetime | None = None
    last_event_at: datetime | None = None
    tools_used: set[str] = field(default_factory=set)
    response_ids: set[str] = field(default_factory=set)
    """LLM response ids of agent events (the LLM call count without usage metrics)."""

    def add(self, event: Event, timestamp: datetime | None) -> None:
        """Count `event` (stored at `timestamp`, parsed)."""
        self.n_events += 1
        if timestamp is not None:
            self.created_at = self.created_at or timestamp
            self.last_event_at = timestamp
        if is_failed_step(event):
            self.n_errors += 1
        if isinstance(event, ActionEvent):
            self.n_tool_calls += 1
            self.tools_used.add(event.tool_name)
            if isinstance(event.action, FinishAction):
                self.final_answer = str(event.action.message)
        elif isinstance(event, MessageEvent):
            if event.source == "user" and self.first_user_message is None:
                self.first_user_message = event.llm_message.text
            elif event.source == "agent":
                self.final_answer = str(event.llm_message.text)
        if event.source == "agent":
            rid = event.__dict__.get("llm_response_id")
            if rid is not None:
                self.response_ids.add(rid)


def conversation_row(
    loaded: Loaded,
    source: str,
    options: ConversionOptions,
    tally: Tally,
    conv_path: Path | None,
) -> dict[str, Any]:
    """The `conversations` row of `loaded`, its counts from `tally` (`n_redactions` later)."""
    state = loaded.state
    events: Sequence[Event] | Mapping[int, Event] = (
        [e for _, e, _ in loaded.events] if loaded.entries is None else loaded.kept
    )
    messages, one_each, chat, tools, problems = chat_conversion(events, options, loaded, conv_path)
    usage = _usage(loaded.state_json)
    title_tags = state_title_tags(loaded.state_json)
    tags = {p["key"]: p["value"] for p in title_tags["tags"] or ()}
    return {
        "conversation_id": loaded.conversation_id,
        "source_path": source,
        "source_format": loaded.source_format,
        "created_at": tally.created_at,
        "last_event_at": tally.last_event_at,
        "model": state.agent.llm.model if state else None,
        "agent_kind": state.agent.kind if state else None,
        "tool_names": [t["function"]["name"] for t in tools],
        "execution_status": state.execution_status if state else None,
        "n_events": tally.n_events,
        "n_llm_calls": usage.pop("n_llm_calls") or len(tally.response_ids),
        "n_tool_calls": tally.n_tool_calls,
        "n_errors": tally.n_errors,
        "n_messages": len(one_each),  # the `messages` column has one entry per message
        **usage,
        "first_user_message": tally.first_user_message,
        "final_answer": tally.final_answer,
        "view": options.view,
        "messages": [trl_message(m, c) for m, c in zip(messages, one_each, strict=True)],
        "tools": orjson.dumps(tools),  # UTF-8 bytes: Arrow takes them as they are
        "conversion": orjson.dumps({"messages": chat, "tools": tools}),
        "problems": problems,
        "n_redactions": 0,
        **title_tags,
        **benchmark_fields(loaded.record, tags),
    }


def tag_pairs(tags: dict[str, str]) -> list[dict[str, str]]:
    """The `tags` column's value: `{key, value}` pairs sorted by key."""
    return [{"key": k, "value": tags[k]} for k in sorted(tags)]


def state_title_tags(state_json: Any) -> dict[str, Any]:
    """`title` and `tags` columns from the base state's `tags` (the agent server's `meta.json`
    takes precedence: `trajkit.export.rows` fills it in).
    """
    tags = state_json.get("tags") if isinstance(state_json, dict) else None
    if not isinstance(tags, dict):
        return {"title": None, "tags": None}
    title = tags.get("title")
    rest = tag_pairs({str(k): str(v) for k, v in tags.items() if k != "title"})
    return {"title": title if isinstance(title, str) and title else None, "tags": rest or None}


def chat_conversion(
    events: Sequence[Event] | Mapping[int, Event],
    options: ConversionOptions,
    loaded: Loaded,
    conv_path: Path | None,
) -> tuple[
    list[Message], list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], list[str]
]:
    """convert's pipeline: (messages, one chat dict each, chat as sent, tools, problems)."""
    from trajkit.convert import conversation as conversion  # attribute lookup: one pipeline
    from trajkit.convert.tools import tools_to_chat
    from trajkit.convert.view import BranchError

    cache = loaded.llm_messages

    def message_of(event: LLMConvertibleEvent) -> Message:
        message = cache.get(id(event))  # events of `loaded` stay alive, so ids are theirs
        return event.to_llm_message() if message is None else message

    try:
        prepared = conversion.prepare_messages(
            events,
            state=loaded.state,
            options=options,
            message_of=message_of,
            entries=loaded.entries,
        )
    except BranchError as exc:
        base_state = conv_path / BASE_STATE if conv_path else Path(loaded.conversation_id)
        listed = loaded.entries if loaded.entries is not None else [e for _, e, _ in loaded.events]
        raise conversion.branch_input_error(
            exc, listed, base_state_path=base_state, event_paths=loaded.paths, files=loaded.files
        ) from None
    one_each, chat = conversion.chat_messages(prepared)
    return prepared.messages, one_each, chat, tools_to_chat(prepared.tools), prepared.problems


def trl_message(message: Message, chat: Mapping[str, Any]) -> dict[str, Any]:
    """TRL's message struct: content as one string, reasoning from the stored message."""
    content = chat.get("content")
    if isinstance(content, list):
        content = "\n".join(p["text"] for p in content if p.get("type") == "text")
    return {
        "role": chat["role"],
        "content": content,
        "tool_calls": chat.get("tool_calls"),
        "tool_call_id": chat.get("tool_call_id"),
        "name": chat.get("name"),
        "reasoning_content": _reasoning(message),
    }


def _reasoning(message: Message) -> str | None:
    if message.reasoning_content:
        return message.reasoning_content
    thinking = [b.thinking for b in message.thinking_blocks if hasattr(b, "thinking")]
    if thinking:
        return "\n".join(thinking)
    item = message.responses_reasoning_item
    if item is not None and (item.content or item.summary):
        return "\n".join(item.content or item.summary)
    return None


def _usage(state: Mapping[str, Any] | None) -> dict[str, Any]:
    """Cost, token totals and LLM call count (`trajkit.store.usage.usage_totals`)."""
    from trajkit.store.usage import USAGE_TOKEN_FIELDS, usage_totals

    usage = usage_totals(state)
    out: dict[str, Any] = {"accumulated_cost": usage.cost, "n_llm_calls": usage.n_llm_calls}
    out.update((key, getattr(usage, key)) for key in USAGE_TOKEN_FIELDS)
    return out
