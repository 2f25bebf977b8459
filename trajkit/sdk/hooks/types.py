"""The hook points, the event a hook receives (as JSON on stdin) and its possible decisions."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["HookDecision", "HookEvent", "HookEventType"]


class HookEventType(StrEnum):
    """Where in a conversation a hook runs."""

    PRE_TOOL_USE = "PreToolUse"
    POST_TOOL_USE = "PostToolUse"
    USER_PROMPT_SUBMIT = "UserPromptSubmit"
    SESSION_START = "SessionStart"
    SESSION_END = "SessionEnd"
    STOP = "Stop"


class HookDecision(StrEnum):
    """What a hook decided about the operation."""

    ALLOW = "allow"
    DENY = "deny"


class HookEvent(BaseModel):
    """What a hook is told: the hook point, the tool call or message, and where it runs."""

    model_config = ConfigDict(use_enum_values=True)

    event_type: HookEventType
    tool_name: str | None = None
    tool_input: dict[str, Any] | None = None
    tool_response: dict[str, Any] | None = None
    message: str | None = None
    session_id: str | None = None
    working_dir: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
