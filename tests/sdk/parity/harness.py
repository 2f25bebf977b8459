"""Run a parity scenario through trajkit and load what the SDK did for it."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

from tests.sdk.parity.snapshot import snapshot_run
from tests.support.llm_server import ScriptedLLMServer

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "expected"


def renamed_scenarios() -> types.ModuleType:
    """``scenarios.py`` with the issue's two renames and nothing else changed."""
    name = "tests.sdk.parity._scenarios_trajkit"
    if name in sys.modules:
        return sys.modules[name]
    path = HERE / "scenarios.py"
    text = path.read_text()
    text = text.replace("openhands.sdk", "trajkit.sdk").replace("openhands.tools", "trajkit.tools")
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    exec(compile(text, str(path), "exec"), module.__dict__)
    return module


def run_trajkit(name: str, work: Path) -> dict[str, Any]:
    """Snapshot of scenario ``name`` run through trajkit under ``work``."""
    fn = getattr(renamed_scenarios(), f"scenario_{name}")
    with ScriptedLLMServer() as server:
        result = fn(server, work)
        return snapshot_run(work, server.requests, result, base_url=server.base_url)


def expected(name: str) -> dict[str, Any]:
    """What openhands-sdk 1.58.2 did for scenario ``name`` (recorded by record_sdk.py)."""
    data: dict[str, Any] = json.loads((EXPECTED / f"{name}.json").read_text())
    return data
