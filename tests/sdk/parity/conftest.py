"""Parity tests: one helper comparing a trajkit run of a scenario with the SDK's recording."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from tests.sdk.parity.harness import expected, run_trajkit

Compare = Callable[..., tuple[dict[str, Any], dict[str, Any]]]


def _state_summary(state: dict[str, Any] | None) -> dict[str, Any] | None:
    if state is None:
        return None
    return {
        "execution_status": state.get("execution_status"),
        "usage_ids": sorted((state.get("stats") or {}).get("usage_to_metrics") or {}),
        "secret_names": sorted((state.get("secret_registry") or {}).get("secret_sources") or {}),
        "tags": state.get("tags"),
        "max_iterations": state.get("max_iterations"),
        "stuck_detection": state.get("stuck_detection"),
    }


@pytest.fixture
def compare(tmp_path: Path) -> Compare:
    """``compare(name, ignore=())``: run scenario ``name`` through trajkit, assert what the
    SDK did (result, event files by kind, timestamp order, base-state essentials, every
    request's parameters and messages) and return ``(got, want)`` for further checks."""

    def run(name: str, ignore: Iterable[str] = ()) -> tuple[dict[str, Any], dict[str, Any]]:
        want = expected(name)
        got = run_trajkit(name, tmp_path)
        skip = set(ignore)
        assert {k: v for k, v in got["result"].items() if k not in skip} == {
            k: v for k, v in want["result"].items() if k not in skip
        }
        assert [c["event_kinds"] for c in got["conversations"]] == [
            c["event_kinds"] for c in want["conversations"]
        ]
        assert all(c["timestamps_ordered"] for c in got["conversations"])
        assert [_state_summary(c["base_state"]) for c in got["conversations"]] == [
            _state_summary(c["base_state"]) for c in want["conversations"]
        ]
        assert len(got["requests"]) == len(want["requests"])
        for mine, theirs in zip(got["requests"], want["requests"], strict=True):
            assert mine == theirs
        assert got["request_headers"] == want["request_headers"]
        return got, want

    return run
