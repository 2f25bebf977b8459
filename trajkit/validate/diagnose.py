"""Why a file fails: JSON Schema and model errors turned into `pointer: message` problems.

The slow path of `files.py`: it runs when the fast check (the model, strict) refuses a file, or
on every file with `thorough=True`. Schema errors come from plain `jsonschema` with the
generated schemas (`trajkit.schema`), one validator per event kind; model errors from pydantic.
Both are phrased alike (`expected integer, got string`, `missing required field`) and merged
by pointer, schema first.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from trajkit.errors import json_pointer, pointer_for_loc
from trajkit.validate.problems import Problem, error


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class _Checker:
    """The known kinds (cheap) and cached JSON Schema validators (built on first use)."""

    def __init__(self) -> None:
        from trajkit.events.parse import EVENT_CLASSES
        from trajkit.events.payloads import ACTION_CLASSES, OBSERVATION_CLASSES

        self.event_kinds = frozenset(EVENT_CLASSES)
        self.action_kinds = frozenset(ACTION_CLASSES)
        self.observation_kinds = frozenset(OBSERVATION_CLASSES)
        self._by_kind: dict[str, Any] = {}

    @cached_property
    def _schemas(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The generated event and base-state schemas."""
        from trajkit.schema import BASE_STATE_SCHEMA, EVENT_SCHEMA, build_schemas

        schemas = build_schemas()
        return schemas[EVENT_SCHEMA], schemas[BASE_STATE_SCHEMA]

    @property
    def event_schema(self) -> dict[str, Any]:
        """The generated event schema."""
        return self._schemas[0]

    @cached_property
    def state_validator(self) -> Any:
        """Validator for `base_state.json`."""
        from jsonschema import Draft202012Validator

        return Draft202012Validator(self._schemas[1])

    @cached_property
    def any_event_validator(self) -> Any:
        """Validator for any event (the schema's own `kind` dispatch)."""
        from jsonschema import Draft202012Validator

        return Draft202012Validator(self.event_schema)

    def warm(self) -> None:
        """Build every validator now (before worker processes fork, so each need not)."""
        for kind in self.event_kinds:
            self.event_validator(kind)
        _ = self.state_validator

    def event_validator(self, kind: str) -> Any:
        """A validator for one kind: the event schema's own definition of that kind."""
        validator = self._by_kind.get(kind)
        if validator is None:
            defs = self.event_schema.get("$defs", {})
            if kind in defs:
                sub = {
                    "$schema": self.event_schema.get("$schema"),
                    "$defs": defs,
                    "$ref": f"#/$defs/{kind}",
                }
                from jsonschema import Draft202012Validator

                validator = Draft202012Validator(sub)
            else:
                validator = self.any_event_validator
            self._by_kind[kind] = validator
        return validator


@lru_cache(maxsize=1)
def checker() -> _Checker:
    """The process-wide checker (built on first use: schemas, validators)."""
    return _Checker()


def event_problems(path: Path, data: dict[str, Any], kind: str, raw: bytes) -> list[Problem]:
    """Schema and model problems of one event of a known kind, merged by pointer."""
    c = checker()
    problems = list(schema_problems(path, c.event_validator(kind), data))
    problems.extend(_new(problems, model_problems(path, data, raw, kind=kind)))
    return problems


def base_state_problems(path: Path, data: dict[str, Any], raw: bytes) -> list[Problem]:
    """Schema and model problems of `base_state.json`, merged by pointer."""
    problems = list(schema_problems(path, checker().state_validator, data))
    problems.extend(_new(problems, model_problems(path, data, raw, kind=None)))
    return problems


def _new(known: list[Problem], more: Iterator[Problem]) -> Iterator[Problem]:
    """Problems of `more` at pointers `known` does not cover (itself or a parent)."""
    seen = {p.pointer for p in known}
    for problem in more:
        pointer = problem.pointer
        if pointer in seen or any(pointer.startswith(s + "/") for s in seen if s):
            continue
        seen.add(pointer)
        yield problem


def schema_problems(path: Path, validator: Any, data: Any) -> Iterator[Problem]:
    from jsonschema.exceptions import best_match

    seen: set[tuple[str, str]] = set()
    for err in validator.iter_errors(data):
        leaf = best_match([err]) if err.context else err
        for pointer, message in _describe_schema_error(leaf):
            if (pointer, message) not in seen:
                seen.add((pointer, message))
                yield error(path, pointer, message, "schema")


def _describe_schema_error(err: Any) -> Iterator[tuple[str, str]]:
    pointer = json_pointer(err.absolute_path)
    instance = err.instance
    kind = err.validator
    if kind == "type":
        expected = err.validator_value
        names = [str(n) for n in (expected if isinstance(expected, list) else [expected])]
        wanted = " or ".join(names)
        yield pointer, f"expected {wanted}, got {json_type(instance)}"
    elif kind == "required" and isinstance(instance, dict):
        for name in err.validator_value:
            if name not in instance:
                yield f"{pointer}/{_escape(name)}", "missing required field"
    elif kind in ("additionalProperties", "unevaluatedProperties") and isinstance(instance, dict):
        allowed = set(err.schema.get("properties", {}))
        for name in instance:
            if name not in allowed:
                yield f"{pointer}/{_escape(name)}", "unexpected field (not part of the format)"
    elif kind == "const":
        yield pointer, f"expected {_short(err.validator_value)}, got {_short(instance)}"
    elif kind == "enum":
        options = ", ".join(_short(v) for v in err.validator_value)
        yield pointer, f"expected one of {options}, got {_short(instance)}"
    elif kind in ("oneOf", "anyOf"):
        yield pointer, _describe_alternatives(err)
    else:
        yield pointer, _shorten(err.message)


def _describe_alternatives(err: Any) -> str:
    """`expected integer or null, got string` for a union of plain types; else a general line."""
    types: list[str] = []
    for option in err.validator_value:
        if not isinstance(option, dict):
            break
        if "type" in option and len(option) <= 3:  # {"type": ...} maybe with a format/title
            names = option["type"] if isinstance(option["type"], list) else [option["type"]]
            types.extend(str(n) for n in names)
        elif "$ref" in option:
            types.append(str(option["$ref"]).rsplit("/", 1)[-1])
        else:
            break
    else:
        if types:
            return f"expected {' or '.join(types)}, got {json_type(err.instance)}"
    return f"{json_type(err.instance)} does not match any allowed shape here"


def model_problems(
    path: Path, data: dict[str, Any], raw: bytes, *, kind: str | None
) -> Iterator[Problem]:
    """Errors of the model for `kind` (`BaseState` when None), validating the JSON strictly."""
    from pydantic import ValidationError

    from trajkit.events.parse import EVENT_CLASSES
    from trajkit.events.state import BaseState

    model = BaseState if kind is None else EVENT_CLASSES[kind]
    try:
        model.model_validate_json(raw, strict=True)
    except ValidationError as exc:
        for item in exc.errors(include_url=False):
            pointer = pointer_for_loc(data, item.get("loc", ()))
            yield error(path, pointer, _describe_model_error(item), "model")
    except (TypeError, KeyError, AttributeError, IndexError) as exc:
        # A model validator tripping over an odd shape: still a problem of this file, reported
        # as such (and worth a bug report against the model).
        message = f"the model cannot read this object ({type(exc).__name__}: {exc})"
        yield error(path, "", _shorten(message), "model")
    except ValueError as exc:  # a model validator refusing the content
        yield error(path, "", _shorten(str(exc)), "model")


_MODEL_TYPE_WORDS = {
    "int": "integer",
    "float": "number",
    "string": "string",
    "bool": "boolean",
    "list": "array",
    "dict": "object",
    "model": "object",
}


def _describe_model_error(item: Any) -> str:
    typ: str = item.get("type", "")
    if typ == "missing":
        return "missing required field"
    if typ == "extra_forbidden":
        return "unexpected field (not part of the format)"
    stem = typ.split("_")[0]
    if stem in _MODEL_TYPE_WORDS and (typ.endswith("_type") or typ.endswith("_parsing")):
        got = json_type(item.get("input"))
        return f"expected {_MODEL_TYPE_WORDS[stem]}, got {got}"
    return _shorten(str(item.get("msg", typ)))


def _escape(token: str) -> str:
    return json_pointer([token])[1:]  # one escaping rule, which also masks a key used as a name


def _short(value: Any) -> str:
    return _shorten(json.dumps(value, ensure_ascii=False), 60)


def _shorten(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = [
    "base_state_problems",
    "checker",
    "event_problems",
    "json_type",
    "model_problems",
    "schema_problems",
]
