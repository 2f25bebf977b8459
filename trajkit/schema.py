"""JSON Schemas (Draft 2020-12) generated from ``trajkit.events``; ``schemas/`` holds the output.

Two documents stand alone, usable with plain ``jsonschema`` and no trajkit:

* ``event.schema.json``: one event file. The top level dispatches on ``kind`` with
  ``if``/``then`` (one branch per known kind), so a broken event is checked against its own
  kind only and errors stay precise. A ``kind`` outside the known set is accepted as an
  object with a string ``kind`` (trajkit reads it as an opaque event). Nested ``action`` and
  ``observation`` payloads dispatch the same way.
* ``base_state.schema.json``: ``base_state.json``.

``drift(dir)`` compares checked-in files with what the models give now; a test fails on drift.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from pydantic.json_schema import models_json_schema

from trajkit.events import (
    EVENT_CLASSES,
    BaseState,
)
from trajkit.events.payloads import ACTION_CLASSES, OBSERVATION_CLASSES

DRAFT = "https://json-schema.org/draft/2020-12/schema"
EVENT_SCHEMA = "event.schema.json"
BASE_STATE_SCHEMA = "base_state.schema.json"
_ID_PREFIX = "https://trajkit.dev/schemas/"
_UNKNOWN_PAYLOADS = {"UnknownAction", "UnknownObservation"}


def _dispatch(kinds: list[str], *, what: str) -> dict[str, Any]:
    """Schema of an object checked against ``#/$defs/<kind>`` for each known ``kind``."""
    return {
        "type": "object",
        "description": f"Any {what}, checked by its `kind`; unknown kinds are kept opaque.",
        "required": ["kind"],
        "properties": {"kind": {"type": "string"}},
        "allOf": [
            {
                "if": {"properties": {"kind": {"const": k}}, "required": ["kind"]},
                "then": {"$ref": f"#/$defs/{k}"},
            }
            for k in kinds
        ],
    }


def _replace_payload_unions(node: Any) -> Any:
    """Swap pydantic's oneOf over payload classes for a kind dispatch."""
    if isinstance(node, dict):
        one_of = node.get("oneOf")
        if isinstance(one_of, list):
            refs = {o.get("$ref", "").rsplit("/", 1)[-1] for o in one_of if isinstance(o, dict)}
            if refs & _UNKNOWN_PAYLOADS:
                table = ACTION_CLASSES if "UnknownAction" in refs else OBSERVATION_CLASSES
                what = "action payload" if table is ACTION_CLASSES else "observation payload"
                return _dispatch(list(table), what=what)
        return {k: _replace_payload_unions(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_replace_payload_unions(v) for v in node]
    return node


def _event_schema() -> dict[str, Any]:
    classes = [*EVENT_CLASSES.values(), *ACTION_CLASSES.values(), *OBSERVATION_CLASSES.values()]
    _, top = models_json_schema(
        [(c, "validation") for c in classes], ref_template="#/$defs/{model}"
    )
    defs = _replace_payload_unions(top["$defs"])
    # openhands-sdk <= 1.10.0 wrote TextContent.enable_truncation; readers drop it.
    defs["TextContent"]["properties"]["enable_truncation"] = {
        "type": "boolean",
        "deprecated": True,
        "description": "Legacy key (openhands-sdk <= 1.10.0), ignored on read.",
    }
    schema = _dispatch(list(EVENT_CLASSES), what="event")
    schema["description"] = (
        "One event file of an OpenHands V1 conversation (events/event-<index>-<id>.json)."
    )
    schema["properties"] = {
        "id": {"type": "string"},
        "kind": {"type": "string"},
    }
    return {
        "$schema": DRAFT,
        "$id": _ID_PREFIX + EVENT_SCHEMA,
        "title": "OpenHands V1 event",
        **schema,
        "$defs": dict(sorted(defs.items())),
    }


def _base_state_schema() -> dict[str, Any]:
    schema = BaseState.model_json_schema(ref_template="#/$defs/{model}")
    defs = schema.pop("$defs", {})
    return {
        "$schema": DRAFT,
        "$id": _ID_PREFIX + BASE_STATE_SCHEMA,
        **schema,
        "$defs": dict(sorted(defs.items())),
    }


@cache
def build_schemas() -> dict[str, dict[str, Any]]:
    """File name -> schema, generated from the models."""
    return {EVENT_SCHEMA: _event_schema(), BASE_STATE_SCHEMA: _base_state_schema()}


def render(schema: dict[str, Any]) -> str:
    """The text written to ``schemas/``: two-space indent, trailing newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_schemas(directory: str | Path) -> list[Path]:
    """Write every schema into ``directory``; returns the paths written."""
    from trajkit.store.atomic import atomic_write, make_folder

    out = make_folder(directory)
    written = []
    for name, schema in build_schemas().items():
        atomic_write(out / name, render(schema).encode("utf-8"))
        written.append(out / name)
    return written


def drift(directory: str | Path) -> list[str]:
    """Names of schema files in ``directory`` that are missing or differ from the models."""
    problems = []
    for name, schema in build_schemas().items():
        path = Path(directory) / name
        if not path.is_file():
            problems.append(f"{path}: missing (run `trajkit schema --write {directory}`)")
        elif path.read_text(encoding="utf-8") != render(schema):
            problems.append(f"{path}: out of date (run `trajkit schema --write {directory}`)")
    return problems


OUTPUT_COMMANDS = (
    "convert",
    "export",
    "inspect",
    "ls",
    "migrate",
    "repair",
    "schema",
    "stats",
    "validate",
    "view",
)
"""Commands whose `--json` document has a shipped schema `trajkit.<command>/1`."""


def shipped_dir() -> Path:
    """The schemas shipped inside the installed package (`trajkit/_schemas/`).

    The checkout's `schemas/` is a link to the same folder, so a source tree and an installed
    wheel read the same files.
    """
    from importlib.resources import files

    return Path(str(files("trajkit") / "_schemas"))


def output_schema(command: str) -> dict[str, Any]:
    """The JSON Schema of `trajkit <command> --json` (its `"schema"` is `trajkit.<command>/1`)."""
    name = command.removeprefix("trajkit.").removesuffix("/1")
    if name not in OUTPUT_COMMANDS:
        raise KeyError(command)
    data: dict[str, Any] = json.loads((shipped_dir() / "cli" / f"{name}.schema.json").read_text())
    return data


def schema_text(name: str | None = None) -> str:
    """What `trajkit schema [NAME]` prints: every model schema as one object keyed by file name,
    one of them (`event`, `base_state`), or a command's `--json` schema (`ls`, `trajkit.ls/1`).

    Raises:
        UsageError: no schema has that name (the message lists the names there are).
    """
    from trajkit.errors import UsageError

    schemas = build_schemas()
    if name is None:
        return json.dumps(schemas, indent=2, ensure_ascii=False) + "\n"
    if name.removeprefix("trajkit.").removesuffix("/1") in OUTPUT_COMMANDS:
        return render(output_schema(name))
    for key in (name, f"{name}.schema.json"):
        if key in schemas:
            return render(schemas[key])
    choices = ", ".join([*(k.removesuffix(".schema.json") for k in schemas), *OUTPUT_COMMANDS])
    raise UsageError(f"no schema named {name!r}; choose one of: {choices}")


def schema_listing(**extra: object) -> dict[str, object]:
    """`schema --json` (`trajkit.schema/1`): every schema trajkit ships, and `extra` (what
    `--check` found or `--write` wrote).
    """
    models = [
        {"name": key.removesuffix(".schema.json"), "file": key, "id": doc.get("$id"), "of": "model"}
        for key, doc in build_schemas().items()
    ]
    commands = [
        {
            "name": name,
            "file": f"cli/{name}.schema.json",
            "id": output_schema(name).get("$id"),
            "of": "command",
            "shape": f"trajkit.{name}/1",
        }
        for name in OUTPUT_COMMANDS
    ]
    return {"schema": "trajkit.schema/1", "schemas": [*models, *commands], **extra}
