"""``finish``: ends the run with a message to the user."""

from __future__ import annotations

from trajkit.convert.tools import BUILTIN_PARAMETERS
from trajkit.events import Action, FinishAction, FinishObservation, TextContent
from trajkit.sdk.tool.registry import register_tool
from trajkit.sdk.tool.tool import RuntimeTool, ToolContext

__all__ = ["FinishTool"]

FINISH_DESCRIPTION = """Ends your turn and hands control back to the user, with a message.

Call it when:
- the task the user gave you is complete, or
- you cannot go further without the user (missing information, access or a decision), or the
  task cannot be done in this environment.

Write `message` for the user: what you did and what came out of it (files changed, tests run and
their result), anything left undone or uncertain and why, and any question you need answered.
Do not call it while work you could still do yourself remains."""


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
    parameters = BUILTIN_PARAMETERS["FinishAction"]
    description = FINISH_DESCRIPTION

    def __init__(self, ctx: ToolContext | None = None) -> None:
        self.ctx = ctx

    def resource_key(self, action: Action | None) -> str | None:
        return None

    def __call__(self, action: Action) -> FinishObservation:
        assert isinstance(action, FinishAction)
        return FinishObservation(content=[TextContent(text=action.message)])
