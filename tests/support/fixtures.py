"""Paths to the bundled fixtures (`fixtures/`), so tests never depend on the working directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
SDK_FIXTURES = FIXTURES / "sdk"
OWN_V0 = FIXTURES / "v0"
"""V0 samples written by trajkit's engineers (the shapes of the public files)."""
V0_FIXTURES = next(
    (
        p
        for p in (
            REPO.parent / "shared" / "fixtures-v0",
            REPO.parents[1] / "shared" / "fixtures-v0",
        )
        if p.is_dir()
    ),
    REPO.parent / "shared" / "fixtures-v0",
)
"""The public V0 files (`../shared/fixtures-v0`), never committed: tests that use them are
skipped when they are absent (`tests/conftest.py`)."""
HAVE_REAL_V0 = V0_FIXTURES.is_dir()
V0_PUBLIC = (
    "basic.json",
    "basic_gui_mode.json",
    "basic_interactions.json",
    "tls_scanner__trajectory.json",
    "wrong_initial_state.json",
    "sessions/63b4315947a049e2b7a51249b3d4fcc3",
)
"""The inputs in `../shared/fixtures-v0`, named here so that collecting the tests never lists a
folder a user's clone does not have (the files are fixed: see that folder's provenance)."""
BAD_FIXTURES = FIXTURES / "bad"


def sdk_scenarios() -> list[str]:
    """Scenario names under `fixtures/sdk/` (a_text, b_terminal, ...), sorted."""
    return sorted(p.name for p in SDK_FIXTURES.iterdir() if p.is_dir())


def sdk_conversation(scenario: str) -> Path:
    """The `<uuid hex>/` conversation folder of one SDK scenario."""
    folders = [
        p for p in (SDK_FIXTURES / scenario).iterdir() if p.is_dir() and p.name != "expected"
    ]
    assert len(folders) == 1, f"{scenario}: expected one conversation folder, found {folders}"
    return folders[0]


def sdk_conversations() -> list[Path]:
    """Every SDK conversation folder, in scenario order."""
    return [sdk_conversation(s) for s in sdk_scenarios()]


def sdk_event_files() -> list[Path]:
    """Every `event-*.json` file of every SDK scenario."""
    return [p for c in sdk_conversations() for p in sorted((c / "events").glob("event-*.json"))]


def sdk_expected(scenario: str, name: str) -> Any:
    """Parsed `fixtures/sdk/<scenario>/expected/<name>` (e.g. "chat_messages.json")."""
    return json.loads((SDK_FIXTURES / scenario / "expected" / name).read_text(encoding="utf-8"))


FORMATS = next(
    (
        p
        for p in (
            REPO.parent / "shared" / "fixtures-formats",
            REPO.parents[1] / "shared" / "fixtures-formats",
        )
        if p.is_dir()
    ),
    REPO.parent / "shared" / "fixtures-formats",
)
"""Real files of other agents' formats (`../shared/fixtures-formats`: ATIF, mini-swe-agent,
SWE-agent, Inspect), never committed; tests that use them skip when they are absent."""
ATIF_FILES = (
    "atif/harbor-openhands-hello-world/trajectory.json",
    "atif/harbor-openhands-no-function-calling/trajectory.json",
    "atif/harbor-terminus2-linear-history-v17/trajectory.json",
    "atif/harbor-terminus2-linear-history-v17/trajectory.cont-1.json",
    "atif/harbor-terminus2-summarization/trajectory.json",
    "atif/harbor-terminus2-summarization/trajectory.summarization-1-answers.json",
    "atif/harbor-terminus2-summarization/trajectory.summarization-1-questions.json",
    "atif/harbor-terminus2-summarization/trajectory.summarization-1-summary.json",
    "atif/nemo-atof-to-atif/exmp01_atif.json",
    "atif/nemo-atof-to-atif/exmp02_atif.json",
    "atif/nemo-atof-to-atif/exmp04_atif.json",
    "atif/nemo-atof-to-atif/exmp06_atif.json",
    "atif/phoenix-handwritten/multimodal_trajectory.json",
    "atif/phoenix-handwritten/simple_trajectory.json",
)
"""The ATIF files of `../shared/fixtures-formats` (named here: collecting never lists it)."""
ATIF_CONTINUATIONS = ("atif/harbor-terminus2-linear-history-v17/trajectory.cont-1.json",)
"""The ATIF files a folder walk reads joined to the trajectory they continue (not listed)."""
SWE_FILES = (
    "mini-swe-agent/gemini-3-pro-v1.15.0/django__django-16255.traj.json",
    "mini-swe-agent/gemini-3-pro-v1.15.0/django__django-11163.traj.json",
    "mini-swe-agent/test-data/local.traj.json",
    "swe-agent/6e44b9__sweagenttestrepo-1c2844.traj",
    "swe-agent/function_calling_simple.traj",
    "swe-agent/pydicom__pydicom-1458.traj",
    "swe-agent/humanevalfix-python-0.traj",
)
"""The mini-swe-agent and SWE-agent files of `../shared/fixtures-formats`."""
INSPECT_FILES = (
    "inspect/2025-05-12T20-27-36-04-00_browser.json",
    "inspect/log_tool_call_error.json",
    "inspect/log_images.json",
    "inspect/log_read_sample.eval",
)
"""The Inspect AI logs of `../shared/fixtures-formats`."""
