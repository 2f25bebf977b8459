"""Run examples on trajkit and print, for each, whether it runs as on the SDK or what first
differs (a helper for whoever makes one pass; the test is ``test_examples.py``).

    python tests/sdk/examples/compare.py [01 02 ...]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.sdk.examples.runner import first_difference, run_example  # noqa: E402
from tests.sdk.examples.scripts import examples  # noqa: E402

EXPECTED = Path(__file__).resolve().parent / "expected"


def main(names: list[str]) -> None:
    same = 0
    todo = [e for e in examples() if not names or e.name in names]
    for ex in todo:
        want = json.loads((EXPECTED / f"{ex.name}.json").read_text())
        with tempfile.TemporaryDirectory() as tmp:
            got = run_example(ex, sys.executable, Path(tmp), rename=True)
        diff = first_difference(got, want)
        same += diff is None
        print(f"{ex.name}: {'same' if diff is None else diff}", flush=True)
    print(f"{same} of {len(todo)} run the same")


if __name__ == "__main__":
    main(sys.argv[1:])
