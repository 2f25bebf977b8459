"""Record the SDK's behaviour for each parity scenario (run once, by hand, with the SDK venv).

    /work/sdk-venv/bin/python tests/sdk/parity/record_sdk.py [name ...]

Runs ``scenarios.py`` unchanged with openhands-sdk 1.58.2 against the scripted loopback server
and writes ``expected/<name>.json`` (see README.md). Not collected by pytest (no ``test_``).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
# The scripted server module declares a pytest fixture; the SDK venv has no pytest.
sys.modules.setdefault("pytest", types.SimpleNamespace(fixture=lambda f: f))  # type: ignore[arg-type]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OPENHANDS_SUPPRESS_BANNER", "1")

from tests.sdk.parity import scenarios  # noqa: E402
from tests.sdk.parity.snapshot import snapshot_run  # noqa: E402
from tests.support.llm_server import ScriptedLLMServer  # noqa: E402

OUT = Path(__file__).resolve().parent / "expected"


def main(names: list[str]) -> None:
    from importlib.metadata import version

    OUT.mkdir(exist_ok=True)
    todo = names or [n[len("scenario_") :] for n in dir(scenarios) if n.startswith("scenario_")]
    for name in todo:
        fn = getattr(scenarios, f"scenario_{name}")
        with tempfile.TemporaryDirectory() as tmp, ScriptedLLMServer() as server:
            work = Path(tmp)
            result = fn(server, work)
            snap = snapshot_run(work, server.requests, result, base_url=server.base_url)
        snap["recorded_with"] = f"openhands-sdk {version('openhands-sdk')}"
        (OUT / f"{name}.json").write_text(json.dumps(snap, indent=1, sort_keys=True) + "\n")
        print(f"{name}: {len(snap['requests'])} requests, result {result}")


if __name__ == "__main__":
    main(sys.argv[1:])
