"""The public names of `trajkit.migrate`, and the in-memory API other commands use."""

from __future__ import annotations

import trajkit.migrate as migrate_pkg
from tests.migrate._helpers import V0
from trajkit.events import BaseState, Event
from trajkit.migrate import MigratedConversation, iter_v0_conversations


def test_exported_names():
    assert sorted(migrate_pkg.__all__) == sorted(
        [
            "AlreadyMigrated", "REPORT_FILE", "SIDECAR_FILE", "V1_TOOL_NAMES", "Migrated",
            "MigratedConversation", "MigrationTally",
            "MigrationReport", "SkippedInput", "ToolNames", "V0Source",
            "iter_v0_conversations", "migrate_paths", "v0_to_v1",
            "write_conversation",
        ]
    )  # fmt: skip
    for name in migrate_pkg.__all__:
        assert hasattr(migrate_pkg, name)


def test_in_memory_migration_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (conv,) = iter_v0_conversations([V0 / "basic.json"])
    assert isinstance(conv, MigratedConversation)
    assert isinstance(conv.base_state, BaseState) and conv.base_state.persistence_dir is None
    assert all(isinstance(e, Event) for e in conv.events)
    assert conv.folder_name == conv.id.replace("-", "")
    assert list(tmp_path.iterdir()) == []
