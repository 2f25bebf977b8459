"""Tool definitions as persisted inside ``SystemPromptEvent.tools``.

The SDK writes neither the tool name nor its parameter schema: ``kind`` (the tool class) and
``action_type`` identify it, and ``convert.tools`` rebuilds what the LLM was sent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from trajkit.events._model import OpenModel


class ToolAnnotations(OpenModel):
    """MCP-style hints about a tool."""

    title: str | None = None
    """Display title."""
    readOnlyHint: bool | None = None  # noqa: N815 (MCP's own name)
    """The tool does not change its environment."""
    destructiveHint: bool | None = None  # noqa: N815
    """The tool may destroy data."""
    idempotentHint: bool | None = None  # noqa: N815
    """Repeating the call has no further effect."""
    openWorldHint: bool | None = None  # noqa: N815
    """The tool reaches outside the workspace."""


class ToolDefinition(OpenModel):
    """One tool offered to the LLM, as the SystemPromptEvent records it."""

    description: str
    """Description sent to the LLM, verbatim."""
    action_type: str
    """Kind of the tool's action payload, e.g. ``TerminalAction``."""
    observation_type: str | None = None
    """Kind of its observation payload."""
    annotations: ToolAnnotations | None = None
    """Tool hints."""
    meta: dict[str, Any] | None = None
    """Free-form metadata."""
    mcp_tool: dict[str, Any] | None = Field(default=None)
    """For ``MCPToolDefinition``: the MCP tool (name, description, inputSchema)."""
    kind: str
    """Tool class name, e.g. ``TerminalTool`` or ``MCPToolDefinition``."""
    title: str
    """Annotations title, else the tool name."""


def field_of(obj: Any, key: str) -> Any:
    """Read a key from a dict or an attribute (or pydantic extra) from a model."""
    if isinstance(obj, Mapping):
        return obj.get(key)
    value = getattr(obj, key, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(key)
    return value


def plain_value(value: Any) -> Any:
    """A model as its JSON-ready dict (aliases, no None); anything else as it is."""
    dump = getattr(value, "model_dump", None)
    return dump(mode="json", by_alias=True, exclude_none=True) if dump else value


def recorded_function(tool: Any) -> Mapping[str, Any] | None:
    """The OpenAI function an older SDK recorded verbatim (kept by `trajkit.events.upgrade`)."""
    meta = plain_value(field_of(tool, "meta"))
    function = meta.get("openai_function") if isinstance(meta, Mapping) else None
    return function if isinstance(function, Mapping) else None


def tool_name(tool: Any) -> str:
    """The name the LLM sees for a persisted tool entry."""
    recorded = recorded_function(tool)
    if recorded is not None and isinstance(recorded.get("name"), str):
        return str(recorded["name"])
    kind = str(field_of(tool, "kind") or "")
    mcp_tool = plain_value(field_of(tool, "mcp_tool"))
    if kind == "MCPToolDefinition" and isinstance(mcp_tool, Mapping) and mcp_tool.get("name"):
        return str(mcp_tool["name"])
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", kind).lower()
    return snake.removesuffix("_tool")
