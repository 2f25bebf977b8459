"""Older SDKs' events are checked on the fast path once upgraded (issue 31).

SDKs before 1.0 wrote `kind` first; the upgrade rules (`trajkit.events.upgrade`) rewrite such
an event in memory and put `kind` last, where the current SDK's dump has it, so validate's
re-dump of the upgraded object is read by the strict model in one pass (`store.scan`'s
`strict_event`) instead of falling to the full jsonschema diagnosis (13x the cost per event).
What validate finds must not change: the problems equal those of `thorough` (jsonschema over
every file), and those of the same events written by the current SDK, plus the upgrade notes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from tests.support import fixtures as fx
from trajkit.events.upgrade import upgrade_event
from trajkit.store.scan import strict_event
from trajkit.validate import validate_conversation

AGENT_SERVER = next((fx.FIXTURES / "shapes" / "agent_server").glob("*/event_service"))
"""A conversation as an agent server of 2025-09 wrote it (kind first, older kind names)."""
_SHARED = [p / "shared" for p in (fx.REPO.parent, fx.REPO.parents[1])]
WILD = next((p for p in _SHARED if p.is_dir()), _SHARED[0]) / "fixtures-wild" / "agent-server"


def _problems(folder: Path, *, thorough: bool = False) -> list[tuple[str, str, str, str]]:
    report = validate_conversation(folder, thorough=thorough)
    return [(p.path.name, p.pointer, p.code, p.message) for p in report.problems]


def _older_folders() -> list[Path]:
    wild = sorted(WILD.glob("*/event_service")) if WILD.is_dir() else []
    return [AGENT_SERVER, *wild]


def test_an_upgraded_event_dumps_as_the_fast_path_reads_it() -> None:
    files = sorted((AGENT_SERVER / "events").glob("event-*.json"))
    assert files
    for path in files:
        raw = path.read_bytes()
        assert raw.startswith(b'{"kind": '), path.name  # an older SDK's dump
        assert strict_event(raw) is None, path.name  # never read as current before upgrade
        data = orjson.loads(raw)
        upgrade_event(data)
        assert list(data)[-1] == "kind", path.name
        assert strict_event(orjson.dumps(data)) is not None, path.name


@pytest.mark.parametrize("folder", _older_folders(), ids=lambda p: p.parent.name[:8])
def test_an_older_sdks_conversation_gives_the_problems_of_the_full_ladder(folder: Path) -> None:
    found = _problems(folder)
    assert any(code == "sdk-version" for _, _, code, _ in found)  # it was upgraded
    assert found == _problems(folder, thorough=True)


def test_the_same_events_written_by_the_current_sdk_give_the_same_problems(
    tmp_path: Path,
) -> None:
    current = tmp_path / AGENT_SERVER.parent.name / "event_service"
    shutil.copytree(AGENT_SERVER, current)
    for path in (current / "events").glob("event-*.json"):
        data = orjson.loads(path.read_bytes())
        upgrade_event(data)
        path.write_bytes(orjson.dumps(data))  # compact, kind last: the current SDK's dump
    older = [p for p in _problems(AGENT_SERVER) if p[2] != "sdk-version"]
    assert older == [p for p in _problems(current) if p[2] != "sdk-version"]
