"""Hypothesis strategies: random bytes, hostile JSON, and mutations of real fixture files."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sdk"
EXAMPLES = int(os.environ.get("TRAJKIT_FUZZ_EXAMPLES", "60"))
"""Inputs per property: small in CI; set TRAJKIT_FUZZ_EXAMPLES=5000 for a long run."""

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=os.environ.get("TRAJKIT_FUZZ_RANDOM") is None,
)

EVENT_FILES = sorted(FIXTURES.glob("*/*/events/event-*.json"))
EVENT_OBJECTS = [json.loads(p.read_text()) for p in EVENT_FILES]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=40),
    st.sampled_from(["", "__root__", "../../etc/passwd", "/abs", "x" * 100_000, "\udcff"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated_events(draw: st.DrawFn) -> Any:
    """A real fixture event with one or more random edits (replace, delete, retype, unknown kind)."""
    obj = copy.deepcopy(draw(st.sampled_from(EVENT_OBJECTS)))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        paths = _paths(obj)
        path = draw(st.sampled_from(paths))
        op = draw(st.sampled_from(["replace", "delete", "kind", "wrap"]))
        if not path or op == "kind":
            if isinstance(obj, dict):
                obj["kind"] = draw(
                    st.sampled_from(["Nope", "ActionEvent", "MessageEvent", 7, None])
                )
            continue
        parent = obj
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        if op == "delete" and isinstance(parent, dict):
            del parent[last]
        elif op == "wrap":
            parent[last] = [parent[last]]
        else:
            parent[last] = draw(json_values)
    return obj


def deep_nesting(depth: int) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


hostile_bytes = st.one_of(
    st.binary(max_size=300),
    st.sampled_from(
        [
            b"",
            b"   ",
            b"[]",
            b"null",
            b'"text"',
            b"\xff\xfe{}",
            b'{"kind": "ActionEvent"',
            deep_nesting(5000),
            b"[" * 100_000,
            b'{"kind":"MessageEvent","id":"a","timestamp":"t","source":"user","llm_message":{"role":"user","content":"'
            + b"x" * 2_000_000
            + b'"}}',
        ]
    ),
)
