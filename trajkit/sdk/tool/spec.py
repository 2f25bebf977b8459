"""`Tool`: a tool as the agent configuration names it, what ``base_state.json`` stores."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializationInfo, field_serializer

__all__ = ["Tool"]


class Tool(BaseModel):
    """A tool as the agent configuration names it (persisted in ``agent.tools``)."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    name: str
    """Registry name, e.g. ``terminal`` or ``file_editor``."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments for the tool's ``create``."""

    @field_serializer("params")
    def _params_as_json(self, params: dict[str, Any], info: SerializationInfo) -> dict[str, Any]:
        """A ``response_schema`` model class is written as its JSON Schema."""
        schema = params.get("response_schema")
        if info.mode != "json" or not (isinstance(schema, type) and issubclass(schema, BaseModel)):
            return params
        return {**params, "response_schema": schema.model_json_schema()}
