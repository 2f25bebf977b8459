"""Checks on one file at a time: an event file or `base_state.json`.

Each file goes through the same ladder, stopping at the first rung it fails:
1. it can be stat'ed (not a broken link or a symlink loop) and is a regular file;
2. its size is within the limit (checked *before* reading, so a 200 MB file is never loaded);
3. it is not empty, is UTF-8 and parses as JSON, and the top level is an object;
4. it matches the generated JSON Schema (with `jsonschema`, the same files users validate with)
   for its `kind`, and the pydantic model parses it; problems from both are merged by pointer.
An unknown `kind` (event, action or observation) is a warning: the reader keeps such events as
opaque records. The facts the cross-file checks need (id, kind, parent, action, call id) are
taken from the decoded object, so they are available even when the model rejects the file.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from trajkit.errors import json_pointer
from trajkit.store.reader import MAX_FILE_BYTES  # the store's limit (100 MiB by default)
from trajkit.validate.problems import Problem, error, warning

_TYPE_NAMES: dict[str, str] = {
    "object": "object",
    "array": "array",
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "null": "null",
}


@dataclass(slots=True)
class EventFacts:
    """What the cross-file checks need to know about one event file."""

    path: Path
    index: int | None
    """Index from the file name (None for a file named otherwise)."""
    name_id: str | None
    """Event id from the file name."""
    id: str | None = None
    kind: str | None = None
    parent_id: str | None = None
    """`parent_id` as written; None when absent or null (a legacy event: parent is index - 1)."""
    action_id: str | None = None
    tool_call_id: str | None = None


@dataclass(slots=True)
class FileCheck:
    """The outcome of checking one file."""

    problems: list[Problem] = field(default_factory=list)
    data: dict[str, Any] | None = None
    """The decoded JSON object, when the file got that far."""
    raw: bytes = b""
    """The file's bytes, when it was read (used for secret scanning, then dropped)."""


def read_json_object(path: Path, *, max_bytes: int = MAX_FILE_BYTES, what: str) -> FileCheck:
    """Rungs 1-3: read `path` and decode one JSON object, or say precisely why not."""
    check = FileCheck()
    try:
        st = os.stat(path)
    except OSError as exc:
        check.problems.append(error(path, "", _stat_reason(path, exc), "unreadable"))
        return check
    if not stat.S_ISREG(st.st_mode):
        check.problems.append(
            error(path, "", f"expected {what} file, got a folder or device", "not-a-file")
        )
        return check
    if st.st_size > max_bytes:
        message = (
            f"file is {_size(st.st_size)}, above the {_size(max_bytes)} limit for {what}; "
            "not read (raise the limit with --max-file-size or TRAJKIT_MAX_FILE_BYTES)"
        )
        check.problems.append(error(path, "", message, "too-large"))
        return check
    if st.st_size == 0:
        check.problems.append(
            error(path, "", f"empty file: expected {what} (a JSON object)", "empty")
        )
        return check
    try:
        with open(path, "rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as exc:
        check.problems.append(error(path, "", _stat_reason(path, exc), "unreadable"))
        return check
    if len(raw) > max_bytes:  # grew while we looked
        check.problems.append(
            error(path, "", f"file is above the {_size(max_bytes)} limit", "too-large")
        )
        return check
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        data, problem = _diagnose_bad_json(path, raw)
        if problem is not None:
            check.problems.append(problem)
            return check
    if not isinstance(data, dict):
        message = f"expected a JSON object at the top level, got {_json_type(data)}"
        check.problems.append(error(path, "", message, "not-an-object"))
        return check
    check.data = data
    check.raw = raw
    return check


def _diagnose_bad_json(path: Path, raw: bytes) -> tuple[Any, Problem | None]:
    """orjson refused `raw`: find out why, with the stdlib's line/column messages."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, error(
            path, "", f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start}", "utf-8"
        )
    if not text.strip():
        return None, error(path, "", "file holds only whitespace: expected a JSON object", "empty")
    try:
        return json.loads(text), None  # e.g. integers beyond 64 bits: valid JSON after all
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            what = exc.msg[0].lower() + exc.msg[1:]
            joint = " " if what.endswith(" at") else " at "
            detail = f"{what}{joint}line {exc.lineno} column {exc.colno}"
            message = f"truncated JSON: the text ends inside a value ({detail})"
            return None, error(path, "", message, "truncated")
        message = f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        return None, error(path, "", message, "json")


def _stat_reason(path: Path, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symlink loop: the path cannot be resolved"
    if exc.errno == errno.ENOENT and os.path.islink(path):
        return f"broken symlink (points to {os.readlink(path)!r})"
    if exc.errno == errno.ENOENT:
        return "no such file"
    if exc.errno == errno.EACCES:
        return "permission denied"
    return f"cannot read: {exc.strerror or exc}"


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MB" if n >= 1024 * 1024 else f"{n} bytes"


def _json_type(value: Any) -> str:
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


# --- schema and model ---------------------------------------------------------------------------


class _Checker:
    """Cached JSON Schema validators (one per event kind) and the known kinds."""

    def __init__(self) -> None:
        from jsonschema import Draft202012Validator

        from trajkit.events.parse import EVENT_CLASSES
        from trajkit.events.payloads import ACTION_CLASSES, OBSERVATION_CLASSES
        from trajkit.schema import build_schemas

        schemas = build_schemas()
        self.event_schema = _pick(schemas, "event")
        self.state_schema = _pick(schemas, "base_state")
        self.event_kinds = frozenset(EVENT_CLASSES)
        self.action_kinds = frozenset(ACTION_CLASSES)
        self.observation_kinds = frozenset(OBSERVATION_CLASSES)
        self._validator_cls = Draft202012Validator
        self._by_kind: dict[str, Any] = {}
        self.state_validator = Draft202012Validator(self.state_schema)
        self.any_event_validator = Draft202012Validator(self.event_schema)

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
                validator = self._validator_cls(sub)
            else:
                validator = self.any_event_validator
            self._by_kind[kind] = validator
        return validator


def _pick(schemas: dict[str, dict[str, Any]], stem: str) -> dict[str, Any]:
    for name, schema in schemas.items():
        if name == stem or name.startswith(f"{stem}.") or name == f"{stem}.schema.json":
            return schema
    raise KeyError(f"no {stem!r} schema among {sorted(schemas)}")


@lru_cache(maxsize=1)
def checker() -> _Checker:
    """The process-wide checker (built on first use: schemas, validators)."""
    return _Checker()


def check_event_file(
    path: Path,
    *,
    index: int | None = None,
    name_id: str | None = None,
    max_bytes: int = MAX_FILE_BYTES,
) -> tuple[FileCheck, EventFacts]:
    """Check one event file; return the outcome and the facts for the cross-file checks."""
    facts = EventFacts(path=path, index=index, name_id=name_id)
    check = read_json_object(path, max_bytes=max_bytes, what="an event")
    data = check.data
    if data is None:
        return check, facts
    _fill_facts(facts, data)
    check.problems.extend(iter_event_problems(path, data))
    if name_id is not None and isinstance(facts.id, str) and facts.id != name_id:
        message = f"file name says id {name_id!r} but the event's id is {facts.id!r}"
        check.problems.append(error(path, "/id", message, "name-id"))
    return check, facts


def _fill_facts(facts: EventFacts, data: dict[str, Any]) -> None:
    facts.id = _str_or_none(data.get("id"))
    facts.kind = _str_or_none(data.get("kind"))
    facts.parent_id = _str_or_none(data.get("parent_id"))
    facts.action_id = _str_or_none(data.get("action_id"))
    facts.tool_call_id = _str_or_none(data.get("tool_call_id"))


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def iter_event_problems(path: Path, data: dict[str, Any]) -> Iterator[Problem]:
    """Problems of one decoded event object: kind, JSON Schema, model."""
    c = checker()
    kind = data.get("kind")
    if not isinstance(kind, str):
        got = "absent" if "kind" not in data else _json_type(kind)
        yield error(path, "/kind", f"expected the event kind as a string, got {got}", "kind")
        return
    if kind not in c.event_kinds:
        message = (
            f"unknown event kind {kind!r}: kept as an opaque event (a newer SDK or a custom event?)"
        )
        yield warning(path, "/kind", message, "unknown-kind")
        yield from _base_field_problems(path, data)
        return
    yield from _payload_kind_warnings(path, data, c)
    schema_problems = list(_schema_problems(path, c.event_validator(kind), data))
    yield from schema_problems
    seen = {p.pointer for p in schema_problems}
    for problem in _model_problems(path, data, kind):
        if problem.pointer not in seen and not any(
            problem.pointer.startswith(s + "/") for s in seen if s
        ):
            yield problem


def _base_field_problems(path: Path, data: dict[str, Any]) -> Iterator[Problem]:
    for key in ("id", "timestamp", "source"):
        if key not in data:
            yield error(path, f"/{key}", "missing required field", "schema")
        elif not isinstance(data[key], str):
            yield error(path, f"/{key}", f"expected string, got {_json_type(data[key])}", "schema")
    parent = data.get("parent_id")
    if parent is not None and not isinstance(parent, str):
        yield error(
            path, "/parent_id", f"expected string or null, got {_json_type(parent)}", "schema"
        )


def _payload_kind_warnings(path: Path, data: dict[str, Any], c: _Checker) -> Iterator[Problem]:
    for key, known, what in (
        ("action", c.action_kinds, "action"),
        ("observation", c.observation_kinds, "observation"),
    ):
        payload = data.get(key)
        if isinstance(payload, dict):
            kind = payload.get("kind")
            if isinstance(kind, str) and kind not in known:
                message = (
                    f"unknown {what} kind {kind!r}: kept as an opaque payload (a custom tool?)"
                )
                yield warning(path, f"/{key}/kind", message, "unknown-kind")


def _schema_problems(path: Path, validator: Any, data: Any) -> Iterator[Problem]:
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
        wanted = " or ".join(_TYPE_NAMES.get(n, n) for n in names)
        yield pointer, f"expected {wanted}, got {_json_type(instance)}"
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
            types.extend(_TYPE_NAMES.get(str(n), str(n)) for n in names)
        elif "$ref" in option:
            types.append(str(option["$ref"]).rsplit("/", 1)[-1])
        else:
            break
    else:
        if types:
            return f"expected {' or '.join(types)}, got {_json_type(err.instance)}"
    return f"{_json_type(err.instance)} does not match any allowed shape here"


def _model_problems(path: Path, data: dict[str, Any], kind: str) -> Iterator[Problem]:
    from pydantic import ValidationError

    from trajkit.events.parse import EVENT_CLASSES

    try:
        EVENT_CLASSES[kind].model_validate(data)
    except ValidationError as exc:
        for item in exc.errors(include_url=False):
            pointer = _pointer_for_loc(data, item.get("loc", ()))
            yield error(path, pointer, _describe_model_error(item), "model")
    except ValueError as exc:  # a model validator refusing the content
        yield error(path, "", _shorten(str(exc)), "model")


def _pointer_for_loc(data: Any, loc: tuple[Any, ...]) -> str:
    """JSON pointer for a pydantic error location, leaving out union tags that are not keys."""
    parts: list[str | int] = []
    current = data
    for i, part in enumerate(loc):
        last = i == len(loc) - 1
        if isinstance(current, dict) and isinstance(part, str):
            if part in current:
                parts.append(part)
                current = current[part]
            elif last:
                parts.append(part)
            # else: a union tag such as 'TerminalAction' or 'function-after[...]'
        elif isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current):
            parts.append(part)
            current = current[part]
    return json_pointer(parts)


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
        got = _json_type(item.get("input"))
        return f"expected {_MODEL_TYPE_WORDS[stem]}, got {got}"
    return _shorten(str(item.get("msg", typ)))


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _short(value: Any) -> str:
    return _shorten(json.dumps(value, ensure_ascii=False), 60)


def _shorten(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_base_state_file(path: Path, *, max_bytes: int = MAX_FILE_BYTES) -> FileCheck:
    """Check `base_state.json` against its JSON Schema and the `BaseState` model."""
    check = read_json_object(path, max_bytes=max_bytes, what="base_state.json")
    if check.data is None:
        return check
    c = checker()
    schema_problems = list(_schema_problems(path, c.state_validator, check.data))
    check.problems.extend(schema_problems)
    seen = {p.pointer for p in schema_problems}
    for problem in _state_model_problems(path, check.data):
        if problem.pointer not in seen:
            check.problems.append(problem)
    return check


def _state_model_problems(path: Path, data: dict[str, Any]) -> Iterator[Problem]:
    from pydantic import ValidationError

    from trajkit.events.state import parse_base_state

    try:
        parse_base_state(data)
    except ValidationError as exc:
        for item in exc.errors(include_url=False):
            pointer = _pointer_for_loc(data, item.get("loc", ()))
            yield error(path, pointer, _describe_model_error(item), "model")
    except ValueError as exc:
        yield error(path, "", _shorten(str(exc)), "model")


__all__ = [
    "MAX_FILE_BYTES",
    "EventFacts",
    "FileCheck",
    "check_base_state_file",
    "check_event_file",
    "checker",
    "iter_event_problems",
    "read_json_object",
]
