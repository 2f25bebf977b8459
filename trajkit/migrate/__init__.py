"""Migrate OpenHands V0 trajectories into the V1 persisted layout.

- `containers`: find V0 trajectories in files and folders (a registry of container handlers).
- `v0`: the V0 event dict and its shapes (flat, pairs, resolver records), legacy keys.
- `mapping`: V0 events -> V1 events for one conversation (`v0_to_v1`); `toolcalls`: the
  tool-call actions of one LLM response and their results; `ledger`: ids, sidecar and counts.
- `payloads`, `recall`: per-type payloads and the recall text; `state`: `base_state.json`.
- `report`: `migration_report.json` and the `v0_sidecar.json` keeping what V1 cannot hold.
- `run`: `iter_v0_conversations` (in memory, for `inspect`/`export --from-v0`) and
  `migrate_paths` (writes folders, streaming, in worker processes).
"""

from trajkit.migrate.containers import SkippedInput, V0Input, V0Source, iter_v0_inputs
from trajkit.migrate.mapping import V1_TOOL_NAMES, MigratedConversation, ToolNames, v0_to_v1
from trajkit.migrate.report import REPORT_FILE, SIDECAR_FILE, MigrationReport
from trajkit.migrate.run import (
    AlreadyMigrated,
    Migrated,
    MigrationTally,
    iter_v0_conversations,
    migrate_paths,
    write_conversation,
)

__all__ = [
    "REPORT_FILE",
    "AlreadyMigrated",
    "SIDECAR_FILE",
    "V1_TOOL_NAMES",
    "Migrated",
    "MigrationTally",
    "MigratedConversation",
    "MigrationReport",
    "SkippedInput",
    "ToolNames",
    "V0Input",
    "V0Source",
    "iter_v0_conversations",
    "iter_v0_inputs",
    "migrate_paths",
    "v0_to_v1",
    "write_conversation",
]
