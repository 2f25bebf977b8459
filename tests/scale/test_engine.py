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


def test_local_engine_is_an_engine_and_keeps_paths(tmp_path):
    from pathlib import Path

    from trajkit.engine import Engine

    engine: Engine = make_engine("local", workers=3)  # mypy: LocalEngine satisfies Engine
    assert isinstance(engine, LocalEngine) and engine.workers == 3
    assert LocalEngine().workers == 2 and LocalEngine(None).forks_workers
    assert not LocalEngine(1).forks_workers  # one worker runs in this process
    assert engine.shares_local_disk
    paths = (Path("relative/corpus"), "s3://bucket/prefix")
    assert engine.portable(paths) == paths  # the workers run in this folder
    assert (
        list(LocalEngine(2).map(fail_on_three, range(9), chunksize=4, on_error=_report))
        == (EXPECTED[:9])
    )


def test_ray_engine_owns_its_path_preparation(ray_cluster, monkeypatch, tmp_path):
    from pathlib import Path

    monkeypatch.chdir(tmp_path)
    engine = make_engine("ray")
    try:
        assert engine.portable([Path("corpus"), "s3://b/k"]) == (tmp_path / "corpus", "s3://b/k")
        assert engine.shares_local_disk and not engine.forks_workers  # a Ray started here
    finally:
        engine.close()


def test_ray_engine_on_a_cluster_does_not_share_this_disk(ray_cluster):
    from trajkit.engine.ray import RayEngine

    engine = RayEngine()  # joins the session's Ray (already initialised in this process)
    engine.address = "10.0.0.5:6379"  # as if it had joined a cluster at that address
    assert not engine.shares_local_disk
