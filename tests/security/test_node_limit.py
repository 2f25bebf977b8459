"""Issue 14 item 10: an event under the size limit that holds millions of empty objects is
refused by its node count before any Python object is built, so no command's peak memory
passes ~10x the file (48 MB of `{},` took 1.5-3.0 GB before). Real file, child processes
whose own peak resident memory (VmHWM) is measured (tests/reliability/test_limits.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.test_limits import _trajkit
from tests.security.conftest import copy_fixture

N_OBJECTS = 16_000_000


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc (Linux)")
def test_event_with_millions_of_nodes_is_refused_cheaply(tmp_path: Path) -> None:
    conv = copy_fixture(tmp_path)
    target = sorted((conv / "events").glob("event-*.json"))[-1]
    body = b'{"kind":"MessageEvent","id":"x","extra":[' + b"{}," * N_OBJECTS + b"{}]}"
    target.write_bytes(body)
    size_mb = len(body) / 2**20
    failures = []
    for args in (
        ["validate", str(conv)],
        ["convert", str(conv)],
        ["export", str(conv), "-o", str(tmp_path / "export")],
        ["repair", "--dry-run", str(conv)],
        ["inspect", str(conv)],
        ["view", str(conv), "-o", str(tmp_path / "v.html")],
    ):
        code, output, peak = _trajkit(tmp_path, *args)
        # repair plans to quarantine the file (exit 0): refusing it there is the fix
        expected = (0, 1) if args[0] == "repair" else (1,)
        if code not in expected or "JSON values" not in output or peak > 10 * size_mb:
            failures.append((args[0], code, round(peak), output[-300:]))
    assert failures == [], f"file {size_mb:.0f} MiB"
