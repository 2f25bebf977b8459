"""Shared pydantic configuration for the persisted format.

Events and payloads are frozen and strict (``extra="forbid"``), as the OpenHands SDK writes them:
an unknown field inside a known kind is a validation error, while an unknown ``kind`` is kept
opaque by the parser (see ``parse.py``). Field docstrings become JSON Schema descriptions
(``describe_fields``).
"""

from __future__ import annotations

import ast
import inspect
import sys
from collections.abc import Callable
from functools import cache
from typing import Any, ClassVar, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
)


@cache
def _module_docstrings(module: str) -> dict[str, dict[str, str]]:
    """Class qualname -> {attribute: its docstring} for every class of a module, one parse."""
    path = getattr(sys.modules.get(module), "__file__", None)
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return {}
    out: dict[str, dict[str, str]] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                out[prefix + node.name] = _attribute_docstrings(node)
                visit(node.body, f"{prefix}{node.name}.")

    visit(tree.body, "")
    return out


def _attribute_docstrings(node: ast.ClassDef) -> dict[str, str]:
    """pydantic's ``use_attribute_docstrings`` rule: a string statement right after an
    annotated assignment of a name documents that name (``inspect.cleandoc``-ed).
    """
    docs: dict[str, str] = {}
    target: str | None = None
    after_annotation = False
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign):
            if isinstance(stmt.target, ast.Name):
                target = stmt.target.id
            after_annotation = True
            continue
        if (
            after_annotation
            and isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str)
        ):
            if target:
                docs[target] = inspect.cleandoc(stmt.value.value)
            target = None
        after_annotation = False
    return docs


def _field_docstring(cls: type[BaseModel], name: str) -> str | None:
    """The docstring of field ``name`` in the class of ``cls``'s MRO that annotates it."""
    for klass in cls.__mro__:
        if name in klass.__dict__.get("__annotations__", ()):
            return _module_docstrings(klass.__module__).get(klass.__qualname__, {}).get(name)
    return None


def describe_fields(schema: dict[str, Any], cls: type[BaseModel]) -> None:
    """``json_schema_extra``: each field's docstring as its JSON Schema ``description``.

    What ``use_attribute_docstrings=True`` gives, but read only when a JSON Schema is made
    (``trajkit schema``, tool parameters), not at import: pydantic's extraction walks frames,
    tokenizes and parses each class's source as the class is built, a third of the time
    ``import trajkit.events`` took (``trajkit validate``/``convert`` start-up). A field with an
    explicit ``Field(description=...)`` keeps it.
    """
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for name, field in cls.model_fields.items():
        if field.description is not None:
            continue
        prop = properties.get(field.alias or name)
        if isinstance(prop, dict) and (doc := _field_docstring(cls, name)) is not None:
            prop["description"] = doc


_F = TypeVar("_F", bound=Callable[..., Any])


def legacy_input(func: _F) -> _F:
    """Marks a ``mode="before"`` model validator that only reads older SDKs' shapes: on every
    input the model accepts without it, the model gives the same result with it (it drops a
    legacy key ``extra`` refuses or ignores, or rewrites a value the field refuses).

    The readers' fast validators leave such validators out (``parse.current_validator``: no
    Python call per object) and hand what they refuse to the whole model.
    """
    func.legacy_input = True  # type: ignore[attr-defined]
    return func


class StrictModel(BaseModel):
    """Frozen model that rejects unknown keys (events, payloads, content items)."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        json_schema_extra=describe_fields,
        populate_by_name=True,
    )


class KeepNullExtras(BaseModel):
    """Keeps unknown keys whose value is null when dumping with ``exclude_none``.

    ``exclude_none`` stands for the SDK's "absent means None" on the fields a model declares;
    an unknown key is data we only carry, so its null must survive a round trip.
    """

    _kind_last: ClassVar[bool] = False
    """Whether a declared ``kind`` is written after the carried keys (a payload's, whose SDK
    class declares it last)."""

    @model_serializer(mode="wrap")
    def _keep_null_extras(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        data = handler(self)
        extra = self.__pydantic_extra__
        if info.exclude_none and extra and isinstance(data, dict):
            for key, value in extra.items():
                if value is None and key not in data:
                    data[key] = None
        if extra and self._kind_last and isinstance(data, dict) and "kind" in data:
            data["kind"] = data.pop("kind")  # after the carried keys, as the SDK writes it
        return data


class OpenModel(KeepNullExtras):
    """Model that keeps unknown keys (configuration objects written by newer SDKs)."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra=describe_fields,
        populate_by_name=True,
    )
