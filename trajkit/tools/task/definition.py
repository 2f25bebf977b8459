"""``TaskToolSet``: the ``task`` tool, which hands a prompt to a registered sub-agent type
(`trajkit.sdk.subagent`) and answers with its result (`trajkit.tools.task.manager`).

Offered to the LLM as ``task`` with ``description``, ``prompt``, ``subagent_type`` and
``resume``; its description lists the registered sub-agent types. Calls run in parallel
(each task has its own conversation), up to the agent's ``tool_concurrency_limit``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trajkit.events import Action as _Action
from trajkit.events import TaskAction, TaskObservation, TextContent
from trajkit.sdk.subagent import get_factory_info
from trajkit.sdk.tool import RuntimeTool, ToolContext, register_tool
from trajkit.tools.task.manager import ConfirmationHandler, TaskManager

if TYPE_CHECKING:
    from trajkit.sdk.conversation.base import BaseConversation

__all__ = ["TaskTool", "TaskToolSet"]

DESCRIPTION = """Hands a task to a sub-agent: a separate agent that works on it in its own conversation, with its own tools, and returns one final answer.

Sub-agent types you can use:
{agent_types}

* Delegate work that takes several steps and would fill your own context (exploring code, running and summarising tests, a self-contained change). Do small lookups yourself.
* The sub-agent sees only your `prompt`: say exactly what to do, name the files, errors or symbols involved, and what to report back.
* Independent tasks can be started in the same response; they run at the same time.
* Each result starts with its task ID. To continue the same sub-agent conversation (it remembers what it did), call again with `resume` set to that ID."""

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "description": {"type": "string", "description": "A few words naming the task."},
        "prompt": {
            "type": "string",
            "description": "Everything the sub-agent needs to know to do the task.",
        },
        "subagent_type": {
            "type": "string",
            "description": "Which sub-agent type runs the task.",
            "default": "general-purpose",
        },
        "resume": {"type": "string", "description": "The task ID of an earlier task to continue."},
    },
    "required": ["prompt"],
}


class TaskTool(RuntimeTool):
    """Runs one sub-agent task per call."""

    name = "task"
    action_type = TaskAction
    observation_type = TaskObservation
    annotations = {"title": "task", "readOnlyHint": False, "destructiveHint": True,
                   "idempotentHint": False, "openWorldHint": True}  # fmt: skip
    parameters = PARAMETERS

    def __init__(
        self, ctx: ToolContext | None = None, *, manager: TaskManager | None = None
    ) -> None:
        self.manager = manager or TaskManager()
        self.description = DESCRIPTION.format(agent_types=get_factory_info())

    def __call__(self, action: _Action) -> TaskObservation:
        return self.execute(action)

    def execute(
        self, action: _Action, conversation: BaseConversation | None = None
    ) -> TaskObservation:
        assert isinstance(action, TaskAction)
        from trajkit.sdk.conversation.local import Conversation

        try:
            task = self.manager.start_task(
                prompt=action.prompt, subagent_type=action.subagent_type, resume=action.resume,
                description=action.description,
                conversation=conversation if isinstance(conversation, Conversation) else None,
            )  # fmt: skip
        except Exception as e:  # noqa: BLE001 (an unknown type or task is the model's to fix)
            return _observation(
                f"Failed to execute task: {e}", "unknown", action.subagent_type, "error"
            )
        if task.status == "completed":
            return _observation(
                task.result or "Task completed with no result.",
                task.id,
                action.subagent_type,
                "completed",
            )
        return _observation(task.error or "Task failed.", task.id, action.subagent_type, "error")

    def resource_key(self, action: _Action | None) -> str | None:
        del action
        return None  # each task has its own conversation

    def interrupt(self) -> None:
        self.manager.interrupt()

    def close(self) -> None:
        self.manager.close()


def _observation(text: str, task_id: str, subagent: str, status: str) -> TaskObservation:
    return TaskObservation(
        content=[TextContent(text=text)],
        is_error=status == "error",
        task_id=task_id,
        subagent=subagent,
        status=status,
    )


@register_tool
class TaskToolSet(TaskTool):
    """``Tool(name=TaskToolSet.name)``: gives the agent the ``task`` tool, with one task
    manager per conversation (``confirmation_handler`` answers sub-agents' confirmations).
    """

    name = "task_tool_set"

    @classmethod
    def create(
        cls, ctx: ToolContext, confirmation_handler: ConfirmationHandler | None = None, **_: Any
    ) -> list[RuntimeTool]:
        return [TaskTool(ctx, manager=TaskManager(confirmation_handler))]


register_tool(TaskTool.name, TaskTool)
