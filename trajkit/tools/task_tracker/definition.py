"""``TaskTrackerTool``: the agent's task list, as the SDK's ``task_tracker``.

``plan`` replaces the whole list, ``view`` shows it. The list is saved as
``<conversation>/TASKS.json`` (a JSON array of ``{"title", "notes", "status"}``, indented by two,
what openhands-tools writes) after every ``plan`` and read back when the tool is created, so a
restored conversation, trajkit's or the SDK's, continues with its list. Without a conversation
folder the list lives in memory. Statuses other agents' todo tools use (``pending``,
``completed``, ...) are accepted and stored as ``todo``/``in_progress``/``done``, as the SDK does.
Observation texts are the SDK's, so the model reads the same thing from either runtime.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from trajkit.convert.tools import BUILTIN_PARAMETERS
from trajkit.events import Action, TaskItem, TaskTrackerAction, TaskTrackerObservation, TextContent
from trajkit.sdk.tool import RuntimeTool, ToolContext, register_tool

__all__ = ["TASKS_FILE", "TaskTrackerTool"]

logger = logging.getLogger(__name__)
TASKS_FILE = "TASKS.json"
_ICONS = {"todo": "\u23f3", "in_progress": "\U0001f504", "done": "\u2705"}
_STATUS_ALIASES = {
    "pending": "todo",
    "to_do": "todo",
    "completed": "done",
    "complete": "done",
}

DESCRIPTION = """Keeps your task list for the current piece of work: what is planned, what is under way, what is done.

Commands:
* `view` shows the list as it stands.
* `plan` replaces the list with `task_list`. Always send the complete list (every task, with
  its current status), not just the tasks that changed; `view` first if you are unsure.

Each task has a `title` (short and specific: "Add retry to fetch_page", not "Fix stuff"),
optional `notes` (details, file names, findings, what is blocking it) and a `status`: `todo`,
`in_progress` or `done`.

When to use it:
1. Work that takes several steps or touches several parts of the code: write the plan before
   you start.
2. The user lists several things to do, or asks for a plan or a checklist.
3. New work turns up while you are busy: add it as a task instead of keeping it in your head.

How to keep it useful:
* Mark a task `in_progress` when you start it and keep only one task in progress at a time.
* Mark it `done` as soon as it is finished and verified, not in a batch at the end.
* Drop tasks that turned out to be unnecessary, and split a task that turned out to be big.
* Before telling the user you are finished, check that nothing is left `todo` or
  `in_progress` without a reason.

When not to use it:
* A question, an explanation, or a change that takes one or two steps: just do it.
* Bookkeeping that adds nothing the conversation does not already show.

Example: asked to "rename fetchData to retrieveInformation everywhere and make sure the tests
still pass", first search for every use, then plan one task per file or module to update plus
a final task "Run the test suite and fix failures", and work through them in order."""


def _normalise(task: Any) -> Any:
    if isinstance(task, dict) and isinstance(task.get("status"), str):
        raw = task["status"].strip().lower().replace("-", "_").replace(" ", "_")
        status = _STATUS_ALIASES.get(raw, raw)
        if status in _ICONS:
            task = {**task, "status": status}
    return task


def format_task_list(tasks: list[TaskItem]) -> str:
    """The SDK's ``view`` text: a numbered list with a status icon and the notes indented."""
    if not tasks:
        return "No tasks in the list."
    lines = ["# Task List", ""]
    for i, task in enumerate(tasks, 1):
        lines.append(f"{i}. {_ICONS.get(task.status, _ICONS['todo'])} {task.title}")
        if task.notes:
            lines.append(f"   {task.notes}")
        lines.append("")
    return "\n".join(lines).strip()


@register_tool
class TaskTrackerTool(RuntimeTool):
    """The task list: ``view`` it or ``plan`` (replace) it; persisted in ``TASKS.json``."""

    name = "task_tracker"
    action_type = TaskTrackerAction
    observation_type = TaskTrackerObservation
    annotations = {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    parameters = BUILTIN_PARAMETERS["TaskTrackerAction"]
    description = DESCRIPTION

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.tasks: list[TaskItem] = self._load()

    @property
    def tasks_path(self) -> Path | None:
        """``<conversation>/TASKS.json``, or None without a conversation folder."""
        if self.ctx.conversation_dir is None:
            return None
        return Path(self.ctx.conversation_dir) / TASKS_FILE

    def _load(self) -> list[TaskItem]:
        path = self.tasks_path
        if path is None or not path.is_file():
            return []
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return [TaskItem.model_validate(_normalise(t)) for t in data]
        except (OSError, ValueError, TypeError, ValidationError) as e:
            logger.warning(
                "%s: cannot read the task list (%s); starting with an empty one", path, e
            )
            return []

    def _save(self) -> None:
        path = self.tasks_path
        if path is None:
            return
        from trajkit.store.atomic import atomic_write, make_folder

        make_folder(path.parent)
        atomic_write(path, json.dumps([t.model_dump() for t in self.tasks], indent=2))

    def action_from_arguments(self, arguments: dict[str, Any]) -> Action:
        args = dict(arguments)
        if isinstance(args.get("task_list"), list):
            args["task_list"] = [_normalise(t) for t in args["task_list"]]
        return super().action_from_arguments(args)

    def __call__(self, action: Action) -> TaskTrackerObservation:
        assert isinstance(action, TaskTrackerAction)
        if action.command == "plan":
            self.tasks = list(action.task_list)
            self._save()
            text = f"Task list has been updated with {len(self.tasks)} item(s)."
        elif not self.tasks:
            text = 'No task list found. Use the "plan" command to create one.'
        else:
            text = format_task_list(self.tasks)
        return TaskTrackerObservation(
            content=[TextContent(text=text)], command=action.command, task_list=list(self.tasks)
        )
