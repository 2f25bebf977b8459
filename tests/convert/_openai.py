"""Validate produced payloads against the official `openai` package's request types."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam
from openai.types.responses import (
    EasyInputMessageParam,
    FunctionToolParam,
    ResponseFunctionToolCallParam,
    ResponseInputItemParam,
    ResponseOutputMessageParam,
    ResponseReasoningItemParam,
)
from openai.types.responses.response_input_item_param import FunctionCallOutput
from pydantic import TypeAdapter

CHAT_MESSAGES = TypeAdapter(list[ChatCompletionMessageParam])
CHAT_TOOLS = TypeAdapter(list[ChatCompletionToolParam])
RESPONSES_INPUT = TypeAdapter(list[ResponseInputItemParam])
RESPONSES_TOOLS = TypeAdapter(list[FunctionToolParam])
# The union accepts an item as soon as any member does; check our items against their own type.
RESPONSES_BY_TYPE: dict[tuple[str, str | None], TypeAdapter[Any]] = {
    ("message", "user"): TypeAdapter(EasyInputMessageParam),
    ("message", "assistant"): TypeAdapter(ResponseOutputMessageParam),
    ("function_call", None): TypeAdapter(ResponseFunctionToolCallParam),
    ("function_call_output", None): TypeAdapter(FunctionCallOutput),
    ("reasoning", None): TypeAdapter(ResponseReasoningItemParam),
}


def _drain(value: Any) -> None:
    # openai's params use Iterable[...] fields, which pydantic validates lazily: iterate them.
    if isinstance(value, Mapping):
        for v in value.values():
            _drain(v)
    elif isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        for v in value:
            _drain(v)


def check_chat(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> None:
    """Raise pydantic.ValidationError when a message (or tool) is not a valid request param."""
    _drain(CHAT_MESSAGES.validate_python(messages))
    if tools is not None:
        _drain(CHAT_TOOLS.validate_python(tools))


def _as_output_message(item: dict[str, Any]) -> dict[str, Any]:
    # The SDK replays assistant text as {"type":"message","role":"assistant","content":
    # [{"type":"output_text","text"}]}, which the Responses API accepts; openai's
    # ResponseOutputMessageParam also marks id, status and annotations required (output-side
    # fields). Fill exactly those, so every other key is still checked.
    content = [{**c, "annotations": []} for c in item["content"]]
    return {"id": "msg_check", "status": "completed", **item, "content": content}


def check_responses(
    instructions: str | None, items: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
) -> None:
    """Raise pydantic.ValidationError when an input item (or tool) is not a valid request param."""
    assert instructions is None or isinstance(instructions, str)
    checked = [
        _as_output_message(i) if i.get("type") == "message" and i.get("role") == "assistant" else i
        for i in items
    ]
    _drain(RESPONSES_INPUT.validate_python(checked))
    for item in checked:
        adapter = RESPONSES_BY_TYPE[(item["type"], item.get("role"))]
        _drain(adapter.validate_python(item))
    if tools is not None:
        _drain(RESPONSES_TOOLS.validate_python(tools))
