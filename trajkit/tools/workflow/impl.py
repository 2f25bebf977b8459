"""Running a workflow script: check it, give it a `WorkflowContext` (``wf``) and run its
``main`` on an event loop of its own (`trajkit.tools.workflow.definition` turns the outcome into
the tool's observation).

Each sub-agent is a task of a `trajkit.tools.task.TaskManager` attached to the calling
conversation, so its conversation is persisted as the task tool's are (``subagents/<hex>/``
under the parent's folder) and its usage is counted in the parent's stats. Sub-agent runs
block, so each goes to a worker thread; a semaphore bounds how many run at once.

The script is model-written code executed in this process. `check_workflow_script` refuses
what a workflow never needs (imports, dunder names and attributes, ``wf``'s private parts,
introspection and code-running builtins) and it runs with a short list of builtins, but this
is a guard against mistakes, not a sandbox: the tool is annotated destructive so a security
analyzer and confirmation mode see it as such.
"""

from __future__ import annotations

import ast
import asyncio
import builtins
import concurrent.futures
import inspect
import json
import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from trajkit.tools.task.manager import TaskManager

if TYPE_CHECKING:
    from trajkit.sdk.conversation.local import Conversation

__all__ = [
    "WorkflowContext",
    "WorkflowScriptError",
    "check_workflow_script",
    "run_workflow_script",
]

logger = logging.getLogger(__name__)

MAX_SCRIPT_CHARS = 20_000
"""Longer scripts are refused."""
MAX_REDUCE_INPUT_CHARS = 12_000
"""What `WorkflowContext.reduce_agent` gives the reducer at most (whole items dropped first)."""
WORKFLOW_TIMEOUT = 3600.0
"""Seconds one workflow may run."""

_REFUSED_CALLS = frozenset(
    {"breakpoint", "compile", "delattr", "dir", "eval", "exec", "getattr", "globals",
     "input", "locals", "open", "setattr", "vars"}
)  # fmt: skip
_ALLOWED_BUILTINS = frozenset(
    {"abs", "all", "any", "bool", "dict", "enumerate", "Exception", "float", "format",
     "IndexError", "int", "isinstance", "KeyError", "len", "list", "max", "min", "print",
     "range", "repr", "round", "RuntimeError", "set", "sorted", "str", "sum", "tuple", "type",
     "TypeError", "ValueError", "zip"}
)  # fmt: skip


class WorkflowScriptError(ValueError):
    """A workflow script that is refused before it runs, or that did not finish in time."""


# -- the script --------------------------------------------------------------------------


def check_workflow_script(script: str) -> None:
    """Raise `WorkflowScriptError` unless ``script`` defines one ``async def main(wf)`` and
    stays away from what a workflow never needs.
    """
    if len(script) > MAX_SCRIPT_CHARS:
        raise WorkflowScriptError(
            f"the script has {len(script)} characters; at most {MAX_SCRIPT_CHARS} are accepted"
        )
    try:
        tree = ast.parse(script)
    except SyntaxError as e:
        raise WorkflowScriptError(f"the script is not valid Python: {e}") from None
    mains = [n for n in tree.body if isinstance(n, ast.AsyncFunctionDef) and n.name == "main"]
    if len(mains) != 1:
        raise WorkflowScriptError("the script must define `async def main(wf):` exactly once")
    args = mains[0].args
    extra = args.posonlyargs or args.kwonlyargs or args.vararg or args.kwarg or args.defaults
    if [a.arg for a in args.args] != ["wf"] or extra:
        raise WorkflowScriptError("the entry point must take one argument: `async def main(wf):`")
    for node in ast.walk(tree):
        problem = _refused(node)
        if problem:
            raise WorkflowScriptError(f"line {getattr(node, 'lineno', '?')}: {problem}")


def _refused(node: ast.AST) -> str | None:
    """Why one node of a script is refused, or None."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return "workflow scripts cannot import modules"
    if isinstance(node, ast.Name) and node.id.startswith("__"):
        return f"`{node.id}` is not available to workflow scripts"
    if isinstance(node, ast.Attribute):
        if node.attr.startswith("__"):
            return f"attribute `{node.attr}` is not available to workflow scripts"
        root = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id == "wf" and not _public(node.attr):
            return f"`wf.{node.attr}` is not part of the workflow interface"
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _REFUSED_CALLS
    ):
        return f"workflow scripts cannot call `{node.func.id}`"
    return None


def _public(attr: str) -> bool:
    return attr in ("run_agent", "map_agents", "reduce_agent", "pipeline", "flatten")


def run_workflow_script(
    script: str, wf: WorkflowContext, *, timeout: float = WORKFLOW_TIMEOUT
) -> Any:
    """Check the script, run its ``main(wf)`` to the end (at most ``timeout`` seconds) and
    return what it returned. Blocks; callable from a thread that runs an event loop.
    """
    check_workflow_script(script)
    namespace: dict[str, Any] = {}
    allowed = {name: getattr(builtins, name) for name in _ALLOWED_BUILTINS}
    exec(compile(script, "<workflow>", "exec"), {"__builtins__": allowed}, namespace)  # noqa: S102 (the tool's purpose; checked above)
    main = namespace.get("main")
    if not inspect.iscoroutinefunction(main):
        raise WorkflowScriptError("`main` must be defined with `async def`")

    async def bounded() -> Any:
        try:
            return await asyncio.wait_for(main(wf), timeout)
        except TimeoutError:
            raise WorkflowScriptError(f"the workflow did not finish within {timeout:g}s") from None

    return _run_to_end(bounded())


def _run_to_end(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """``asyncio.run``, in a thread of its own when this thread already runs a loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


# -- wf ----------------------------------------------------------------------------------


class WorkflowContext:
    """``wf``: what a workflow script may do, each sub-agent a task of ``manager``."""

    def __init__(
        self,
        conversation: Conversation | None,
        max_concurrency: int = 8,
        manager: TaskManager | None = None,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self._conversation = conversation
        self._limit = max_concurrency
        self._manager = manager or TaskManager()
        self._shared: asyncio.Semaphore | None = None  # made on the script's loop
        self._closed = False

    def _semaphore(self, limit: int | None = None) -> asyncio.Semaphore:
        if limit is not None:
            if limit < 1:
                raise ValueError("max_concurrency must be at least 1")
            return asyncio.Semaphore(min(limit, self._limit))
        if self._shared is None:
            self._shared = asyncio.Semaphore(self._limit)
        return self._shared

    async def run_agent(
        self, prompt: str, subagent_type: str = "general-purpose", description: str | None = None
    ) -> str:
        """One sub-agent on ``prompt``; its final answer. Raises RuntimeError if it failed."""
        async with self._semaphore():
            return await self._task(prompt, subagent_type, description)

    async def _task(self, prompt: str, subagent_type: str, description: str | None) -> str:
        if self._closed:
            raise WorkflowScriptError("this workflow has ended")
        task = await asyncio.to_thread(
            self._manager.start_task,
            prompt=prompt,
            subagent_type=subagent_type,
            description=description,
            conversation=self._conversation,
        )
        if task.status != "completed":
            raise RuntimeError(task.error or f"sub-agent task {task.id} failed")
        return task.result or ""

    async def map_agents(
        self,
        items: Sequence[Any],
        prompt: Callable[[Any], str] | str,
        subagent_type: str = "general-purpose",
        max_concurrency: int | None = None,
        description: Callable[[Any], str] | str | None = None,
    ) -> list[str]:
        """One sub-agent per item, answers in item order; an ExceptionGroup names every
        item that failed.
        """
        gate = self._semaphore(max_concurrency)

        async def one(index: int, item: Any) -> str:
            text = _render(prompt, item)
            label = None if description is None else _render(description, item)
            async with gate:
                try:
                    return await self._task(text, subagent_type, label)
                except Exception as e:
                    raise RuntimeError(f"item {index + 1}: {e}") from e

        results = await asyncio.gather(
            *(one(i, item) for i, item in enumerate(items)), return_exceptions=True
        )
        failed = [r if isinstance(r, Exception) else RuntimeError(str(r))
                  for r in results if isinstance(r, BaseException)]  # fmt: skip
        if failed:
            raise ExceptionGroup(
                f"map_agents: {len(failed)} of {len(results)} items failed", failed
            )
        return [str(r) for r in results]

    async def reduce_agent(
        self,
        items: Any,
        prompt: str,
        subagent_type: str = "general-purpose",
        description: str | None = None,
    ) -> str:
        """One sub-agent given ``prompt`` and then ``items`` as JSON (bounded in size)."""
        return await self.run_agent(f"{prompt}\n\nInput:\n{_bounded_json(items)}",
                                    subagent_type, description)  # fmt: skip

    async def pipeline(self, items: Sequence[Any], *stages: Callable[[Any], Any]) -> list[Any]:
        """Each item through every stage on its own (no waiting for the other items); an item
        whose stage raises becomes None.
        """
        if not stages:
            raise ValueError("pipeline needs at least one stage")

        async def through(index: int, value: Any) -> Any:
            try:
                for stage in stages:
                    value = stage(value)
                    if inspect.isawaitable(value):
                        value = await value
                return value
            except Exception as e:  # noqa: BLE001 (the item is dropped, the others go on)
                logger.warning("workflow pipeline: item %d dropped: %s", index + 1, e)
                return None

        return list(await asyncio.gather(*(through(i, it) for i, it in enumerate(items))))

    def flatten(self, values: Sequence[Any]) -> list[Any]:
        """Lists inside ``values`` spread into it (one level)."""
        out: list[Any] = []
        for value in values:
            if isinstance(value, list):
                out.extend(value)
            else:
                out.append(value)
        return out

    def interrupt(self) -> None:
        """Stop the sub-agents running now and start no more (the conversation was
        interrupted); the script then fails on its next sub-agent call.
        """
        self._closed = True
        self._manager.interrupt()

    def close(self) -> None:
        """End the workflow: no more sub-agents; the task manager's temporary files go."""
        self._closed = True
        self._manager.close()


def _render(template: Callable[[Any], str] | str, item: Any) -> str:
    """A prompt for one item: the function's result, or ``{item}`` replaced (literally, so
    ``{item.x}`` cannot reach attributes) by the item, as JSON unless it is a string.
    """
    if callable(template):
        return str(template(item))
    value = item if isinstance(item, str) else json.dumps(item, default=str)
    return template.replace("{item}", value)


def _bounded_json(value: Any) -> str:
    """``value`` as JSON within `MAX_REDUCE_INPUT_CHARS`: trailing items of a list or object
    dropped whole (and counted) before any text is cut.
    """
    if not isinstance(value, list | dict):
        text = value if isinstance(value, str) else json.dumps(value, default=str)
        return _cut(text)
    entries: list[Any] = list(value.items()) if isinstance(value, dict) else list(value)

    def dump(kept: list[Any]) -> str:
        body = json.dumps(dict(kept) if isinstance(value, dict) else kept, indent=2, default=str)
        left = len(entries) - len(kept)
        return body if not left else f"{body}\n[{left} of {len(entries)} items left out: too long]"

    count, used = 0, 0
    for entry in entries:  # a first guess from each item's own size
        used += len(json.dumps(entry, default=str))
        if count and used > MAX_REDUCE_INPUT_CHARS:
            break
        count += 1
    kept = entries[:count]
    while len(kept) > 1 and len(dump(kept)) > MAX_REDUCE_INPUT_CHARS:
        kept = kept[:-1]
    return _cut(dump(kept))


def _cut(text: str) -> str:
    if len(text) <= MAX_REDUCE_INPUT_CHARS:
        return text
    return text[:MAX_REDUCE_INPUT_CHARS] + "\n[cut: the input was too long]"
