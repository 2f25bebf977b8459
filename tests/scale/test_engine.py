"""Engines: results in input order, and `on_error` turns one failing item into a result."""

from __future__ import annotations

import sys

import pytest

from trajkit.engine import EngineError, LocalEngine, make_engine


def fail_on_three(x: int) -> int:
    if x == 3:
        raise ValueError("three is bad")
    return x * 10


def _report(item: int, exc: BaseException) -> str:
    return f"{item}: {type(exc).__name__}: {exc}"


EXPECTED = [0, 10, 20, "3: ValueError: three is bad", 40, 50, 60, 70, 80, 90]


@pytest.mark.parametrize("workers", [1, 2])
def test_local_engine_order_and_errors(workers):
    engine = LocalEngine(workers)
    assert list(engine.map(fail_on_three, range(10), on_error=_report)) == EXPECTED
    with pytest.raises(ValueError, match="three is bad"):
        list(engine.map(fail_on_three, range(10)))


def test_ray_engine_order_and_errors(ray_cluster):
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers need not import tests
    engine = make_engine("ray")
    engine.window = 4  # several windows
    try:
        assert list(engine.map(fail_on_three, range(10), on_error=_report)) == EXPECTED
        with pytest.raises(ValueError, match="three is bad"):
            list(engine.map(fail_on_three, range(10)))
    finally:
        engine.close()  # reused the session's Ray: leaves it running


def test_unknown_engine_and_address_without_ray():
    with pytest.raises(EngineError, match="unknown engine 'spark'"):
        make_engine("spark")
    with pytest.raises(EngineError, match="--address needs --engine ray"):
        make_engine("local", address="10.0.0.5:6379")
