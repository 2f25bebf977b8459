"""Delegation with named sub-agents: ``spawn`` creates them, ``delegate`` gives each a task and
waits for all of them (in parallel), as the SDK's ``DelegateAction``/``DelegateExecutor`` do.

``DelegateTool`` (``delegate``) offers the two commands to the model; the SDK 1.58.2 keeps only
the action, observation and executor (its agents use ``TaskToolSet``), so ``DelegateTool`` is
there for code written for its earlier versions.

Sub-agents are built by `trajkit.tools.task.manager.open_sub_conversation`, the rule the task
tool uses: persisted under ``<parent>/subagents/`` when the parent is persisted, else kept in
memory; each one's usage is counted in the parent's stats as ``delegate:<id>``.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from trajkit.sdk.conversation.response_utils import get_agent_final_response
from trajkit.sdk.subagent import get_agent_factory
from trajkit.sdk.tool import (
    Action,
    Observation,
    RuntimeTool,
    ToolContext,
    ToolDefinition,
    ToolExecutor,
    register_tool,
)
from trajkit.store.layout import subagents_dir
from trajkit.tools.task.manager import (
    ConfirmationHandler,
    open_sub_conversation,
    run_sub_conversation,
)

if TYPE_CHECKING:
    from trajkit.sdk.conversation.base import BaseConversation
    from trajkit.sdk.conversation.local import Conversation

__all__ = [
    "ConfirmationHandler",
    "DelegateAction",
    "DelegateExecutor",
    "DelegateObservation",
    "DelegateTool",
]

logger = logging.getLogger(__name__)


class DelegateAction(Action):
    """``spawn`` named sub-agents, or ``delegate`` one task to each of several."""

    command: Literal["spawn", "delegate"] = Field(description="`spawn` or `delegate`.")
    ids: list[str] | None = Field(
        default=None, description="For `spawn`: the names of the sub-agents to create."
    )
    agent_types: list[str] | None = Field(
        default=None,
        description="For `spawn`: the registered type of each name, in order (missing or "
        "blank: the default agent).",
    )
    tasks: dict[str, str] | None = Field(
        default=None, description="For `delegate`: each sub-agent's name and its task."
    )


class DelegateObservation(Observation):
    """What a ``spawn`` or ``delegate`` command did."""

    command: Literal["spawn", "delegate"] = Field(description="The command that ran.")


class DelegateExecutor(ToolExecutor[DelegateAction, DelegateObservation]):
    """Runs ``spawn``/``delegate`` for one parent conversation (set by the first call); at
    most ``max_children`` sub-agents; ``confirmation_handler(id, pending)`` answers a
    sub-agent waiting for confirmation (approved without one).
    """

    def __init__(
        self, max_children: int = 5, confirmation_handler: ConfirmationHandler | None = None
    ) -> None:
        self._max_children = max_children
        self._confirm = confirmation_handler
        self._parent: Conversation | None = None
        self._agents: dict[str, Conversation] = {}
        self._busy: set[str] = set()

    def __call__(
        self, action: DelegateAction, conversation: BaseConversation | None = None
    ) -> DelegateObservation:
        from trajkit.sdk.conversation.local import Conversation

        if self._parent is None and isinstance(conversation, Conversation):
            self._parent = conversation
        if self._parent is None:
            return _answer(action, "Delegation runs only inside a local conversation.", True)
        if action.command == "spawn":
            return self._spawn(self._parent, action)
        return self._delegate(self._parent, action)

    def _spawn(self, parent: Conversation, action: DelegateAction) -> DelegateObservation:
        ids = action.ids or []
        types = list(action.agent_types or [])
        if not ids:
            return _answer(action, "`spawn` needs at least one name in `ids`.", True)
        if len(types) > len(ids):
            return _answer(action, f"{len(types)} agent_types for {len(ids)} ids.", True)
        if len(set(self._agents) | set(ids)) > self._max_children:
            return _answer(
                action,
                f"Cannot spawn {len(ids)}: {len(self._agents)} sub-agents exist and at most "
                f"{self._max_children} may.",
                True,
            )
        types = [(t.strip() or "default") for t in types] + ["default"] * (len(ids) - len(types))
        folder = parent.state.persistence_dir
        made: dict[str, Conversation] = {}
        try:
            for name, kind in zip(ids, types, strict=True):
                factory = get_agent_factory(kind)
                where = subagents_dir(Path(folder)) if folder else None
                made[name] = open_sub_conversation(parent, factory, name, where)
        except Exception as e:  # noqa: BLE001 (an unknown type is the model's to fix)
            for sub in made.values():
                sub.close()
            return _answer(action, f"Could not spawn the sub-agents: {e}", True)
        for name, sub in made.items():
            old = self._agents.pop(name, None)
            if old is not None:
                old.close()
            self._agents[name] = sub
        listed = ", ".join(f"{n} ({t})" for n, t in zip(ids, types, strict=True))
        return _answer(action, f"Spawned {len(ids)} sub-agents: {listed}")

    def _delegate(self, parent: Conversation, action: DelegateAction) -> DelegateObservation:
        tasks = action.tasks or {}
        if not tasks:
            return _answer(action, "`delegate` needs at least one task in `tasks`.", True)
        unknown = sorted(set(tasks) - set(self._agents))
        if unknown:
            known = ", ".join(self._agents) or "none (spawn them first)"
            return _answer(
                action, f"No sub-agent named {', '.join(unknown)}; known: {known}.", True
            )
        sender = getattr(getattr(parent, "_visualizer", None), "name", None)
        answers: dict[str, str] = {}
        failed: set[str] = set()

        def work(name: str, task: str) -> None:
            sub = self._agents[name]
            self._busy.add(name)
            try:
                sub.send_message(task, sender=sender)
                run_sub_conversation(sub, name, self._confirm)
                answers[name] = get_agent_final_response(sub.state.events) or "(no answer)"
            except Exception as e:  # noqa: BLE001 (reported with the other results)
                logger.warning("sub-agent %r failed: %s", name, e)
                answers[name] = f"failed: {e}"
                failed.add(name)
            finally:
                self._busy.discard(name)

        threads = [threading.Thread(target=work, args=item, name=f"delegate-{item[0]}")
                   for item in tasks.items()]  # fmt: skip
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for name in tasks:  # cumulative per sub-agent: replaced, not added
            metrics = self._agents[name].conversation_stats.get_combined_metrics()
            parent.conversation_stats.usage_to_metrics[f"delegate:{name}"] = metrics
        head = f"Delegated {len(tasks)} tasks" + (f"; {len(failed)} failed" if failed else "")
        lines = [f"{i}. {name}: {answers[name]}" for i, name in enumerate(tasks, 1)]
        return _answer(action, "\n".join([f"{head}.", "", "Results:", *lines]))

    def interrupt(self) -> None:
        """Interrupt the sub-agents working on a task now (idle ones are left alone)."""
        for name in list(self._busy):
            self._agents[name].interrupt()

    def close(self) -> None:
        for sub in self._agents.values():
            sub.close()
        self._agents.clear()


def _answer(action: DelegateAction, text: str, error: bool = False) -> DelegateObservation:
    result: DelegateObservation = DelegateObservation.from_text(
        text, is_error=error, command=action.command
    )
    return result


DESCRIPTION = """Works with named sub-agents: separate agents, each in its own conversation with its own tools.

* `spawn` creates them: `ids` names each one; `agent_types` gives, in the same order, the registered type of each (blank or missing: the default agent).
{agent_types}
* `delegate` gives each named sub-agent one task (`tasks`: name -> task) and waits until all have answered; they work at the same time. A sub-agent remembers its earlier tasks.
* A sub-agent sees only its task: say exactly what to do and what to report back."""


@register_tool
class DelegateTool(ToolDefinition[DelegateAction, DelegateObservation]):
    """The ``delegate`` tool (``max_children``, ``confirmation_handler`` as parameters)."""

    name = "delegate"

    @classmethod
    def create(cls, ctx: ToolContext | None = None, **params: Any) -> list[RuntimeTool]:
        from trajkit.sdk.subagent import get_factory_info

        types = get_factory_info()
        return [
            cls(
                description=DESCRIPTION.format(agent_types=f"  Types:\n{types}"),
                action_type=DelegateAction,
                observation_type=DelegateObservation,
                annotations={"title": "delegate", "readOnlyHint": False, "destructiveHint": True,
                             "idempotentHint": False, "openWorldHint": True},
                executor=DelegateExecutor(**params),
            )
        ]  # fmt: skip
