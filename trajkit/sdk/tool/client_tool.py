"""Client-defined tools: declared as JSON (`ClientToolSpec`), carried out by the program that
runs the conversation, not by trajkit.

``Conversation(client_tools=[ClientToolSpec(...)])`` offers each spec to the LLM with its own
JSON Schema. A call is recorded as an ``ActionEvent`` whose action is the arguments (kind
``ClientAction_<name>``), which callbacks see and act on; the tool answers at once with a
``ClientToolObservation`` saying the call was handed over, so the run goes on.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from trajkit.events import TextContent, UnknownAction, UnknownObservation
from trajkit.sdk.tool.tool import RuntimeTool

__all__ = ["HANDED_OVER", "ClientTool", "ClientToolSpec"]

HANDED_OVER = "The call was handed to the client, which carries it out."


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
