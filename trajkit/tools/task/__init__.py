"""The ``task`` tool: delegate a prompt to a registered sub-agent (`trajkit.sdk.subagent`)."""

from trajkit.events import TaskAction, TaskObservation
from trajkit.tools.task.definition import TaskTool, TaskToolSet
from trajkit.tools.task.manager import ConfirmationHandler, Task, TaskManager

__all__ = [
    "ConfirmationHandler",
    "Task",
    "TaskAction",
    "TaskManager",
    "TaskObservation",
    "TaskTool",
    "TaskToolSet",
]
