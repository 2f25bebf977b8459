"""A conversation as an Anthropic Messages API request (`convert --to anthropic`).

The messages are the ones `convert --to chat` gives (same view, options and dangling-call
rule: `prepare_messages`), written as Anthropic takes them:

- system messages: the top-level `system` text (joined by a blank line when several);
- user: a user message of `text` / `image` blocks (a `data:` URL as base64, else a URL source);
- assistant: its recorded `thinking` / `redacted_thinking` blocks first (signed, as Claude
  returned them), then its text, then one `tool_use` block per call (`input` = the parsed
  arguments);
- tool: a `tool_result` block (text and images) in a user message; results and the user text
  after them join one user message, as the API wants roles to alternate;
- tools: `{name, description, input_schema}` from the tools the model was offered;
- `model` (without a `anthropic/` prefix) and `max_tokens` from the conversation's LLM config.

Reasoning recorded without a thinking block (other providers' `reasoning_content`) has no
signed block to send: such messages are counted in one warning, not sent.
"""

from __future__ import annotations

import os
from typing import IO, Any

import orjson

from trajkit.convert.options import ConversionOptions
from trajkit.events import ImageContent, Message, RedactedThinkingBlock, TextContent

__all__ = ["messages_to_anthropic", "write_anthropic"]

_MAX_TOKENS = 8192
"""`max_tokens` when the LLM config sets none (the API requires one)."""


def write_anthropic(
    conversation: str | os.PathLike[str] | Any,
    out: IO[bytes],
    *,
    options: ConversionOptions,
    keep_invalid: bool = False,
    line: bool = False,
) -> tuple[list[str], list[str]]:
    """Write one conversation as a Messages request; returns `(validate's errors kept with
    keep_invalid, warnings)`. An invalid conversation raises `TrajkitError` unless
    `keep_invalid`.
    """
    from trajkit.convert._source import opened
    from trajkit.convert._source import prepared as prepared_messages
    from trajkit.convert.stream import indented_json
    from trajkit.convert.tools import tools_to_chat

    conv, errors = opened(conversation, keep_invalid=keep_invalid)
    state, prepared = prepared_messages(conv, options)
    llm = state.agent.llm.model_dump() if state is not None else {}
    document, problems = messages_to_anthropic(
        prepared.messages, tools_to_chat(prepared.tools), llm
    )
    out.write(orjson.dumps(document) if line else indented_json(document))
    notes = [*getattr(conv, "notes", ()), *conv.upgrade_notes()]
    return errors, [*notes, *prepared.problems, *problems]


def messages_to_anthropic(
    messages: list[Message], tools: list[dict[str, Any]], llm: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """`(the request, warnings)` for messages, chat-shaped tools and an `agent.llm` config."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    unsigned = 0
    for message in messages:
        if message.role == "system":
            system.append(_text(message))
            continue
        if message.role == "assistant":
            blocks = _assistant(message)
            unsigned += bool(message.reasoning_content and not message.thinking_blocks)
        elif message.role == "tool":
            blocks = [_tool_result(message)]
        else:
            blocks = _blocks(message)
        role = "assistant" if message.role == "assistant" else "user"
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        elif blocks:
            turns.append({"role": role, "content": blocks})
    model = str(llm.get("model") or "unknown").removeprefix("anthropic/")
    max_tokens = llm.get("max_output_tokens")
    request: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens if isinstance(max_tokens, int) else _MAX_TOKENS,
    }
    if system:
        request["system"] = "\n\n".join(system)
    request["messages"] = turns
    if tools:
        request["tools"] = [_tool(t["function"]) for t in tools]
    problems = []
    if unsigned:
        problems.append(
            f"reasoning of {unsigned} assistant message(s) not sent: recorded without a signed "
            "thinking block, which is all the Messages API takes back"
        )
    return request, problems


def _text(message: Message) -> str:
    return "".join(c.text for c in message.content if isinstance(c, TextContent))


def _blocks(message: Message) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, TextContent):
            if part.text:
                blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ImageContent):
            blocks += [{"type": "image", "source": _image_source(u)} for u in part.image_urls]
    return blocks


def _image_source(url: str) -> dict[str, Any]:
    if url.startswith("data:") and ";base64," in url:
        head, data = url[5:].split(";base64,", 1)
        return {"type": "base64", "media_type": head, "data": data}
    return {"type": "url", "url": url}


def _assistant(message: Message) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for block in message.thinking_blocks:
        if isinstance(block, RedactedThinkingBlock):
            blocks.append({"type": "redacted_thinking", "data": block.data})
        else:
            blocks.append({"type": "thinking", "thinking": block.thinking,
                           "signature": block.signature or ""})  # fmt: skip
    blocks += _blocks(message)
    for call in message.tool_calls or []:
        try:
            arguments = orjson.loads(call.arguments)
        except orjson.JSONDecodeError:
            arguments = None
        if not isinstance(arguments, dict):  # not an object: kept as the text the model wrote
            arguments = {"arguments": call.arguments}
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": arguments})
    return blocks


def _tool_result(message: Message) -> dict[str, Any]:
    content = _blocks(message)
    return {"type": "tool_result", "tool_use_id": message.tool_call_id or "", "content": content}


def _tool(function: dict[str, Any]) -> dict[str, Any]:
    schema = function.get("parameters") or {"type": "object", "properties": {}}
    return {"name": function["name"], "description": function.get("description", ""),
            "input_schema": schema}  # fmt: skip
