"""A custom tool's parameter schema is simplified by the converter's guarded simplifier: an
action model that refers to itself builds (no RecursionError) into the SDK's shape, with the
inner reference left as an object carrying the model's description."""

from __future__ import annotations

from pydantic import BaseModel, Field

from trajkit.convert.tools import simplify_schema
from trajkit.sdk import Action, Observation, ToolDefinition


class Node(BaseModel):
    """A tree node."""

    name: str
    children: list[Node] = Field(default_factory=list)


class WalkAction(Action):
    root: Node = Field(description="the tree to walk")
    depth: int | None = Field(default=None, description="how deep to go")


class NestAction(Action):
    """A tree of names."""

    name: str = Field(description="this node's name")
    children: list[NestAction] = Field(default_factory=list, description="sub-trees")


class WalkTool(ToolDefinition[WalkAction, Observation]):
    pass


class NestTool(ToolDefinition[NestAction, Observation]):
    pass


_NODE = {"type": "object", "description": "A tree node."}


def test_a_model_that_refers_to_itself_builds_its_tool_definition() -> None:
    tool = WalkTool(
        description="Walks a tree.", action_type=WalkAction, observation_type=Observation
    )
    assert tool.parameters == {
        "type": "object",
        "properties": {
            "root": {  # the SDK keeps the definition's description, not the field's
                **_NODE,
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": _NODE},
                },
                "required": ["name"],
            },
            "depth": {"type": "integer", "description": "how deep to go"},
        },
        "required": ["root"],
    }


def test_an_action_that_refers_to_itself_keeps_its_fields() -> None:
    tool = NestTool(description="Nests.", action_type=NestAction, observation_type=Observation)
    assert tool.parameters == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "this node's name"},
            "children": {
                "type": "array",
                "description": "sub-trees",
                "items": {"type": "object", "description": "A tree of names."},
            },
        },
        "required": ["name"],
    }


def test_the_runtime_and_the_converter_simplify_alike() -> None:
    schema = WalkAction.model_json_schema()
    simple = simplify_schema(schema, schema["$defs"])
    tool = WalkTool(
        description="Walks a tree.", action_type=WalkAction, observation_type=Observation
    )
    assert tool.parameters["properties"] == {
        k: v for k, v in simple["properties"].items() if k != "kind"
    }
