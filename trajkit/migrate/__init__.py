"""Migrate OpenHands data into the V1 persisted layout (`run`).

Reading V0 is the input registry's job (`trajkit.shapes.v0`: containers, mapping to V1
events, loss report); this package writes: `migrate_paths` (folders, streaming, in worker
processes) and `iter_v0_conversations` (in memory, nothing written).
"""

from trajkit.migrate.run import (
    AlreadyMigrated,
    Migrated,
    MigrationTally,
    iter_v0_conversations,
    migrate_paths,
    write_conversation,
)
from trajkit.shapes import SkippedInput
from trajkit.shapes.v0 import V0Source
from trajkit.shapes.v0.mapping import V1_TOOL_NAMES, MigratedConversation, ToolNames, v0_to_v1
from trajkit.shapes.v0.report import REPORT_FILE, SIDECAR_FILE, MigrationReport

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
    "V0Source",
    "iter_v0_conversations",
    "migrate_paths",
    "v0_to_v1",
    "write_conversation",
]
