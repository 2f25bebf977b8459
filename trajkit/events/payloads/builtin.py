"""Payloads of the built-in ``finish`` and ``think`` tools and of MCP tools."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from trajkit.events.payloads.base import Action, Observation


class FinishAction(Action):
    """End the task with a final message to the user."""

    message: str
    """Final message to the user."""
    kind: Literal["FinishAction"] = "FinishAction"
    """Payload class name."""


class FinishObservation(Observation):
    """Result of ``finish``: the message as content."""

    kind: Literal["FinishObservation"] = "FinishObservation"
    """Payload class name."""


class ThinkAction(Action):
    """Log a thought."""

    thought: str
    """The thought."""
    kind: Literal["ThinkAction"] = "ThinkAction"
    """Payload class name."""


class ThinkObservation(Observation):
    """Result of ``think`` ("Your thought has been logged.")."""

    kind: Literal["ThinkObservation"] = "ThinkObservation"
    """Payload class name."""


class MCPToolAction(Action):
    """Call of an MCP server tool; the arguments are stored under ``data``."""

    data: dict[str, Any] = Field(default_factory=dict)
    """Tool arguments."""
    kind: Literal["MCPToolAction"] = "MCPToolAction"
    """Payload class name."""


class MCPToolObservation(Observation):
    """Result of an MCP tool call (first content item is ``[Tool '<name>' executed.]``)."""

    tool_name: str
    """MCP tool name (not rendered)."""
    kind: Literal["MCPToolObservation"] = "MCPToolObservation"
    """Payload class name."""
