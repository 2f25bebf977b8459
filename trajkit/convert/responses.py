"""Messages -> OpenAI Responses ``(instructions, input)`` (openhands-sdk 1.58.2).

Rules (v1-rendering.md section 6):

- system: non-empty texts joined with ``"\\n"`` and stripped; several system messages are joined
  into ``instructions`` with ``"\\n\\n---\\n\\n"``; no system text gives ``None``.
- user: one ``message`` item; text -> ``input_text`` (empty kept), image URL -> ``input_image``
  with ``detail: "auto"`` when vision is on; no parts -> one empty ``input_text``.
- assistant: a ``reasoning`` item when the reasoning item has an id; then a ``message`` item with
  the non-empty texts as ``output_text`` (whitespace-only kept); then one ``function_call`` per
  call, its ``id`` being ``responses_item_id``, else the call id if it starts with ``fc``, else
  ``"fc_" + id``.
- tool: nothing without ``tool_call_id``; else one ``function_call_output`` per text (capped at
  50 000 characters) and, with vision, one per image URL.

No cache marks, no string form, no ``thinking_blocks`` or ``reasoning_content``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from trajkit.events import ImageContent, Message, MessageToolCall, ReasoningItemModel, TextContent
from trajkit.events.truncate import DEFAULT_TEXT_CONTENT_LIMIT, maybe_truncate

__all__ = [
    "RESPONSES_API_MODELS",
    "ResponsesWriter",
    "join_instructions",
    "message_to_responses",
    "messages_to_responses",
    "uses_responses_api",
]

RESPONSES_API_MODELS = ("gpt-5", "gpt-6", "codex-mini-latest")
"""Model-name substrings that use the Responses API when nothing else decides (1.58.2)."""


def uses_responses_api(
    model: str | None,
    *,
    api_mode: str = "auto",
    capability_overrides: dict[str, Any] | None = None,
    supported_endpoints: Sequence[str] | None = None,
    model_canonical_name: str | None = None,
) -> bool:
    """Whether the SDK would call the Responses API for this LLM config (v1-rendering section 8).

    ``supported_endpoints`` is LiteLLM's model-info list when the caller has it (the runtime);
    the toolkit leaves it None and the model-name rule decides.
    """
    if api_mode in ("chat", "responses"):
        return api_mode == "responses"
    override = (capability_overrides or {}).get("supports_responses_api")
    if isinstance(override, bool):
        return override
    if isinstance(supported_endpoints, (list, tuple)):
        return "/v1/responses" in supported_endpoints
    name = (model_canonical_name or model or "").strip().lower()
    return any(m in name for m in RESPONSES_API_MODELS)


def messages_to_responses(
    messages: Iterable[Message], *, vision: bool = True
) -> tuple[str | None, list[dict[str, Any]]]:
    """Serialize messages as Responses ``instructions`` and ``input`` items."""
    items: list[dict[str, Any]] = []
    writer = ResponsesWriter(vision, items.append)
    for m in messages:
        writer.add(m)
    return writer.instructions, items


class ResponsesWriter:
    """``messages_to_responses`` one message at a time: the items go to ``emit`` in order;
    ``instructions`` is what the system messages add up to so far.
    """

    def __init__(self, vision: bool, emit: Callable[[dict[str, Any]], object]) -> None:
        self._vision = vision
        self._emit = emit
        self._buffer: list[dict[str, Any]] = []
        self.instructions: str | None = None

    def add(self, m: Message) -> None:
        buffer = self._buffer
        text = message_to_responses(m, buffer, vision=self._vision)
        if text:
            self.instructions = join_instructions(self.instructions, text)
        for item in buffer:
            self._emit(item)
        buffer.clear()

    def finish(self) -> None:
        """Nothing is held: every item is final when its message is added."""


def join_instructions(instructions: str | None, text: str) -> str:
    """``instructions`` with one more system message's ``text`` (the SDK's separator)."""
    return text if instructions is None else f"{instructions}\n\n---\n\n{text}"


def message_to_responses(m: Message, items: list[dict[str, Any]], *, vision: bool = True) -> str:
    """Append one message's input items to ``items``; a system message's text is returned
    instead (empty otherwise), for ``join_instructions``.
    """
    role = m.role
    if role == "system":
        text = "\n".join(c.text for c in m.content if isinstance(c, TextContent) and c.text)
        return text.strip()
    if role == "user":
        items.append(_user_item(m, vision))
    elif role == "assistant":
        _assistant_items(m, items)
    elif role == "tool":
        _tool_items(m, vision, items)
    return ""


def _user_item(m: Message, vision: bool) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    for c in m.content:
        if isinstance(c, TextContent):
            parts.append({"type": "input_text", "text": c.text})
        elif isinstance(c, ImageContent) and vision:
            parts.extend(
                {"type": "input_image", "image_url": url, "detail": "auto"} for url in c.image_urls
            )
    return {
        "type": "message",
        "role": "user",
        "content": parts or [{"type": "input_text", "text": ""}],
    }


def _reasoning_item(r: ReasoningItemModel) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "reasoning",
        "id": r.id,
        "summary": [{"type": "summary_text", "text": s} for s in r.summary or ()],
    }
    if r.content:
        item["content"] = [{"type": "reasoning_text", "text": t} for t in r.content]
    if r.encrypted_content:
        item["encrypted_content"] = r.encrypted_content
    if r.status:
        item["status"] = r.status
    return item


def function_call_item(tc: MessageToolCall) -> dict[str, Any]:
    """A ``function_call`` input item for one tool call."""
    item_id = tc.responses_item_id or (tc.id if tc.id.startswith("fc") else f"fc_{tc.id}")
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": tc.id,
        "name": tc.name,
        "arguments": tc.arguments,
    }


def _assistant_items(m: Message, items: list[dict[str, Any]]) -> None:
    r = m.responses_reasoning_item
    if r is not None and r.id is not None:
        items.append(_reasoning_item(r))
    texts = [
        {"type": "output_text", "text": c.text}
        for c in m.content
        if isinstance(c, TextContent) and c.text
    ]
    if texts:
        items.append({"type": "message", "role": "assistant", "content": texts})
    for tc in m.tool_calls or ():
        items.append(function_call_item(tc))


def _tool_items(m: Message, vision: bool, items: list[dict[str, Any]]) -> None:
    call_id = m.tool_call_id
    if call_id is None:
        return
    for c in m.content:
        if isinstance(c, TextContent):
            text = c.text
            if len(text) > DEFAULT_TEXT_CONTENT_LIMIT:
                text = maybe_truncate(text, DEFAULT_TEXT_CONTENT_LIMIT)
            items.append({"type": "function_call_output", "call_id": call_id, "output": text})
        elif isinstance(c, ImageContent) and vision:
            for url in c.image_urls:
                items.append(
                    {
                        "type": "function_call_output",
                        "call_id": call_id,
                        "output": [{"type": "input_image", "image_url": url, "detail": "auto"}],
                    }
                )
