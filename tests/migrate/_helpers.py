"""Shared helpers for the migrate tests: fixture paths, one-shot migration, lookups by V0 id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.fixtures import FIXTURES, V0_FIXTURES, V0_PUBLIC
from trajkit.events import Event
from trajkit.migrate import MigratedConversation, SkippedInput, iter_v0_conversations

V0 = V0_FIXTURES
SYN = FIXTURES / "v0-synthetic"
V0_FILES = [V0 / name for name in V0_PUBLIC]
"""The public V0 inputs; a test given one is skipped when `../shared` is absent (conftest)."""


def migrate_all(path: Path, **options: Any) -> list[MigratedConversation | SkippedInput]:
    """Every outcome of migrating `path` in memory."""
    return list(iter_v0_conversations([path], **options))


def migrate(path: Path, **options: Any) -> MigratedConversation:
    """The single conversation in `path` (fails the test on anything else)."""
    out = migrate_all(path, **options)
    assert len(out) == 1, out
    conv = out[0]
    assert isinstance(conv, MigratedConversation), conv
    return conv


def v1_of(conv: MigratedConversation, v0_id: int) -> list[Event]:
    """The V1 events made from V0 event `v0_id`, in log order (through the sidecar)."""
    entry = next(e for e in conv.sidecar["events"] if e["v0_id"] == v0_id)
    ids = set(entry["v1_ids"])
    return [e for e in conv.events if e.id in ids]


def side(conv: MigratedConversation, v0_id: int) -> dict[str, Any]:
    """The sidecar entry of V0 event `v0_id`."""
    return next(e for e in conv.sidecar["events"] if e["v0_id"] == v0_id)


def kinds(events: list[Event]) -> list[str]:
    """`kind` of each event, with the payload kind for actions and observations."""
    out = []
    for e in events:
        payload = getattr(e, "action", None) or getattr(e, "observation", None)
        out.append(f"{e.kind}:{payload.kind}" if payload is not None else e.kind)
    return out
