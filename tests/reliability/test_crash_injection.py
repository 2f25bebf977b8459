"""Crash injection: SIGKILL the runtime at random points; nothing that was written is lost.

Short mode (CI): `TRAJKIT_CRASH_KILLS` kills (default 12). Long mode: `pytest --runslow
tests/reliability/test_crash_injection.py` (or `TRAJKIT_CRASH_KILLS=200`) does at least 200.
The figures are printed (`-s`) and the seed is in every failure message; set
`TRAJKIT_CRASH_SEED` to replay the same kill schedule (timing still varies).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from tests.reliability.harness import run_crash_cycles

KILLS = int(os.environ.get("TRAJKIT_CRASH_KILLS", "12"))
SEED = int(os.environ.get("TRAJKIT_CRASH_SEED", random.randrange(2**32)))


def _run(tmp_path: Path, kills: int) -> None:
    stats = run_crash_cycles(tmp_path, kills, SEED)
    print(f"\ncrash injection (seed={SEED}): {stats.summary()}")
    assert stats.kills == kills
    assert stats.survived == kills
    assert stats.events_lost == 0
    assert stats.restores_finished == kills
    assert stats.returned_appends > 0  # the workers really wrote between kills


@pytest.mark.timeout(max(240, KILLS * 10))
def test_sigkill_at_random_points(tmp_path: Path) -> None:
    _run(tmp_path, KILLS)


@pytest.mark.slow
@pytest.mark.timeout(3 * 3600)
def test_sigkill_at_random_points_long(tmp_path: Path) -> None:
    _run(tmp_path, max(KILLS, 200))
