"""Task tracker tool payloads (openhands-tools ``task_tracker``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from trajkit.events._model import StrictModel
from trajkit.events.payloads.base import Action, Observation

TaskStatus = Literal["todo", "in_progress", "done"]


class TaskItem(StrictModel):
    """One task of the plan."""

    title: str
    """Short title."""
    notes: str = ""
    """Details."""
    status: TaskStatus = "todo"
    """Progress."""


class TaskTrackerAction(Action):
    """View the task list or replace it with a new plan."""

    command: Literal["view", "plan"] = "view"
    """``view`` the list or ``plan`` (replace it with ``task_list``)."""
    task_list: list[TaskItem] = Field(default_factory=list)
    """The new list, for ``plan``."""
    kind: Literal["TaskTrackerAction"] = "TaskTrackerAction"
    """Payload class name."""


class TaskTrackerObservation(Observation):
    """The task list after the command."""

    command: Literal["view", "plan"] = "view"
    """The command that ran."""
    task_list: list[TaskItem] = Field(default_factory=list)
    """The current list."""
    kind: Literal["TaskTrackerObservation"] = "TaskTrackerObservation"
    """Payload class name."""
