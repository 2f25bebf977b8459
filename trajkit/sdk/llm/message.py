"""The message types at the SDK's ``llm.message`` path, and `content_to_str` for display."""

from __future__ import annotations

from collections.abc import Sequence

from trajkit.events import ImageContent, Message, MessageToolCall, TextContent

__all__ = ["ImageContent", "Message", "MessageToolCall", "TextContent", "content_to_str"]


def content_to_str(contents: Sequence[TextContent | ImageContent]) -> list[str]:
    """One display string per content item: a text's text, or ``[Image: <n> URLs]``."""
    out: list[str] = []
    for item in contents:
        if isinstance(item, TextContent):
            out.append(item.text)
        elif isinstance(item, ImageContent):
            out.append(f"[Image: {len(item.image_urls)} URLs]")
    return out
