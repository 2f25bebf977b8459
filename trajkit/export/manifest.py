"""`OUT_DIR/manifest.json`: what an export holds, so a re-run exports only what changed.

```json
{"format": "trajkit-export", "version": 1, "schema_version": "1",
 "options": {"view": "condensed", "redact": true},
 "next_shard": 3,
 "shards": {"conversations": ["part-00000.parquet"], "events": ["part-00001.parquet"]},
 "conversations": {"<id>": {"source": "/abs/folder", "fingerprint": "…",
                            "conversations_shard": "part-00000.parquet",
                            "events_shard": "part-00001.parquet", "n_events": 12}}}
```

The manifest is the source of truth: a shard file that it does not list was left by an
interrupted run and is removed before the next one starts. It is replaced atomically, after
every new shard is closed and before replaced shards are deleted, so at any instant the files
it lists are whole. Its size grows with the number of conversations (about 250 bytes each),
not with events.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from trajkit.errors import InputError
from trajkit.store.atomic import atomic_write

__all__ = ["MANIFEST_NAME", "Manifest", "read_manifest", "write_manifest"]

MANIFEST_NAME = "manifest.json"
_FORMAT = "trajkit-export"
_VERSION = 1


@dataclass
class Manifest:
    """The manifest's content (see the module docstring)."""

    options: dict[str, Any]
    schema_version: str
    next_shard: int = 0
    shards: dict[str, list[str]] = field(
        default_factory=lambda: {"conversations": [], "events": []}
    )
    conversations: dict[str, dict[str, Any]] = field(default_factory=dict)

    def new_shard_number(self) -> int:
        """Reserve the next shard number."""
        n = self.next_shard
        self.next_shard += 1
        return n

    def fingerprints_by_source(self) -> dict[str, str]:
        """source -> fingerprint of the last export, to skip unchanged inputs."""
        return {e["source"]: e["fingerprint"] for e in self.conversations.values()}


def read_manifest(path: Path) -> Manifest:
    """Read `manifest.json`; raises `InputError` when it is not one trajkit wrote."""
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise InputError(
            path, "", f"cannot read the export manifest ({exc}); pass --overwrite to start over"
        ) from None
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        raise InputError(path, "/format", f"expected {_FORMAT!r}: not a trajkit export manifest")
    if data.get("version") != _VERSION:
        raise InputError(
            path, "/version", f"manifest version {data.get('version')!r}; expected {_VERSION}"
        )
    try:
        return Manifest(
            options=dict(data["options"]),
            schema_version=str(data["schema_version"]),
            next_shard=int(data["next_shard"]),
            shards={k: list(v) for k, v in data["shards"].items()},
            conversations=dict(data["conversations"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(path, "", f"damaged export manifest ({exc!r}); pass --overwrite") from None


def write_manifest(path: Path, manifest: Manifest) -> None:
    """Replace `manifest.json` atomically."""
    data = {
        "format": _FORMAT,
        "version": _VERSION,
        "schema_version": manifest.schema_version,
        "options": manifest.options,
        "next_shard": manifest.next_shard,
        "shards": manifest.shards,
        "conversations": manifest.conversations,
    }
    atomic_write(path, orjson.dumps(data, option=orjson.OPT_INDENT_2))
