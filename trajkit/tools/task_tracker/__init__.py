"""The ``task_tracker`` tool: the agent's task list (view / plan), kept in ``TASKS.json``."""

from trajkit.tools.task_tracker.definition import TaskTrackerTool

__all__ = ["TaskTrackerTool"]
