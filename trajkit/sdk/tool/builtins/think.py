"""``think``: records a thought and changes nothing."""

from __future__ import annotations

from trajkit.convert.tools import BUILTIN_PARAMETERS
from trajkit.events import Action, TextContent, ThinkAction, ThinkObservation
from trajkit.sdk.tool.registry import register_tool
from trajkit.sdk.tool.tool import RuntimeTool, ToolContext

__all__ = ["ThinkTool"]

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
    parameters = BUILTIN_PARAMETERS["ThinkAction"]
    description = THINK_DESCRIPTION

    def __init__(self, ctx: ToolContext | None = None) -> None:
        self.ctx = ctx

    def resource_key(self, action: Action | None) -> str | None:
        return None

    def __call__(self, action: Action) -> ThinkObservation:
        return ThinkObservation(content=[TextContent(text=THOUGHT_LOGGED)])
