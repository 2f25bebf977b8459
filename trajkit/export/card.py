"""The dataset card: `OUT_DIR/README.md`, so `datasets.load_dataset(OUT_DIR, name)` works.

Hugging Face `datasets` reads a folder's `README.md` front matter: `configs:` names each table
and its Parquet files, so a table whose columns differ from another's is loaded on its own
(without it, `load_dataset(OUT_DIR)` globs every Parquet file together and fails: "column names
don't match"). The first table is the default config. The body says what made the folder (the
trajkit version, the command, the options), how many rows each table holds (from the shards'
footers, so it is right after incremental runs too) and every column (the Arrow schema's
descriptions). It is rewritten at the end of every export.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from trajkit.store.atomic import atomic_write

__all__ = ["CARD_NAME", "write_card"]

CARD_NAME = "README.md"


def write_card(
    out: Path,
    shards: Mapping[str, Sequence[str]],
    schemas: Mapping[str, pa.Schema],
    *,
    command: str | None,
    options: Mapping[str, Any],
) -> None:
    """Write `out/README.md` for the tables `schemas` names (first = default config)."""
    from trajkit import __version__

    rows = {
        t: sum(pq.read_metadata(out / t / name).num_rows for name in shards.get(t, ()))
        for t in schemas
    }
    lines = ["---", "configs:"]
    for n, table in enumerate(schemas):
        lines += [
            f"- config_name: {table}",
            "  data_files:",
            "  - split: train",
            f"    path: {table}/*.parquet",
        ]
        if n == 0:
            lines.append("  default: true")
    lines += ["tags:", "- trajkit", "- openhands", "- agent-trajectories", "---", ""]
    lines += [
        "# OpenHands conversations, exported by trajkit",
        "",
        f"Made with trajkit {__version__} by `{command or 'trajkit.export.export_dataset'}`"
        f" ({', '.join(f'{k} {v}' for k, v in options.items())}).",
        "",
        "| config | rows | load with |",
        "| --- | --- | --- |",
    ]
    for table in schemas:
        lines.append(f'| `{table}` | {rows[table]:,} | `datasets.load_dataset(OUT, "{table}")` |')
    for table, schema in schemas.items():
        lines += ["", f"## `{table}`", "", "| column | type | meaning |", "| --- | --- | --- |"]
        for f in schema:
            doc = (f.metadata or {}).get(b"description", b"").decode().replace("|", r"\|")
            lines.append(f"| `{f.name}` | `{f.type}` | {doc} |")
    atomic_write(out / CARD_NAME, "\n".join(lines) + "\n")
