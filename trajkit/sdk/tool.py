"""Tools: the persisted spec (`Tool`), the runtime base (`RuntimeTool`) and the registry.

``agent.tools`` holds `Tool` specs (``{"name": "terminal", "params": {}}``), exactly what
``base_state.json`` stores. When a conversation starts, each spec is resolved through the
registry into live `RuntimeTool` objects bound to a `ToolContext` (working directory and
conversation folder). Built-in names resolve by importing their module on first use, so
``Tool(name="terminal")`` works without importing ``trajkit.tools.terminal`` first.

A `RuntimeTool` knows what the LLM is offered (name, description, JSON Schema with the
``security_risk``/``summary`` arguments the SDK adds) and what the SystemPromptEvent records
(`trajkit.events.ToolDefinition`), parses a call's arguments into its Action payload, and
executes it into an Observation payload.
"""

from __future__ import annotations

import importlib
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from trajkit.events import Action, Observation, ToolDefinition

__all__ = [
    "SECURITY_RISK_SCHEMA",
    "SUMMARY_SCHEMA",
    "RuntimeTool",
    "Tool",
    "ToolContext",
    "register_tool",
    "registered_tool_names",
    "resolve_tool",
]

SECURITY_RISK_SCHEMA: dict[str, Any] = {
    "type": "string",
    "description": "Security risk levels for actions.\n\nBased on OpenHands security risk levels "
    "but adapted for agent-sdk.\nInteger values allow for easy comparison and ordering.",
    "enum": ["UNKNOWN", "LOW", "MEDIUM", "HIGH"],
}
SUMMARY_SCHEMA: dict[str, Any] = {
    "type": "string",
    "description": "A concise summary (approximately 10 words) describing what this specific "
    "action does. Focus on the key operation and target. Example: 'List all Python files in "
    "current directory'",
}


class Tool(BaseModel):
    """A tool as the agent configuration names it (persisted in ``agent.tools``)."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    name: str
    """Registry name, e.g. ``terminal`` or ``file_editor``."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments for the tool's ``create``."""


@dataclass(frozen=True)
class ToolContext:
    """What a tool needs to know about where it runs."""

    working_dir: str
    """The workspace folder (commands start here, relative paths resolve here)."""
    conversation_dir: str | None = None
    """The conversation folder ``<persistence_dir>/<hex id>``, if persisted."""
    env: dict[str, str] | None = None
    """Environment for processes (default: the current one)."""
    secrets: Any = None
    """The conversation's `trajkit.sdk.secrets.SecretRegistry`: the terminal exports the secrets
    a command names and hides their values in its output."""

    @property
    def observations_dir(self) -> str | None:
        """``<conversation_dir>/observations``: full outputs truncated for the LLM."""
        if self.conversation_dir is None:
            return None
        return str(Path(self.conversation_dir) / "observations")


class RuntimeTool(ABC):
    """A live tool: offered to the LLM, turns calls into actions and actions into observations."""

    name: ClassVar[str]
    """Name the LLM calls."""
    action_type: ClassVar[type[Action]]
    observation_type: ClassVar[type[Observation]]
    annotations: ClassVar[dict[str, Any] | None] = None
    """MCP-style hints; ``readOnlyHint`` true means no ``security_risk`` argument."""
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}
    """JSON Schema of the action's own arguments (without security_risk/summary)."""

    description: str = ""

    @classmethod
    def create(cls, ctx: ToolContext, **params: Any) -> list[RuntimeTool]:
        """Build the live tool(s) for a spec; most tools give exactly one."""
        return [cls(ctx, **params)]  # type: ignore[call-arg]

    @property
    def kind(self) -> str:
        """Tool class name as the SystemPromptEvent records it (``TerminalTool``)."""
        return type(self).__name__

    @property
    def read_only(self) -> bool:
        return bool((self.annotations or {}).get("readOnlyHint"))

    def parameters_schema(self) -> dict[str, Any]:
        """The schema sent to the LLM: security_risk (unless read-only), summary, own args."""
        props: dict[str, Any] = {}
        if not self.read_only:
            props["security_risk"] = SECURITY_RISK_SCHEMA
        props["summary"] = SUMMARY_SCHEMA
        props.update(self.parameters.get("properties", {}))
        schema: dict[str, Any] = {"type": "object", "properties": props}
        if self.parameters.get("required"):
            schema["required"] = list(self.parameters["required"])
        return schema

    def to_chat_tool(self) -> dict[str, Any]:
        """Chat Completions ``tools`` entry."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters_schema(),
            },
        }

    def to_responses_tool(self) -> dict[str, Any]:
        """Responses API ``tools`` entry."""
        return {
            "type": "function",
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters_schema(),
            "strict": False,
        }

    def definition(self) -> ToolDefinition:
        """What the SystemPromptEvent records for this tool."""
        data: dict[str, Any] = {
            "description": self.description,
            "action_type": self.action_type.__name__,
            "observation_type": self.observation_type.__name__,
        }
        if self.annotations is not None:
            data["annotations"] = self.annotations
        data["kind"] = self.kind
        data["title"] = (self.annotations or {}).get("title") or self.name
        return ToolDefinition.model_validate(data)

    def action_from_arguments(self, arguments: dict[str, Any]) -> Action:
        """Validate the LLM's arguments (minus security_risk/summary) into the action payload."""
        args = {k: v for k, v in arguments.items() if k not in ("security_risk", "summary")}
        return self.action_type.model_validate(args)

    @abstractmethod
    def __call__(self, action: Action) -> Observation:
        """Execute ``action``. Errors the LLM should read are observations with is_error."""

    def close(self) -> None:  # noqa: B027 (optional hook)
        """Release processes or files."""


ToolFactory = Callable[..., list[RuntimeTool]]
_REGISTRY: dict[str, type[RuntimeTool]] = {}
_BUILTIN_MODULES = {
    "terminal": "trajkit.tools.terminal",
    "TerminalTool": "trajkit.tools.terminal",
    "file_editor": "trajkit.tools.file_editor",
    "FileEditorTool": "trajkit.tools.file_editor",
    "task_tracker": "trajkit.tools.task_tracker",
    "TaskTrackerTool": "trajkit.tools.task_tracker",
    "finish": "trajkit.sdk.builtins",
    "FinishTool": "trajkit.sdk.builtins",
    "think": "trajkit.sdk.builtins",
    "ThinkTool": "trajkit.sdk.builtins",
}


def register_tool(cls: type[RuntimeTool]) -> type[RuntimeTool]:
    """Class decorator: make ``cls`` resolvable by its ``name`` and its class name."""
    _REGISTRY[cls.name] = cls
    _REGISTRY[cls.__name__] = cls
    return cls


def registered_tool_names() -> list[str]:
    return sorted({c.name for c in _REGISTRY.values()})


def _lookup(name: str) -> type[RuntimeTool]:
    if name not in _REGISTRY and name in _BUILTIN_MODULES:
        importlib.import_module(_BUILTIN_MODULES[name])
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(registered_tool_names() + sorted(set(_BUILTIN_MODULES) - set(_REGISTRY)))
        raise ValueError(f"unknown tool {name!r}; known tools: {known}") from None


def resolve_tool(spec: Tool | str, ctx: ToolContext) -> list[RuntimeTool]:
    """Live tools for a spec (or a bare name)."""
    if isinstance(spec, str):
        spec = Tool(name=spec)
    return _lookup(spec.name).create(ctx, **spec.params)


def default_summary(tool_name: str, arguments_text: str) -> str:
    """The SDK's summary when the LLM gave none: ``<tool>: <arguments JSON>``."""
    return f"{tool_name}: {arguments_text}"


def parse_arguments(text: str) -> dict[str, Any]:
    """Arguments JSON text into a dict; raises ValueError with a readable reason."""
    try:
        value = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as e:
        raise ValueError(f"arguments are not valid JSON ({e.msg} at position {e.pos})") from None
    if not isinstance(value, dict):
        raise ValueError(f"arguments must be a JSON object, got {type(value).__name__}")
    return value


def workspace_path(path: str | os.PathLike[str]) -> str:
    return str(Path(path).expanduser().resolve())
