"""Issue 27's drop-in test: the SDK's own standalone examples run the same on trajkit.

Each example of ``../shared/sdk-examples/01_standalone_sdk/`` runs in a temporary copy with
only its import lines renamed (``openhands.sdk`` -> ``trajkit.sdk``, ``openhands.tools`` ->
``trajkit.tools``), as a subprocess against the scripted loopback server, and is compared with
the recording made on openhands-sdk 1.58.2 (``expected/``, ``record_sdk.py``): exit status,
requests, persisted files and printed lines. See README.md for the examples that differ.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.sdk.examples.runner import SOURCE, first_difference, run_example
from tests.sdk.examples.scripts import API_KEY, Example, examples

EXPECTED = Path(__file__).resolve().parent / "expected"


def _param(ex: Example) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=ex.xfail)] if ex.xfail else []
    return pytest.param(ex, id=ex.path.removesuffix(".py"), marks=marks)


@pytest.mark.parametrize("example", [_param(e) for e in examples()])
def test_example_runs_as_on_the_sdk(example: Example, tmp_path: Path) -> None:
    if not SOURCE.is_dir():
        pytest.skip("../shared/sdk-examples is absent (the SDK's examples are never copied here)")
    want = json.loads((EXPECTED / f"{example.name}.json").read_text())
    got = run_example(example, sys.executable, tmp_path, rename=True)
    raw = got["raw"]
    printed = raw["stdout"] + raw["stderr"]
    for secret in (API_KEY, *example.secrets):
        assert secret not in printed, f"{secret!r} printed"
    diff = first_difference(got, want)
    assert diff is None, f"{diff}\n--- stderr ---\n{raw['stderr'][-2000:]}"
