"""``WorkflowToolSet``: the ``workflow`` tool, which runs a short Python script the model writes
to fan work out to registered sub-agents (`trajkit.tools.workflow.impl`) and answers with what
the script returns.

Offered to the LLM as ``workflow`` with ``name``, ``script`` and ``max_concurrency``; the action
and observation are persisted as ``WorkflowAction`` / ``WorkflowObservation`` (``name``,
``status``), the names the SDK writes.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from trajkit.sdk.tool import (
    Action,
    Observation,
    RuntimeTool,
    ToolContext,
    ToolDefinition,
    ToolExecutor,
    register_tool,
)
from trajkit.tools.workflow.impl import WorkflowContext, WorkflowScriptError, run_workflow_script

if TYPE_CHECKING:
    from trajkit.sdk.conversation.base import BaseConversation

__all__ = [
    "WorkflowAction",
    "WorkflowExecutor",
    "WorkflowObservation",
    "WorkflowTool",
    "WorkflowToolSet",
]

logger = logging.getLogger(__name__)


class WorkflowAction(Action):
    """One workflow run: a script whose ``async def main(wf)`` drives sub-agents."""

    name: str = Field(description="A short label for this run.")
    script: str = Field(
        description="Python source defining `async def main(wf):`; it works only through `wf`."
    )
    max_concurrency: int = Field(
        default=8,
        ge=1,
        le=64,
        description="How many sub-agents may run at once (2-4 keeps model rate limits at bay).",
    )


class WorkflowObservation(Observation):
    """What the script's ``main`` returned (``completed``), or why it stopped (``error``)."""

    name: str = Field(description="The label of the run.")
    status: Literal["completed", "error"] = Field(description="How the run ended.")


DESCRIPTION = """Runs a workflow: a small Python program you write that hands pieces of a large job to sub-agents, in parallel where they are independent, and combines what they report. Use it for broad jobs (audits over many folders, several independent reviews, a sweep for one kind of problem) whose intermediate results need not pass through this conversation.

The script must define exactly one entry point, `async def main(wf):`, and do all its work through `wf`; what `main` returns is the tool's result. The script itself does no engineering work: no imports, no files, no shell, no private or dunder attributes (these are refused before it runs). Sub-agents do the work with their own tools.

`wf` offers:
- `await wf.run_agent(prompt, subagent_type="general-purpose", description=None)`: one sub-agent, its final answer as a string.
- `await wf.map_agents(items, prompt, subagent_type="general-purpose", max_concurrency=None, description=None)`: one sub-agent per item, answers in item order. `prompt` is a function of the item or a string in which `{item}` is replaced (items that are not strings as JSON). If any item fails, the call raises one exception listing every failure; to keep partial results, ask the sub-agents to report a failure as text.
- `await wf.reduce_agent(items, prompt, subagent_type="general-purpose", description=None)`: one sub-agent given the prompt followed by the items as JSON (long inputs are cut to fit).
- `await wf.pipeline(items, *stages)`: each item goes through the stages (plain or async functions) on its own, without waiting for the other items; an item whose stage raises becomes `None`.
- `wf.flatten(values)`: one level of nested lists made flat.

`subagent_type` names a registered sub-agent type. `print()` goes to the application's log, not to your result.

Example:
```python
async def main(wf):
    areas = ["src/api", "src/db"]
    notes = await wf.map_agents(areas, "List untested functions under {item}.", max_concurrency=2)
    return await wf.reduce_agent(notes, "Rank these gaps by risk.")
```

The script runs inside this process after checks that are best effort: running a workflow means approving the code it contains."""


class WorkflowExecutor(ToolExecutor[WorkflowAction, WorkflowObservation]):
    """Runs one `WorkflowAction` in the calling conversation."""

    def __init__(self) -> None:
        self._running: set[WorkflowContext] = set()

    def __call__(
        self, action: WorkflowAction, conversation: BaseConversation | None = None
    ) -> WorkflowObservation:
        from trajkit.sdk.conversation.local import Conversation

        def answer(text: str, status: str) -> WorkflowObservation:
            result: WorkflowObservation = WorkflowObservation.from_text(
                text, is_error=status == "error", name=action.name, status=status
            )
            return result

        if not isinstance(conversation, Conversation):
            return answer("The workflow tool runs only inside a local conversation.", "error")
        wf = WorkflowContext(conversation, action.max_concurrency)
        self._running.add(wf)
        try:
            return answer(str(run_workflow_script(action.script, wf)), "completed")
        except Exception as e:  # noqa: BLE001 (the model reads why its workflow failed)
            logger.warning("workflow %r failed: %s", action.name, e)
            return answer(_describe(e), "error")
        finally:
            self._running.discard(wf)
            wf.close()

    def interrupt(self) -> None:
        """Stop the workflows running now (the conversation was interrupted)."""
        for wf in list(self._running):
            wf.interrupt()


def _describe(error: BaseException) -> str:
    """What the model reads when its workflow failed."""
    if isinstance(error, BaseExceptionGroup):
        return "\n".join([error.message, *(f"  - {e}" for e in error.exceptions)])
    if isinstance(error, WorkflowScriptError):
        return str(error)
    return f"{type(error).__name__}: {error}"


class WorkflowTool(ToolDefinition[WorkflowAction, WorkflowObservation]):
    """The ``workflow`` tool itself (``WorkflowToolSet`` is what agents name)."""

    name = "workflow"

    @classmethod
    def create(cls, ctx: ToolContext | None = None, **params: Any) -> list[RuntimeTool]:
        """One workflow tool; ``executor`` and ``description`` may be given."""
        return [
            cls(
                description=params.get("description", DESCRIPTION),
                action_type=WorkflowAction,
                observation_type=WorkflowObservation,
                annotations={"title": "workflow", "readOnlyHint": False, "destructiveHint": True,
                             "idempotentHint": False, "openWorldHint": True},
                executor=params.get("executor") or WorkflowExecutor(),
            )
        ]  # fmt: skip


@register_tool
class WorkflowToolSet(WorkflowTool):
    """``Tool(name=WorkflowToolSet.name)``: gives the agent the ``workflow`` tool."""

    name = "workflow_tool_set"

    @classmethod
    def create(cls, ctx: ToolContext | None = None, **params: Any) -> list[RuntimeTool]:
        return WorkflowTool.create(ctx)


register_tool(WorkflowTool)
