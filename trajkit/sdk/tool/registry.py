"""The tool registry: ``Tool(name=...)`` resolves to live tools through it.

There is one registry and one function: the built-ins register through the same
`register_tool` (used as a class decorator) as custom tools. The tools of `trajkit.tools`
register when their module is imported, which `resolve_tool` does on first use of their name,
so ``Tool(name="terminal")`` works without importing ``trajkit.tools.terminal`` first.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from trajkit.sdk.tool.spec import Tool
from trajkit.sdk.tool.tool import RuntimeTool, ToolContext

__all__ = ["register_tool", "registered_tool_names", "resolve_tool"]

Resolver = Callable[..., list[RuntimeTool]]
"""``resolver(ctx, **params)`` -> the live tools for one spec."""
_REGISTRY: dict[str, Resolver] = {}
_NAMES: dict[str, str] = {}
"""Registered name -> the tool name it gives (for error messages)."""
_REGISTRY_LOCK = threading.Lock()
_TOOLS_MODULES = {
    "terminal": "trajkit.tools.terminal",
    "TerminalTool": "trajkit.tools.terminal",
    "file_editor": "trajkit.tools.file_editor",
    "FileEditorTool": "trajkit.tools.file_editor",
    "task_tracker": "trajkit.tools.task_tracker",
    "TaskTrackerTool": "trajkit.tools.task_tracker",
    "task_tool_set": "trajkit.tools.task",
    "TaskToolSet": "trajkit.tools.task",
    "task": "trajkit.tools.task",
    "TaskTool": "trajkit.tools.task",
    "browser_tool_set": "trajkit.tools.browser_use",
    "BrowserToolSet": "trajkit.tools.browser_use",
    "tom_consult": "trajkit.tools.tom_consult",
    "TomConsultTool": "trajkit.tools.tom_consult",
    "sleeptime_compute": "trajkit.tools.tom_consult",
    "SleeptimeComputeTool": "trajkit.tools.tom_consult",
    "glob": "trajkit.tools.glob",
    "GlobTool": "trajkit.tools.glob",
    "grep": "trajkit.tools.glob",
    "GrepTool": "trajkit.tools.glob",
    "delegate": "trajkit.tools.delegate",
    "DelegateTool": "trajkit.tools.delegate",
    "workflow_tool_set": "trajkit.tools.workflow",
    "WorkflowToolSet": "trajkit.tools.workflow",
    "workflow": "trajkit.tools.workflow",
    "WorkflowTool": "trajkit.tools.workflow",
    "planning_file_editor": "trajkit.tools.planning_file_editor",
    "PlanningFileEditorTool": "trajkit.tools.planning_file_editor",
}
"""Names of `trajkit.tools` and the module that registers them when imported."""
_T = TypeVar("_T", bound=type[RuntimeTool])


def register_tool(
    name: str | _T, factory: type[RuntimeTool] | RuntimeTool | Resolver | None = None
) -> Any:
    """Make ``Tool(name=name)`` resolve to ``factory``, the SDK's ``register_tool``.

    ``factory`` is a tool class (its ``create(conv_state, **params)`` is called), a live tool
    instance, or a function ``(conv_state, **params) -> [tools]``. Used bare as a class
    decorator (``@register_tool``), it registers the class under its ``name`` and class name.
    """
    if isinstance(name, type):
        _register(name.name, name)
        _register(name.__name__, name)
        return name
    if not isinstance(name, str) or not name.strip():
        raise ValueError("a tool name must be a non-empty string")
    if factory is None:
        raise TypeError("register_tool(name, factory): factory is missing")
    _register(name, factory)
    return None


def _register(name: str, factory: type[RuntimeTool] | RuntimeTool | Resolver) -> None:
    resolver: Resolver
    if isinstance(factory, type) and issubclass(factory, RuntimeTool):
        cls = factory

        def resolver(ctx: ToolContext, **params: Any) -> list[RuntimeTool]:
            return list(cls.create(ctx, **params))

    elif isinstance(factory, RuntimeTool):
        tool = factory

        def resolver(ctx: ToolContext, **params: Any) -> list[RuntimeTool]:
            if params:
                raise ValueError(f"tool {name!r} was registered as an instance: it takes no params")
            return [tool]

    elif callable(factory):
        function: Callable[..., Sequence[RuntimeTool]] = factory  # type: ignore[assignment]

        def resolver(ctx: ToolContext, **params: Any) -> list[RuntimeTool]:
            return list(function(ctx, **params))

    else:
        raise TypeError(
            "register_tool accepts a tool class with create(conv_state, **params), a tool "
            f"instance or a factory function; got {type(factory).__name__}"
        )
    with _REGISTRY_LOCK:
        _REGISTRY[name] = resolver
        given = getattr(factory, "name", None)
        _NAMES[name] = given if isinstance(given, str) and given else name


def registered_tool_names() -> list[str]:
    """The tool names registered so far, sorted."""
    return sorted(set(_NAMES.values()))


def _lookup(name: str) -> Resolver:
    if name not in _REGISTRY and name in _TOOLS_MODULES:
        importlib.import_module(_TOOLS_MODULES[name])
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(
            sorted(set(registered_tool_names()) | {n for n in _TOOLS_MODULES if n.islower()})
        )
        raise ValueError(f"unknown tool {name!r}; known tools: {known}") from None


def resolve_tool(spec: Tool | str, ctx: ToolContext) -> list[RuntimeTool]:
    """Live tools for a spec (or a bare name)."""
    if isinstance(spec, str):
        spec = Tool(name=spec)
    return _lookup(spec.name)(ctx, **spec.params)
