"""Record what each SDK example does on openhands-sdk 1.58.2 (run once, by hand).

    python tests/sdk/examples/record_sdk.py [--python /work/sdkvenv/bin/python] [01 02 ...]

The example runs, unchanged, under the SDK venv's interpreter against the scripted loopback
server served from this process; ``expected/<nn>.json`` gets the snapshot (see README.md).
Not collected by pytest (no ``test_``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.sdk.examples.runner import run_example  # noqa: E402
from tests.sdk.examples.scripts import examples  # noqa: E402

OUT = Path(__file__).resolve().parent / "expected"
SDK_PYTHON = "/work/sdkvenv/bin/python"


def main(argv: list[str]) -> None:
    python = SDK_PYTHON
    if argv[:1] == ["--python"]:
        python, argv = argv[1], argv[2:]
    version = subprocess.run(
        [python, "-c", "import importlib.metadata as m; print(m.version('openhands-sdk'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    OUT.mkdir(exist_ok=True)
    for ex in examples():
        if argv and ex.name not in argv:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            snap = run_example(ex, python, Path(tmp), rename=False)
        raw = snap.pop("raw")
        snap["recorded_with"] = f"openhands-sdk {version}"
        (OUT / f"{ex.name}.json").write_text(json.dumps(snap, indent=1, sort_keys=True) + "\n")
        tail = raw["stderr"].strip().splitlines()[-1:] if snap["exit"] else []
        print(
            f"{ex.name}: exit {snap['exit']}, {len(snap['requests'])} requests, "
            f"{raw['seconds']}s {tail}",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
