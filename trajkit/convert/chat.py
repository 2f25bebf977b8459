"""Messages -> OpenAI Chat Completions ``messages`` (openhands-sdk 1.58.2 ``to_chat_dict``).

Rules (v1-rendering.md section 5), applied to each message in order:

- Prompt caching (``caching=True``): the first system message marks content[0] and unmarks
  content[1]; the last ``user``/``tool`` message marks its last item. Without caching no
  ``cache_control`` is ever written, whatever ``cache_prompt`` says on disk.
- Form: the list form unless ``force_string_serializer`` (or none of caching, vision and native
  tool calling is on); a message holding an image keeps the list form when vision is on.
- List form: ``{"content": [parts], "role"}``; text -> ``{"type":"text","text"}`` (+ cache_control),
  each image URL -> ``{"type":"image_url","image_url":{"url"}}`` only with vision. Tool messages move
  a cache mark to the message (``cache_control`` after ``role``). Assistant ``thinking_blocks`` are
  written next, ``signature`` always present.
- String form: the texts joined with ``"\\n"``; images and thinking blocks dropped.
- Tool text over 50 000 characters is clipped in the middle (``maybe_truncate``), per part.
- Assistant with tool calls: ``tool_calls`` added, whitespace-only text parts removed and
  ``content`` dropped if nothing is left; otherwise an assistant ``[]`` content becomes ``""``.
- Tool results get ``tool_call_id`` then ``name``; ``reasoning_content`` is sent last, only for
  the models that need it back.
- ``tool_images="user"`` (not the SDK's behaviour, which is ``"inline"``): OpenAI's Chat API takes
  only text in tool messages, so image parts of tool results move to one user message placed
  after the run of tool messages, each tool message keeping its text (or a note).

Pure functions: no litellm, no I/O; the runtime's ``LLM.format_messages_for_llm`` calls them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, assert_never

from trajkit.convert.options import FormatOptions
from trajkit.events import ImageContent, Message, TextContent, ThinkingBlock
from trajkit.events.truncate import DEFAULT_TEXT_CONTENT_LIMIT, maybe_truncate

__all__ = [
    "FORCE_STRING_SERIALIZER_MODELS",
    "SEND_REASONING_CONTENT_MODELS",
    "TOOL_IMAGE_NOTE",
    "ChatWriter",
    "ToolImageMover",
    "message_to_chat",
    "messages_to_chat",
    "move_tool_images",
]

FORCE_STRING_SERIALIZER_MODELS = (
    "deepseek-v3.2",
    "glm",
    "groq/kimi-k2-instruct",
    "openrouter/minimax",
)
"""Model-name substrings that need string content (1.58.2)."""

SEND_REASONING_CONTENT_MODELS = (
    "kimi-k3",
    "kimi-k2-thinking",
    "kimi-k2.5",
    "kimi-k2.6",
    "openrouter/minimax-m2",
    "deepseek/deepseek-reasoner",
    "deepseek/deepseek-v4-pro",
    "deepseek/deepseek-v4-flash",
    "deepseek/deepseek-v4.1-flash",
)
"""Model-name substrings that must get ``reasoning_content`` back (1.58.2)."""

_EPHEMERAL = {"type": "ephemeral"}
_DEFAULT = FormatOptions()

_CacheMarks = dict[tuple[int, int], bool]


def _name_matches(model: str | None, needles: Sequence[str]) -> bool:
    name = (model or "").lower()
    return any(n in name for n in needles)


def messages_to_chat(
    messages: Iterable[Message], options: FormatOptions | None = None
) -> list[dict[str, Any]]:
    """Serialize messages as Chat Completions dicts, exactly as the SDK sends them.

    Args:
        messages: the output of ``events_to_messages``.
        options: the wire settings (``FormatOptions.from_llm(llm)`` for a persisted LLM
            config); the defaults are the SDK's for a model with no special rules.
    """
    out: list[dict[str, Any]] = []
    writer = ChatWriter(options or _DEFAULT, out.append)
    for m in messages:
        writer.add(m)
    writer.finish()
    return out


class ChatWriter:
    """``messages_to_chat`` one message at a time: ``add`` each, then ``finish``; the dicts go
    to ``emit`` in order.

    With caching the last user or tool message gets a cache mark: from each user or tool
    message on, messages are held until the next one (or the end) says whether it was the last.
    """

    def __init__(self, options: FormatOptions, emit: Callable[[dict[str, Any]], object]) -> None:
        self._settings = _settings(options)
        self._mover = ToolImageMover(emit) if options.tool_images == "user" else None
        self._emit = self._mover.add if self._mover is not None else emit
        self._i = 0
        self._held: list[tuple[int, Message]] = []
        if not options.caching:  # no marks: each message is written as it comes
            self.add = self._add_uncached  # type: ignore[method-assign]

    def _add_uncached(self, m: Message) -> None:
        self._emit(_to_chat(m, *self._settings, None, -1))

    def add(self, m: Message) -> None:
        i = self._i  # with caching (without it `__init__` put `_add_uncached` here)
        self._i += 1
        if m.role in ("user", "tool"):
            self._release(last=False)
            self._held = [(i, m)]
        elif self._held:
            self._held.append((i, m))
        else:
            self._write(i, m, last=False)

    def finish(self) -> None:
        """Hand on what is still held (the end of the messages)."""
        self._release(last=True)
        if self._mover is not None:
            self._mover.finish()

    def _release(self, *, last: bool) -> None:
        for k, (i, m) in enumerate(self._held):
            self._write(i, m, last=last and k == 0)
        self._held = []

    def _write(self, i: int, m: Message, *, last: bool) -> None:
        """One message with its cache marks: the first system message marks content[0] and
        unmarks content[1]; the ``last`` user/tool message marks its last item.
        """
        marks: _CacheMarks = {}
        if i == 0 and m.role == "system" and m.content:
            marks[(0, 0)] = True
            if len(m.content) > 1:
                marks[(0, 1)] = False
        if last and m.content:
            marks[(i, len(m.content) - 1)] = True
        self._emit(_to_chat(m, *self._settings, marks, i))


def _settings(o: FormatOptions) -> tuple[bool, bool, bool, bool, bool]:
    """``message_to_chat``'s settings for the wire settings ``o`` (name rules resolved), in
    its order.
    """
    fss = (
        _name_matches(o.model, FORCE_STRING_SERIALIZER_MODELS)
        if o.force_string_serializer is None
        else o.force_string_serializer
    )
    send_rc = (
        _name_matches(o.model, SEND_REASONING_CONTENT_MODELS)
        if o.send_reasoning_content is None
        else o.send_reasoning_content
    )
    return (o.caching, o.vision, o.native_tool_calling, fss, send_rc)


TOOL_IMAGE_NOTE = "[image output: see the next user message]"
"""Text left in a tool message whose only content was images (``tool_images="user"``)."""


def move_tool_images(dicts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat dicts with each tool message's images moved to one user message after the run of
    tool messages (``tool_images="user"``); the tool message keeps its text, or a note.
    """
    out: list[dict[str, Any]] = []
    mover = ToolImageMover(out.append)
    for d in dicts:
        mover.add(d)
    mover.finish()
    return out


class ToolImageMover:
    """``move_tool_images`` one chat dict at a time: ``add`` each, then ``finish``; the dicts
    go to ``emit`` in order (a run of tool messages is followed by the user message that
    holds their images).
    """

    def __init__(self, emit: Callable[[dict[str, Any]], object]) -> None:
        self._emit = emit
        self._pending: list[dict[str, Any]] = []

    def add(self, d: dict[str, Any]) -> None:
        if self._pending and d["role"] != "tool":
            self._emit({"content": self._pending, "role": "user"})
            self._pending = []
        content = d.get("content")
        if d["role"] == "tool" and isinstance(content, list):
            images = [p for p in content if p.get("type") == "image_url"]
            if images:
                texts = [p for p in content if p.get("type") != "image_url"]
                d = {**d, "content": texts or [{"type": "text", "text": TOOL_IMAGE_NOTE}]}
                label = f"Image output of tool call {d.get('tool_call_id')}:"
                self._pending += [{"type": "text", "text": label}, *images]
        self._emit(d)

    def finish(self) -> None:
        if self._pending:
            self._emit({"content": self._pending, "role": "user"})
            self._pending = []


def message_to_chat(
    message: Message,
    *,
    caching: bool = False,
    vision: bool = True,
    native_tool_calling: bool = True,
    force_string_serializer: bool = False,
    send_reasoning_content: bool = False,
) -> dict[str, Any]:
    """Serialize one message (see the module rules; no cache marks but its own)."""
    return _to_chat(
        message,
        caching,
        vision,
        native_tool_calling,
        force_string_serializer,
        send_reasoning_content,
        None,
        -1,
    )


def _to_chat(
    message: Message,
    caching: bool,
    vision: bool,
    native_tool_calling: bool,
    force_string_serializer: bool,
    send_reasoning_content: bool,
    marks: _CacheMarks | None,
    index: int,
) -> dict[str, Any]:
    """``message_to_chat`` with the cache ``marks`` of the message at ``index``."""
    list_form = (
        (not force_string_serializer and (caching or vision or native_tool_calling))
        # a message holding an image keeps the list form (looked for only when it decides)
        or (vision and any(isinstance(c, ImageContent) for c in message.content))
    )
    role = message.role
    if list_form:
        out = _list_form(message, role, caching, vision, marks or {}, index)
    else:
        out = _string_form(message)
    if role == "assistant":
        tool_calls = message.tool_calls
        if tool_calls:
            out["tool_calls"] = [
                {
                    "id": tc.id,
                    "type": "function",
                    "function": {"name": tc.name, "arguments": tc.arguments},
                }
                for tc in tool_calls
            ]
            _drop_blank_content(out)
        elif out.get("content") == []:
            out["content"] = ""
    elif role == "tool":
        call_id = message.tool_call_id
        if call_id is not None:
            out["tool_call_id"] = call_id
            out["name"] = message.name
    if send_reasoning_content and message.reasoning_content:
        out["reasoning_content"] = message.reasoning_content
    return out


def _cap(text: str) -> str:
    if len(text) <= DEFAULT_TEXT_CONTENT_LIMIT:
        return text
    return maybe_truncate(text, DEFAULT_TEXT_CONTENT_LIMIT)


def _list_form(
    message: Message,
    role: str,
    caching: bool,
    vision: bool,
    marks: Mapping[tuple[int, int], bool],
    index: int,
) -> dict[str, Any]:
    is_tool = role == "tool"
    parts: list[dict[str, Any]] = []
    tool_cache = False
    for j, item in enumerate(message.content):
        cached = caching and marks.get((index, j), item.cache_prompt)
        if cached and is_tool:
            tool_cache = True  # set even for an image that vision then drops, as the SDK does
        if isinstance(item, TextContent):
            part: dict[str, Any] = {
                "type": "text",
                "text": _cap(item.text) if is_tool else item.text,
            }
            if cached and not is_tool:
                part["cache_control"] = dict(_EPHEMERAL)
            parts.append(part)
        elif isinstance(item, ImageContent):
            if not vision:
                continue
            images: list[dict[str, Any]] = [
                {"type": "image_url", "image_url": {"url": url}} for url in item.image_urls
            ]
            if cached and images and not is_tool:
                images[-1]["cache_control"] = dict(_EPHEMERAL)
            parts.extend(images)
        else:
            assert_never(item)
    out: dict[str, Any] = {"content": parts, "role": role}
    if tool_cache:
        out["cache_control"] = dict(_EPHEMERAL)
    if role == "assistant" and message.thinking_blocks:
        out["thinking_blocks"] = [_thinking_block(b) for b in message.thinking_blocks]
    return out


def _thinking_block(block: Any) -> dict[str, Any]:
    if isinstance(block, ThinkingBlock):
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    return {"type": "redacted_thinking", "data": block.data}


def _string_form(message: Message) -> dict[str, Any]:
    text = "\n".join(c.text for c in message.content if isinstance(c, TextContent))
    if message.role == "tool":
        text = _cap(text)
    return {"content": text, "role": message.role}


def _drop_blank_content(out: dict[str, Any]) -> None:
    content = out.get("content")
    if isinstance(content, str):
        if not content.strip():
            del out["content"]
        return
    kept = [p for p in content or () if not (p.get("type") == "text" and not p["text"].strip())]
    if kept:
        out["content"] = kept
    else:
        out.pop("content", None)
