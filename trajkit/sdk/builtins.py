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

FINISH_DESCRIPTION = """Signals the completion of the current task or conversation.

Use this tool when:
- You have successfully completed the user's requested task
- You cannot proceed further due to technical limitations or missing information

The message should include:
- A clear summary of actions taken and their results
- Any next steps for the user
- Explanation if you're unable to complete the task
- Any follow-up questions if more information is needed
"""

THINK_DESCRIPTION = (
    "Use the tool to think about something. It will not obtain new information or make any "
    "changes to the repository, but just log the thought. Use it when complex reasoning or "
    "brainstorming is needed.\n\nCommon use cases:\n1. When exploring a repository and "
    "discovering the source of a bug, call this tool to brainstorm several unique ways of "
    "fixing the bug, and assess which change(s) are likely to be simplest and most effective.\n"
    "2. After receiving test results, use this tool to brainstorm ways to fix failing tests.\n"
    "3. When planning a complex refactoring, use this tool to outline different approaches and "
    "their tradeoffs.\n4. When designing a new feature, use this tool to think through "
    "architecture decisions and implementation details.\n5. When debugging a complex issue, use "
    "this tool to organize your thoughts and hypotheses.\n\nThe tool simply logs your thought "
    "process for better transparency and does not execute any code or make changes."
)

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

    def __call__(self, action: Action) -> ThinkObservation:
        return ThinkObservation(content=[TextContent(text=THOUGHT_LOGGED)])


DEFAULT_TOOL_NAMES = {"FinishTool": "finish", "ThinkTool": "think"}
"""``include_default_tools`` entries and the tool names they give."""
