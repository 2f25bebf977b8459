"""Message-list options applied before serialization: dangling calls, reasoning, system, images.

Dangling tool calls: an assistant tool call must be answered by one tool message, among the tool
messages that directly follow it, before any other message. A call left without an answer (a
crash, a max-iterations stop, an interrupt) is *dangling*; a tool message answering no open call
is an *orphan*. ``find_dangling`` reports both; ``fix_dangling`` then

- ``"report"``: changes nothing (the SDK's own projection; may be rejected by the API);
- ``"drop"``: removes the dangling calls (and an assistant message left with nothing to say) and
  the orphans;
- ``"synthesize"``: adds an error tool message for each dangling call, right after the results
  that follow its assistant message, and removes the orphans.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trajkit.convert.options import DanglingPolicy
from trajkit.events import ImageContent, Message, TextContent

__all__ = [
    "IMAGE_PLACEHOLDER",
    "SYNTHETIC_RESULT",
    "DanglingCall",
    "DanglingPolicy",
    "drop_reasoning",
    "drop_system",
    "find_dangling",
    "fix_dangling",
    "replace_images",
    "synthetic_result",
]


SYNTHETIC_RESULT = (
    "Error: no result was recorded for this tool call; the conversation stopped or was "
    "interrupted before the tool finished."
)
"""Text of the tool message ``fix_dangling(..., "synthesize")`` adds."""

IMAGE_PLACEHOLDER = "[image]"
"""Text that replaces each image URL with ``images="placeholder"``."""


@dataclass(frozen=True)
class DanglingCall:
    """A tool call without its result, or a result without its call."""

    tool_call_id: str
    """The call id."""
    name: str
    """The tool name."""
    message_index: int
    """Index of the assistant message (or of the orphan tool message) in the input list."""
    orphan: bool = False
    """True for a tool result that answers no open call."""

    def describe(self) -> str:
        """One line for a report."""
        what = (
            "tool result without a matching call" if self.orphan else "tool call without a result"
        )
        return f"{what}: {self.name} (id {self.tool_call_id}, message {self.message_index})"


def find_dangling(messages: Sequence[Message]) -> list[DanglingCall]:
    """Dangling calls and orphan results, in message order.

    Calls and results are paired by id the way the SDK's view pairs them (its tool-call
    matching compares the sets of ids): a call whose id is answered somewhere, or a result
    whose id was called somewhere, is not reported even when the pair is not adjacent. Models
    that reuse ids across turns (`functions.bash:0` on every turn) then convert as the SDK
    sends them, with nothing dropped.
    """
    answered = {m.tool_call_id for m in messages if m.role == "tool" and m.tool_call_id}
    called = {tc.id for m in messages if m.role == "assistant" for tc in m.tool_calls or ()}
    found: list[DanglingCall] = []
    pending: dict[str, tuple[str, int]] = {}

    def flush() -> None:
        found.extend(
            DanglingCall(cid, name, idx)
            for cid, (name, idx) in pending.items()
            if cid not in answered
        )
        pending.clear()

    for i, m in enumerate(messages):
        if m.role == "tool":
            if m.tool_call_id is None:
                continue
            if pending.pop(m.tool_call_id, None) is None and m.tool_call_id not in called:
                found.append(DanglingCall(m.tool_call_id, m.name or "", i, orphan=True))
            continue
        flush()
        if m.role == "assistant" and m.tool_calls:
            pending = {tc.id: (tc.name, i) for tc in m.tool_calls}
    flush()
    return found


def fix_dangling(
    messages: Sequence[Message], policy: DanglingPolicy
) -> tuple[list[Message], list[DanglingCall]]:
    """Apply ``policy`` to the dangling calls; returns the messages and what was found."""
    found = find_dangling(messages)
    if not found or policy == "report":
        return list(messages), found
    orphans = {d.message_index for d in found if d.orphan}
    by_message: dict[int, list[DanglingCall]] = {}
    for d in found:
        if not d.orphan:
            by_message.setdefault(d.message_index, []).append(d)
    out: list[Message] = []
    synth: list[Message] = []
    for i, m in enumerate(messages):
        if synth and m.role != "tool":
            out.extend(synth)
            synth = []
        if i in orphans:
            continue
        calls = by_message.get(i)
        if calls and policy == "drop":
            kept = _without_calls(m, {d.tool_call_id for d in calls})
            if kept is not None:
                out.append(kept)
            continue
        out.append(m)
        if calls:
            synth = [synthetic_result(d) for d in calls]
    out.extend(synth)
    return out, found


def synthetic_result(call: DanglingCall) -> Message:
    """The tool message ``--dangling synthesize`` answers an unanswered call with."""
    return Message(
        role="tool",
        content=[TextContent(text=SYNTHETIC_RESULT)],
        tool_call_id=call.tool_call_id,
        name=call.name,
    )


def _without_calls(m: Message, ids: set[str]) -> Message | None:
    calls = [tc for tc in m.tool_calls or () if tc.id not in ids]
    has_text = any(isinstance(c, TextContent) and c.text.strip() for c in m.content)
    if not calls and not has_text:
        return None
    return m.model_copy(update={"tool_calls": calls or None})


def drop_reasoning(messages: Sequence[Message]) -> list[Message]:
    """Messages without reasoning content, thinking blocks or Responses reasoning items."""
    return [
        m.model_copy(
            update={
                "reasoning_content": None,
                "thinking_blocks": [],
                "responses_reasoning_item": None,
            }
        )
        if m.reasoning_content or m.thinking_blocks or m.responses_reasoning_item
        else m
        for m in messages
    ]


def drop_system(messages: Sequence[Message]) -> list[Message]:
    """Messages without the system message(s)."""
    return [m for m in messages if m.role != "system"]


def replace_images(
    messages: Sequence[Message], placeholder: str = IMAGE_PLACEHOLDER
) -> list[Message]:
    """Messages whose image URLs are each replaced by a text ``placeholder``."""
    out = []
    for m in messages:
        if any(isinstance(c, ImageContent) for c in m.content):
            content: list[TextContent | ImageContent] = []
            for c in m.content:
                if isinstance(c, ImageContent):
                    content.extend(TextContent(text=placeholder) for _ in c.image_urls)
                else:
                    content.append(c)
            m = m.model_copy(update={"content": content})
        out.append(m)
    return out
