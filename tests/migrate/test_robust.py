"""Damaged V0 data never stops a migration: every mutated trajectory still gives valid V1 events."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from tests.migrate._helpers import SYN, V0
from tests.support.fixtures import OWN_V0
from trajkit.migrate import V0Source, v0_to_v1, write_conversation
from trajkit.validate import validate_conversation

_BASE: list[Any] = (
    json.loads((SYN / "every_type.json").read_text())
    + json.loads(
        (
            V0 / "tls_scanner__trajectory.json"
            if (V0 / "tls_scanner__trajectory.json").exists()
            else OWN_V0 / "gui_download.json"
        ).read_text()
    )[:60]
    + json.loads((SYN / "multi_call_response.json").read_text())
)
_VALUES = [None, 0, -1, 1.5, True, "", "x", [], [1], {}, {"a": 1}, "toolu_01", 5, [[1]], {"id": 3}]


def _mutate(event: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    event = copy.deepcopy(event)
    for _ in range(rnd.randint(1, 3)):
        target = event
        while rnd.random() < 0.6:
            key = rnd.choice(list(target))
            if isinstance(target[key], dict) and target[key] and rnd.random() < 0.7:
                target = target[key]
                continue
            break
        if target:
            key = rnd.choice(list(target))
            if rnd.random() < 0.2:
                del target[key]
            else:
                target[key] = copy.deepcopy(rnd.choice(_VALUES))  # JSON has no shared objects
    return event


@pytest.mark.parametrize("seed", range(25))
def test_mutated_trajectory_migrates_to_valid_events(seed, tmp_path):
    rnd = random.Random(seed)
    items = [_mutate(e, rnd) if rnd.random() < 0.3 else e for e in _BASE]
    if seed % 5 == 0:
        rnd.shuffle(items)
    src = V0Source(
        path="mutated", container="json-list", name="m", items=items, content_key=str(seed)
    )
    conv = v0_to_v1(src)
    folder = write_conversation(conv, tmp_path)
    errors = [str(p) for p in validate_conversation(folder).problems if p.severity == "error"]
    assert errors == []
    report = conv.report
    assert report.mapped + report.opaque + report.dropped == sum(report.source_types.values())
