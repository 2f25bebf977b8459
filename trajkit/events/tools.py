"""Tool definitions as persisted inside ``SystemPromptEvent.tools``.

The SDK writes neither the tool name nor its parameter schema: ``kind`` (the tool class) and
``action_type`` identify it, and ``convert.tools`` rebuilds what the LLM was sent.
"""

from __future__ import annotations

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
