"""The README's "Export dataset schema" tables are the Arrow schemas, column for column."""

from __future__ import annotations

import pyarrow as pa

from tests.support.fixtures import REPO
from trajkit.export.arrow_schema import CONVERSATIONS_SCHEMA, EVENTS_SCHEMA, MESSAGE_TYPE


def _type(field: pa.Field) -> str:
    if field.type == pa.list_(MESSAGE_TYPE):
        return "list<message>"
    return str(field.type).replace("list<item: ", "list<").replace("list<element: ", "list<")


def render_table(schema: pa.Schema) -> str:
    """The README table of one schema."""
    lines = ["| column | type | meaning |", "| --- | --- | --- |"]
    for f in schema:
        lines.append(f"| `{f.name}` | `{_type(f)}` | {f.metadata[b'description'].decode()} |")
    return "\n".join(lines)


def test_readme_tables_match_the_schemas() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Export dataset schema", 1)[1].split("\n## ", 1)[0]
    for schema in (CONVERSATIONS_SCHEMA, EVENTS_SCHEMA):
        assert render_table(schema) in section, f"regenerate with render_table({schema.metadata})"
    for name in MESSAGE_TYPE.names:
        assert name in section.split("conversational layout: a list of structs")[1][:200]
