"""Structured output (``response_schema``): fields a tool spec asks the model to fill in on every
call besides the tool's own arguments, as the SDK's ``Tool(params={"response_schema": ...})``.

The schema is a pydantic model class or an object JSON Schema. Its properties are offered with
the tool's parameters; a call's values for them are validated and kept apart from the action
(the action holds the tool's own arguments only), and read back with the tool's
``parse_response(action)`` or ``parse_last_response(events)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from trajkit.convert.tools import simplify_schema

__all__ = ["ResponseSchema", "response_fields", "split_response", "validate_response"]

ResponseSchema = type[BaseModel] | dict[str, Any]


def response_fields(schema: ResponseSchema) -> dict[str, Any]:
    """The object schema whose properties the model fills in (``$ref`` resolved).

    Raises:
        TypeError: neither a pydantic model class nor a JSON Schema object.
        ValueError: not an object schema with named properties.
    """
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        raw = schema.model_json_schema()
    elif isinstance(schema, Mapping):
        raw = dict(schema)
    else:
        raise TypeError("response_schema must be a pydantic model class or a JSON Schema")
    simple = simplify_schema(raw, raw.get("$defs", {}))
    if simple.get("type", "object") != "object" or not simple.get("properties"):
        raise ValueError("response_schema must be an object schema with named properties")
    return {"properties": simple["properties"], "required": list(simple.get("required", []))}


def split_response(
    schema: ResponseSchema, arguments: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A call's arguments as (the tool's own, the response fields validated).

    Raises:
        ValueError: the response fields do not satisfy ``schema``.
    """
    names = set(response_fields(schema)["properties"])
    own = {k: v for k, v in arguments.items() if k not in names}
    values = {k: v for k, v in arguments.items() if k in names}
    validated = validate_response(schema, values)
    if isinstance(validated, BaseModel):
        return own, validated.model_dump(mode="json")
    return own, validated


def validate_response(schema: ResponseSchema, values: Mapping[str, Any]) -> Any:
    """``values`` as the schema's model (a pydantic class) or as a checked dict.

    Raises:
        ValueError: a required field is missing (or the model rejects the values).
    """
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_validate(dict(values))  # a ValidationError is a ValueError
    missing = sorted(set(response_fields(schema)["required"]) - set(values))
    if missing:
        raise ValueError(f"response_schema fields missing: {', '.join(missing)}")
    return dict(values)
