"""`TaskManager`: runs sub-agent tasks, each in a conversation of its own.

A task's conversation is persisted as the SDK persists it: under the parent conversation's
folder in ``subagents/<id hex>/`` (so ``trajkit ls``/``view`` show it), or in a temporary
folder removed when the manager closes when the parent is kept in memory. The sub-agent gets
a copy of the parent's LLM with metrics of its own, the parent's MCP servers and working
directory, and the confirmation policy its definition names (else the parent's). A finished
task answers with the sub-agent's final response; its usage is added to the parent's stats
as ``task:<id>``. ``resume`` continues a task's conversation from disk with a new prompt.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import uuid
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajkit.sdk.conversation.response_utils import get_agent_final_response
from trajkit.sdk.conversation.state import ConversationState
from trajkit.sdk.subagent.registry import AgentFactory, get_agent_factory
from trajkit.store.layout import subagents_dir

if TYPE_CHECKING:
    from trajkit.events import ActionEvent
    from trajkit.sdk.agent import Agent
    from trajkit.sdk.conversation.local import Conversation

__all__ = [
    "ConfirmationHandler",
    "Task",
    "TaskManager",
    "open_sub_conversation",
    "run_sub_conversation",
]

ConfirmationHandler = Callable[[str, list["ActionEvent"]], bool]
"""``(task_id, pending actions) -> approve?`` for a sub-agent waiting for confirmation."""


@dataclass
class Task:
    """One sub-agent task and how it ended."""

    id: str
    conversation_id: uuid.UUID
    status: str = "running"
    """``running``, ``completed`` or ``error``."""
    result: str | None = None
    error: str | None = None


class TaskManager:
    """The tasks of one parent conversation (set by the first call)."""

    def __init__(
        self, confirmation_handler: ConfirmationHandler | None = None, **_: object
    ) -> None:
        self._confirm = confirmation_handler
        # weak: the parent's tools (this manager among them) must not keep it alive, nor its
        # writer lock held, once its user dropped it
        self._parent_ref: weakref.ref[Conversation] | None = None
        self._tasks: dict[str, Task] = {}
        self._lock = threading.Lock()
        self._folder: Path | None = None
        self._temporary = False
        self._running: set[Conversation] = set()

    @property
    def _parent(self) -> Conversation | None:
        return self._parent_ref() if self._parent_ref is not None else None

    def _attach(self, conversation: Conversation) -> Conversation:
        with self._lock:
            parent = self._parent
            if parent is not None:
                return parent
            self._parent_ref = weakref.ref(conversation)
            folder = conversation.state.persistence_dir
            self._temporary = folder is None
            self._folder = (
                subagents_dir(Path(folder))
                if folder
                else Path(tempfile.mkdtemp(prefix="trajkit_tasks_"))
            )
            return conversation

    def start_task(
        self,
        prompt: str,
        subagent_type: str = "general-purpose",
        resume: str | None = None,
        description: str | None = None,
        conversation: Conversation | None = None,
    ) -> Task:
        """Run a task to its end (blocking) and return it; failures are in ``task.error``."""
        if conversation is not None:
            self._attach(conversation)
        if self._parent is None:
            raise RuntimeError("the task tool runs inside a conversation")
        factory = get_agent_factory(subagent_type)
        with self._lock:
            if resume is not None:
                if resume not in self._tasks:
                    raise ValueError(
                        f"Task '{resume}' not found. Available tasks: {', '.join(sorted(self._tasks)) or 'none'}"
                    )
                task = self._tasks[resume]
                task.status = "running"
            else:
                task = Task(id=f"task_{len(self._tasks) + 1:08x}", conversation_id=uuid.uuid4())
                self._tasks[task.id] = task
        sub = self._conversation(task, factory, description, resumed=resume is not None)
        with self._lock:
            self._running.add(sub)
        try:
            sub.send_message(prompt, sender=getattr(self._parent_visualizer(), "name", None))
            self._run(task.id, sub)
            status = sub.state.execution_status
            if status == "finished":
                task.status, task.result, task.error = (
                    "completed",
                    get_agent_final_response(sub.state.events),
                    None,
                )
            else:
                task.status, task.error = "error", _stop_detail(sub, str(status))
        except Exception as e:  # noqa: BLE001 (the delegating agent reads the failure)
            task.status, task.error = "error", str(e)
        finally:
            with self._lock:
                self._running.discard(sub)
            self._parent.conversation_stats.usage_to_metrics[f"task:{task.id}"] = (
                sub.conversation_stats.get_combined_metrics()
            )
            sub.close()
        return task

    def interrupt(self) -> None:
        """Interrupt the sub-agents running now (the parent was interrupted): each stops at
        once and its task ends with an error saying so.
        """
        with self._lock:
            running = list(self._running)
        for sub in running:
            sub.interrupt()

    def _parent_visualizer(self) -> Any:
        return getattr(self._parent, "_visualizer", None)

    def _conversation(
        self, task: Task, factory: AgentFactory, description: str | None, *, resumed: bool
    ) -> Conversation:
        assert self._parent is not None
        label = None if resumed else description or task.id
        return open_sub_conversation(
            self._parent, factory, label, self._folder, task.conversation_id
        )

    def _run(self, task_id: str, sub: Conversation) -> None:
        run_sub_conversation(sub, task_id, self._confirm)

    def close(self) -> None:
        """Forget the tasks; a temporary folder (in-memory parent) is removed."""
        with self._lock:
            if self._temporary and self._folder is not None:
                shutil.rmtree(self._folder, ignore_errors=True)
            self._tasks.clear()


def open_sub_conversation(
    parent: Conversation,
    factory: AgentFactory,
    label: str | None,
    folder: Path | None,
    conversation_id: uuid.UUID | None = None,
) -> Conversation:
    """A sub-agent's conversation: the factory's agent on a copy of the parent's LLM (metrics
    of its own) with the parent's MCP servers, in the parent's working directory, persisted in
    ``folder`` (None: in memory), shown by the parent visualizer's sub-visualizer named
    ``label``, with the confirmation policy its definition names (else the parent's). Without
    a label (a resumed task) it gets the default visualizer, as the SDK gives it.
    """
    from trajkit.sdk.conversation.local import Conversation
    from trajkit.sdk.conversation.visualizer import DefaultConversationVisualizer

    definition = factory.definition
    parent_llm = parent.agent.llm
    agent: Agent = factory.factory_func(parent_llm.copy_for(parent_llm.usage_id))
    agent = agent.model_copy(update={"mcp_config": dict(parent.agent.mcp_config)})
    make_sub = getattr(getattr(parent, "_visualizer", None), "create_sub_visualizer", None)
    visualizer: Any = DefaultConversationVisualizer() if label is None else None
    if label is not None and callable(make_sub):
        visualizer = make_sub(label)
    sub = Conversation(
        agent=agent,
        workspace=parent.workspace.working_dir,
        persistence_dir=folder,
        conversation_id=conversation_id,
        max_iteration_per_run=definition.max_iteration_per_run or parent.max_iteration_per_run,
        hook_config=definition.hooks,
        visualizer=visualizer,
    )
    sub.set_confirmation_policy(
        definition.get_confirmation_policy() or parent.state.confirmation_policy
    )
    return sub


def run_sub_conversation(
    sub: Conversation, label: str, confirm: ConfirmationHandler | None
) -> None:
    """Run a sub-agent's conversation to its end; actions waiting for confirmation go to
    ``confirm(label, pending)`` (approved without one).
    """
    sub.run()
    while sub.state.execution_status == "waiting_for_confirmation":
        pending = ConversationState.get_unmatched_actions(sub.state.events)
        if not pending:
            return
        if confirm is not None and not confirm(label, pending):
            sub.reject_pending_actions("User rejected the actions")
        sub.run()


def _stop_detail(sub: Conversation, status: str) -> str:
    """Why a sub-agent stopped without finishing, with what it had answered so far."""
    errors = [e for e in sub.state.events if e.kind == "ConversationErrorEvent"]
    reason = (
        getattr(errors[-1], "detail", "")
        if errors
        else f"Sub-agent stopped without finishing (status: {status})."
    )
    partial = get_agent_final_response(sub.state.events)
    return f"{reason}\nPartial result:\n{partial}" if partial else reason
