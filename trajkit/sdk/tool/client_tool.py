"""Client-defined tools: declared as JSON (`ClientToolSpec`), carried out by the program that
runs the conversation, not by trajkit.

``Conversation(client_tools=[ClientToolSpec(...)])`` offers each spec to the LLM with its own
JSON Schema: it joins the agent's tools (after those it has, before the built-ins) as
``Tool(name=<name>, params={"spec": ...})``, so ``base_state.json`` keeps the schema, as the
SDK's does, and a restored conversation offers them again from there (`saved_client_tools`)
without ``client_tools=`` given again. A call is recorded as an ``ActionEvent`` whose action is the arguments (kind
``ClientAction_<name>``), which callbacks see and act on; the tool answers at once with a
``ClientToolObservation`` saying the call was handed over, so the run goes on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from trajkit.events import TextContent, UnknownAction, UnknownObservation
from trajkit.sdk.tool.registry import register_tool, registered_tool_names
from trajkit.sdk.tool.spec import Tool
from trajkit.sdk.tool.tool import RuntimeTool, ToolContext

__all__ = ["HANDED_OVER", "ClientTool", "ClientToolSpec", "client_tool_specs", "saved_client_tools"]

HANDED_OVER = "Tool call dispatched to client."
"""The acknowledgement the model reads: the SDK's, as a result format (as ``think``'s)."""


class ClientToolSpec(BaseModel):
    """One tool the client defines: its name, what the LLM reads about it, its parameters."""

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    """A JSON Schema object for the call's arguments."""
    annotations: dict[str, Any] | None = None
    """MCP-style hints; without ``readOnlyHint`` the call also asks for a ``security_risk``."""

    @field_validator("parameters")
    @classmethod
    def _object_schema(cls, v: dict[str, Any]) -> dict[str, Any]:
        if v.get("type") != "object":
            raise ValueError(
                f"parameters must be an object JSON Schema, got type={v.get('type')!r}"
            )
        return v


class ClientTool(RuntimeTool):
    """A `ClientToolSpec` offered to the LLM; its calls are acknowledged, not run."""

    action_type = UnknownAction
    observation_type = UnknownObservation

    def __init__(self, spec: ClientToolSpec) -> None:
        self.spec = spec
        self.name = spec.name
        self.description = spec.description
        self.parameters = spec.parameters
        self.annotations = spec.annotations

    @property
    def kind(self) -> str:
        return "ClientTool"

    def action_from_arguments(self, arguments: dict[str, Any]) -> UnknownAction:
        args = {k: v for k, v in arguments.items() if k not in ("security_risk", "summary")}
        return UnknownAction.model_validate({**args, "kind": f"ClientAction_{self.name}"})

    def __call__(self, action: Any) -> UnknownObservation:
        return UnknownObservation.model_validate(
            {
                "content": [TextContent(text=HANDED_OVER)],
                "is_error": False,
                "kind": "ClientToolObservation",
            }
        )

    def resource_key(self, action: Any) -> str | None:
        del action
        return None


_CLIENT_NAMES: set[str] = set()
"""Names registered here (each resolves any client spec given in its params)."""


def _resolve(ctx: ToolContext, *, spec: dict[str, Any]) -> list[RuntimeTool]:
    del ctx
    return [ClientTool(ClientToolSpec.model_validate(spec))]


def client_tool_specs(specs: Sequence[ClientToolSpec]) -> list[Tool]:
    """Each spec as an agent's ``Tool`` carrying its schema; the name resolves to a
    `ClientTool` built from that schema (one stateless resolver per name).

    Raises:
        ValueError: a spec takes the name of a tool that is not client-defined.
    """
    out = []
    for spec in specs:
        if spec.name not in _CLIENT_NAMES:
            if spec.name in registered_tool_names():
                raise ValueError(f"client tool {spec.name!r} has the name of a registered tool")
            register_tool(spec.name, _resolve)
            _CLIENT_NAMES.add(spec.name)
        out.append(Tool(name=spec.name, params={"spec": spec.model_dump(mode="json")}))
    return out


def saved_client_tools(state: Mapping[str, Any] | None) -> list[ClientToolSpec]:
    """The client tools a saved base state's agent holds: each ``Tool`` whose ``params.spec``
    is a `ClientToolSpec` of the tool's own name (another tool's ``spec`` param is not one).
    """
    agent = (state or {}).get("agent")
    tools = agent.get("tools") if isinstance(agent, Mapping) else None
    found = []
    for tool in tools if isinstance(tools, list) else []:
        params = tool.get("params") if isinstance(tool, Mapping) else None
        raw = params.get("spec") if isinstance(params, Mapping) else None
        if not isinstance(raw, Mapping):
            continue
        try:
            spec = ClientToolSpec.model_validate(raw)
        except ValidationError:
            continue
        if spec.name == tool.get("name"):
            found.append(spec)
    return found
