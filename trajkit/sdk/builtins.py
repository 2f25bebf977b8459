"""The built-in ``finish`` and ``think`` tools (``include_default_tools``)."""

from __future__ import annotations

from trajkit.events import (
    Action,
    FinishAction,
    FinishObservation,
    TextContent,
    ThinkAction,
    ThinkObservation,
)
from trajkit.sdk.tool import RuntimeTool, ToolContext, register_tool

__all__ = ["DEFAULT_TOOL_NAMES", "FinishTool", "ThinkTool"]

FINISH_DESCRIPTION = """Ends your turn and hands control back to the user, with a message.

Call it when:
- the task the user gave you is complete, or
- you cannot go further without the user (missing information, access or a decision), or the
  task cannot be done in this environment.

Write `message` for the user: what you did and what came out of it (files changed, tests run and
their result), anything left undone or uncertain and why, and any question you need answered.
Do not call it while work you could still do yourself remains."""

THINK_DESCRIPTION = """Writes down a thought without doing anything else.

It reads nothing, runs nothing and changes nothing: the thought is only recorded in the
conversation. Use it to reason before you act when the next step is not obvious, for example:
1. after exploring a codebase, to list the possible causes of a bug and decide which to check
   first;
2. after a test run, to work out why the failures happen and how to fix them;
3. before a refactoring or a new feature, to compare designs and their trade-offs;
4. in the middle of a long debugging session, to sort what you know from what you suspect."""

THOUGHT_LOGGED = "Your thought has been logged."


@register_tool
class FinishTool(RuntimeTool):
    """Ends the run with a message to the user."""

    name = "finish"
    action_type = FinishAction
    observation_type = FinishObservation
    annotations = {
        "title": "finish",
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    parameters = {
        "type": "object",
        "properties": {
            "message": {"type": "string", "description": "Final message to send to the user."}
        },
        "required": ["message"],
    }
    description = FINISH_DESCRIPTION

    def __init__(self, ctx: ToolContext | None = None) -> None:
        self.ctx = ctx

    def resource_key(self, action: Action | None) -> str | None:
        return None

    def __call__(self, action: Action) -> FinishObservation:
        assert isinstance(action, FinishAction)
        return FinishObservation(content=[TextContent(text=action.message)])


@register_tool
class ThinkTool(RuntimeTool):
    """Logs a thought; changes nothing."""

    name = "think"
    action_type = ThinkAction
    observation_type = ThinkObservation
    annotations = {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    parameters = {
        "type": "object",
        "properties": {"thought": {"type": "string", "description": "The thought to log."}},
        "required": ["thought"],
    }
    description = THINK_DESCRIPTION

    def __init__(self, ctx: ToolContext | None = None) -> None:
        self.ctx = ctx

    def resource_key(self, action: Action | None) -> str | None:
        return None

    def __call__(self, action: Action) -> ThinkObservation:
        return ThinkObservation(content=[TextContent(text=THOUGHT_LOGGED)])


DEFAULT_TOOL_NAMES = {"FinishTool": "finish", "ThinkTool": "think"}
"""``include_default_tools`` entries and the tool names they give."""
