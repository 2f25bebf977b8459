"""Tools: the persisted spec, the live tool, the custom-tool bases, the registry, the built-ins.

At the SDK's paths: `trajkit.sdk.tool.spec` (`Tool`, what ``agent.tools`` stores),
`trajkit.sdk.tool.tool` (`RuntimeTool`, `ToolContext`, `ToolDefinition`, `ToolExecutor`),
`trajkit.sdk.tool.schema` (`Action`, `Observation`), `trajkit.sdk.tool.registry`
(`register_tool`, `resolve_tool`) `trajkit.sdk.tool.builtins` (``finish``, ``think``) and `trajkit.sdk.tool.client_tool`.
"""

from trajkit.sdk.tool.builtins import BUILT_IN_TOOLS, FinishTool, ThinkTool
from trajkit.sdk.tool.client_tool import ClientTool, ClientToolSpec
from trajkit.sdk.tool.registry import register_tool, registered_tool_names, resolve_tool
from trajkit.sdk.tool.schema import Action, Observation
from trajkit.sdk.tool.spec import Tool
from trajkit.sdk.tool.tool import (
    RuntimeTool,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolExecutor,
)

__all__ = [
    "BUILT_IN_TOOLS",
    "Action",
    "ClientTool",
    "ClientToolSpec",
    "FinishTool",
    "Observation",
    "RuntimeTool",
    "ThinkTool",
    "Tool",
    "ToolAnnotations",
    "ToolContext",
    "ToolDefinition",
    "ToolExecutor",
    "register_tool",
    "registered_tool_names",
    "resolve_tool",
]
