"""Checks on one file at a time: an event file or `base_state.json`.

Each file goes through the same ladder, stopping at the first rung it fails:
1. it can be stat'ed (not a broken link or a symlink loop) and is a regular file;
2. its size is within the limit (checked *before* reading, so a 200 MB file is never loaded);
3. it is not empty, is UTF-8 and parses as JSON, and the top level is an object;
   (rungs 1-2 and emptiness are the store's reading, `trajkit.store.scan`, whose failures
   become problems here as they are worded there)
4. it conforms to the format: the pydantic model (the source the JSON Schemas are generated
   from) validates the JSON *strictly*, i.e. with JSON Schema's type rules: `"0"` is not an
   integer, an unknown key is refused. This is the fast path (one pass in pydantic-core).
   When it fails, the file is checked with `jsonschema` against the generated schemas and the
   model's own errors are added, so each problem reads `pointer: expected X, got Y`.
   `thorough=True` runs `jsonschema` on every file as well (about 30 times slower).
An unknown `kind` (event, action or observation) is a warning: the reader keeps such events as
opaque records. The facts the cross-file checks need (id, kind, parent, action, call id) come
from the model, or from the decoded object when the model refuses the file.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from trajkit.errors import InputError
from trajkit.store.guard import check_json_nodes
from trajkit.store.layout import BASE_STATE
from trajkit.store.reader import MAX_FILE_BYTES  # the store's limit (100 MiB by default)
from trajkit.store.scan import ScannedFile, read_checked, scan_event_file
from trajkit.validate.diagnose import (
    base_state_problems,
    checker,
    event_problems,
    json_type,
    schema_problems,
)
from trajkit.validate.problems import Problem, error, warning


@dataclass(slots=True)
class EventFacts:
    """What the cross-file checks need to know about one event file."""

    where: Path
    """The file's path; its folder while `file_name` is set (see `path`)."""
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
    file_name: str | None = None
    """The file's name in the folder `where`, until `path` is first asked for."""

    @property
    def path(self) -> Path:
        """The event file's path, made on first use: a valid file never needs it."""
        if self.file_name is not None:
            self.where = self.where / self.file_name
            self.file_name = None
        return self.where


@dataclass(slots=True)
class FileCheck:
    """The outcome of checking one file."""

    problems: list[Problem] = field(default_factory=list)
    data: dict[str, Any] | None = None
    """The decoded JSON object, when the slow path decoded it (or always for base_state)."""
    raw: bytes = b""
    """The file's bytes, when it was read (used for secret scanning, then dropped)."""
    upgrades: list[str] = field(default_factory=list)
    """Upgrade rules (`trajkit.events.upgrade`) the file needed: an older SDK's shape."""


# --- rungs 1-3: read (the store's ladder, `trajkit.store.scan`) and decode -----------------------


def decode_object(path: Path, check: FileCheck) -> dict[str, Any] | None:
    """Rung 3: decode `check.raw` as one JSON object, or add a problem saying why not."""
    try:
        check_json_nodes(path, check.raw)  # refused before a Python object is built
    except InputError as exc:
        check.problems.append(error(path, "", exc.message, "too-large"))
        return None
    try:
        data = orjson.loads(check.raw)
    except orjson.JSONDecodeError:
        data, problem = _diagnose_bad_json(path, check.raw)
        if problem is not None:
            check.problems.append(problem)
            return None
    if not isinstance(data, dict):
        message = f"expected a JSON object at the top level, got {json_type(data)}"
        check.problems.append(error(path, "", message, "not-an-object"))
        return None
    check.data = data
    return data


def read_json_object(path: Path, *, max_bytes: int = MAX_FILE_BYTES, what: str) -> FileCheck:
    """Rungs 1-3: read `path` and decode one JSON object into `data`, or say precisely why not."""
    raw, _, failure = read_checked(path, max_bytes=max_bytes, what=what)
    check = FileCheck(raw=raw)
    if failure is not None:
        check.problems.append(error(path, "", failure[1], failure[0]))
    elif raw:
        decode_object(path, check)
    return check


class _NotFinite(ValueError):
    pass


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _NotFinite(text)
    return value


def _no_constant(text: str) -> float:
    raise _NotFinite(text)


def _diagnose_bad_json(path: Path, raw: bytes) -> tuple[Any, Problem | None]:
    """orjson refused `raw`: find out why, with the stdlib's line/column messages."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start}"
        return None, error(path, "", message, "utf-8")
    if not text.strip():
        return None, error(path, "", "file holds only whitespace: expected a JSON object", "empty")
    try:
        # e.g. integers beyond 64 bits: valid JSON after all; but not a number no double holds
        # (1e400) or NaN/Infinity, which every other reader refuses
        return json.loads(text, parse_float=_finite_float, parse_constant=_no_constant), None
    except RecursionError:
        message = "JSON nested too deeply to read (more than a thousand levels)"
        return None, error(path, "", message, "json")
    except _NotFinite as exc:
        message = f"number {exc.args[0]} is out of range for a double (it would read as infinity)"
        return None, error(path, "", message, "json")
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            what = exc.msg[0].lower() + exc.msg[1:]
            joint = " " if what.endswith(" at") else " at "
            detail = f"{what}{joint}line {exc.lineno} column {exc.colno}"
            message = f"truncated JSON: the text ends inside a value ({detail})"
            return None, error(path, "", message, "truncated")
        message = f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        return None, error(path, "", message, "json")


# --- rung 4: the format -------------------------------------------------------------------------


def check_event_file(
    path: Path,
    *,
    index: int | None = None,
    name_id: str | None = None,
    max_bytes: int = MAX_FILE_BYTES,
    thorough: bool = False,
) -> tuple[FileCheck, EventFacts]:
    """Check one event file; return the outcome and the facts for the cross-file checks."""
    f = scan_event_file(path, index=index, event_id=name_id, max_bytes=max_bytes)
    return check_scanned(f, thorough=thorough)


def check_scanned(f: ScannedFile, *, thorough: bool = False) -> tuple[FileCheck, EventFacts]:
    """Check one event file the store's scan read (`trajkit.store.scan`).

    An event in an older SDK's shape is upgraded (`trajkit.events.upgrade`) and checked in its
    upgraded form; the rules it needed are listed in `check.upgrades`.
    """
    facts = EventFacts(f.folder, f.index, f.event_id, file_name=f.name)
    check = FileCheck(raw=f.raw, upgrades=list(f.upgrades))
    if f.failure is not None:
        check.problems.append(error(facts.path, "", f.failure[1], f.failure[0]))
        return check, facts
    if f.event is not None and _event_check(check, facts, f.event, thorough=thorough):
        _name_id_problem(check, facts)
        return check, facts
    if not check.raw:
        return check, facts
    path = f.path  # not kept in `facts`: 100k events would keep 100k `Path`s
    data = decode_object(path, check)
    if data is None:
        return check, facts
    from trajkit.events.upgrade import upgrade_event

    check.upgrades = upgrade_event(data)
    _fill_facts(facts, data)
    raw = orjson.dumps(data) if check.upgrades else check.raw
    check.problems.extend(_slow_event_problems(path, data, raw))
    _name_id_problem(check, facts)
    return check, facts


def _name_id_problem(check: FileCheck, facts: EventFacts) -> None:
    name_id = facts.name_id
    if name_id is not None and facts.id is not None and facts.id != name_id:
        message = f"file name says id {name_id!r} but the event's id is {facts.id!r}"
        check.problems.append(error(facts.path, "/id", message, "name-id"))


_known: tuple[frozenset[str], frozenset[str]] | None = None
"""(action kinds, observation kinds), imported on first use."""


def _known_kinds() -> tuple[frozenset[str], frozenset[str]]:
    global _known
    if _known is None:
        c = checker()
        _known = (c.action_kinds, c.observation_kinds)
    return _known


def _event_check(check: FileCheck, facts: EventFacts, event: Any, *, thorough: bool) -> bool:
    """Facts and payload kinds of an event the model accepted strictly (the fast path); the
    problems name `facts.path`. True (a hook for rules that may still refuse it).
    """
    action_kinds, observation_kinds = _known or _known_kinds()
    # Fields read from __dict__: getattr of a field the kind lacks takes pydantic's slow
    # missing-attribute path (__getattr__ raising AttributeError), ~1 us each.
    fields = event.__dict__
    get = fields.get
    facts.id = fields["id"]
    facts.kind = kind = fields["kind"]
    facts.parent_id = get("parent_id")
    facts.action_id = get("action_id")
    facts.tool_call_id = get("tool_call_id")
    payload = get("action")
    if payload is not None:
        payload_kind = getattr(payload, "kind", None)
        if isinstance(payload_kind, str) and payload_kind not in action_kinds:
            check.problems.append(_unknown_payload(facts.path, "action", "action", payload_kind))
    payload = get("observation")
    if payload is not None:
        payload_kind = getattr(payload, "kind", None)
        if isinstance(payload_kind, str) and payload_kind not in observation_kinds:
            check.problems.append(
                _unknown_payload(facts.path, "observation", "observation", payload_kind)
            )
    if thorough:
        path = facts.path
        data = decode_object(path, check)
        if data is not None:
            from trajkit.events.upgrade import upgrade_event

            upgrade_event(data)  # what the model read (`store.scan.read_event`)
            check.problems.extend(schema_problems(path, checker().event_validator(kind), data))
    return True


def _fill_facts(facts: EventFacts, data: dict[str, Any]) -> None:
    facts.id = _str_or_none(data.get("id"))
    facts.kind = _str_or_none(data.get("kind"))
    facts.parent_id = _str_or_none(data.get("parent_id"))
    facts.action_id = _str_or_none(data.get("action_id"))
    facts.tool_call_id = _str_or_none(data.get("tool_call_id"))


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _slow_event_problems(path: Path, data: dict[str, Any], raw: bytes) -> list[Problem]:
    """Problems of an event the fast path refused: kind, JSON Schema, model."""
    c = checker()
    kind = data.get("kind")
    if not isinstance(kind, str):
        got = "absent" if "kind" not in data else json_type(kind)
        return [error(path, "/kind", f"expected the event kind as a string, got {got}", "kind")]
    if kind not in c.event_kinds:
        message = (
            f"unknown event kind {kind!r}: kept as an opaque event (a newer SDK or a custom event?)"
        )
        return [warning(path, "/kind", message, "unknown-kind"), *_base_field_problems(path, data)]
    problems = []
    for key, known, what in (
        ("action", c.action_kinds, "action"),
        ("observation", c.observation_kinds, "observation"),
    ):
        payload = data.get(key)
        payload_kind = payload.get("kind") if isinstance(payload, dict) else None
        if isinstance(payload_kind, str) and payload_kind not in known:
            problems.append(_unknown_payload(path, key, what, payload_kind))
    problems.extend(event_problems(path, data, kind, raw))
    return problems


def _unknown_payload(path: Path, key: str, what: str, kind: str) -> Problem:
    message = f"unknown {what} kind {kind!r}: kept as an opaque payload (a custom tool?)"
    return warning(path, f"/{key}/kind", message, "unknown-kind")


def _base_field_problems(path: Path, data: dict[str, Any]) -> list[Problem]:
    problems = []
    for key in ("id", "timestamp", "source"):
        if key not in data:
            problems.append(error(path, f"/{key}", "missing required field", "schema"))
        elif not isinstance(data[key], str):
            message = f"expected string, got {json_type(data[key])}"
            problems.append(error(path, f"/{key}", message, "schema"))
    parent = data.get("parent_id")
    if parent is not None and not isinstance(parent, str):
        message = f"expected string or null, got {json_type(parent)}"
        problems.append(error(path, "/parent_id", message, "schema"))
    return problems


def check_base_state_file(
    path: Path, *, max_bytes: int = MAX_FILE_BYTES, thorough: bool = False
) -> FileCheck:
    """Check `base_state.json`: the `BaseState` model strictly, the JSON Schema when it fails.

    `data` always holds the decoded object (the cross-file checks read the head and secrets).
    """
    check = read_json_object(path, max_bytes=max_bytes, what=BASE_STATE)
    return check_base_state_bytes(path, check, thorough=thorough)


def check_base_state_bytes(path: Path, check: FileCheck, *, thorough: bool = False) -> FileCheck:
    """`check_base_state_file` on a decoded object (`check.data`); older fields upgraded."""
    from pydantic import ValidationError

    from trajkit.events.state import BaseState
    from trajkit.events.upgrade import upgrade_base_state

    if check.data is None:
        return check
    check.upgrades = upgrade_base_state(check.data)
    if check.upgrades:
        check.raw = orjson.dumps(check.data)
    try:
        BaseState.model_validate_json(check.raw, strict=True)
        passed = True
    except (ValidationError, ValueError, TypeError, KeyError, AttributeError, IndexError):
        passed = False
    if not passed:
        check.problems.extend(base_state_problems(path, check.data, check.raw))
    elif thorough:
        check.problems.extend(schema_problems(path, checker().state_validator, check.data))
    return check


__all__ = [
    "MAX_FILE_BYTES",
    "EventFacts",
    "FileCheck",
    "check_base_state_bytes",
    "check_base_state_file",
    "check_event_file",
    "check_scanned",
    "decode_object",
    "read_json_object",
]
