"""Open one V0 trajectory as a V1 conversation in memory: load (`containers`), then map.

`read_v0` gives the `MigratedConversation` (events, base state, loss report, sidecar) that
`trajkit migrate` writes; `open_v0` serves the same as a `MemoryConversation`, which every
reader (`ls`, `stats`, `inspect`, `view`, `convert`, `export`) takes like a folder. Any
failure on one trajectory is an `InputError` naming it, so a corpus goes on.
"""

from __future__ import annotations

import orjson

from trajkit.errors import InputError
from trajkit.events import dump_event
from trajkit.shapes.memory import MemoryConversation, ShapeRef, digest
from trajkit.shapes.v0.containers import load_v0
from trajkit.shapes.v0.mapping import MigratedConversation, ToolNames, v0_to_v1

__all__ = ["open_v0", "read_v0"]


def read_v0(ref: ShapeRef, *, tool_names: ToolNames = "keep") -> MigratedConversation:
    """The V1 conversation of one V0 trajectory; raises `InputError` naming what failed."""
    try:
        return v0_to_v1(load_v0(ref), tool_names=tool_names)
    except InputError:
        raise
    except OSError as exc:
        raise InputError(ref.label, "", f"cannot read: {exc.strerror or exc}") from None
    except RecursionError:
        raise InputError(ref.label, "", "JSON nested too deeply to read") from None
    except Exception as exc:  # noqa: BLE001 - one odd trajectory must not stop a corpus
        message = f"could not be migrated ({type(exc).__name__}: {exc}); please report this"
        raise InputError(ref.label, "", message) from None


def open_v0(ref: ShapeRef) -> MemoryConversation:
    """`read_v0` as a conversation the store's readers take (nothing is written)."""
    migrated = read_v0(ref)
    state = orjson.loads(migrated.base_state.model_dump_json(exclude_none=True))
    events = [dump_event(e).encode() for e in migrated.events]
    container = migrated.report.container
    metadata = migrated.sidecar.get("metadata")
    return MemoryConversation(
        ref.label,
        conversation_id=migrated.id,
        state=state,
        events=events,
        notes=[f"OpenHands V0 trajectory ({container}) migrated in memory"],
        fingerprint=digest(b"".join(events)),
        origin=f"v0 {container}",
        record=metadata if isinstance(metadata, dict) else None,
    )
