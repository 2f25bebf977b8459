"""Every hand-made bad conversation in fixtures/bad goes through `trajkit convert`."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support import fixtures as fx
from trajkit.cli import main
from trajkit.validate.verdict import conversation_errors, invalid_reason

BAD = sorted(p for p in fx.BAD_FIXTURES.iterdir() if p.is_dir())

# Defects that make the active branch unreadable: convert cannot read these at all. Issue 16
# made convert refuse every conversation validate rejects (with validate's first error), so
# these fail now with validate's message and the others validate rejects fail too.
UNREADABLE = {
    "dangling_parent": "/parent_id: parent_id '99999999-9999-4999-8999-999999999999' is not an event id",
    "parent_cycle": "/parent_id: parent_id links loop back",
    "leaf_event_missing": "base_state.json:/leaf_event_id: leaf_event_id",
    "empty_event_file": "is empty)",
    "truncated_event_json": ": not valid JSON",
    "truncated_base_state": "base_state.json: not valid JSON",
    "top_level_array": ": an event must be a JSON object",
    "invalid_utf8": "event-00001-",
    "missing_required_fields": ":/tool_call_id: Field required",
    "missing_events_folder": "/leaf_event_id",
}


def _tree(folder: Path) -> dict[Path, tuple[int, int]]:
    return {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


@pytest.mark.parametrize("folder", BAD, ids=[p.name for p in BAD])
def test_bad_conversation(folder: Path) -> None:
    before = _tree(folder)
    result = CliRunner().invoke(main, ["convert", str(folder), "--view", "full"])
    assert "Traceback" not in result.stderr
    assert _tree(folder) == before
    errors = conversation_errors(folder)
    assert bool(errors) or folder.name not in UNREADABLE
    if errors:
        assert result.exit_code == 1
        assert result.stdout == ""
        assert result.stderr == f"Error: {invalid_reason(errors)}\n"
        assert result.stderr.startswith(f"Error: {folder}")
    else:
        assert result.exit_code == 0, result.stderr
        assert result.stdout.startswith('{\n  "messages": [')


def test_bad_conversations_are_skipped_in_a_corpus() -> None:
    result = CliRunner().invoke(main, ["convert", str(fx.BAD_FIXTURES), "-j", "2"])
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    invalid = [f for f in BAD if conversation_errors(f)]
    assert {f.name for f in invalid} >= set(UNREADABLE)
    assert len(errors) == len(invalid)
    assert len(result.stdout.splitlines()) == len(BAD) - len(invalid)
    assert result.stderr.splitlines()[-1] == (
        f"converted {len(BAD) - len(invalid)} conversation(s), skipped {len(invalid)}; "
        "0 secret(s) masked"
    )
