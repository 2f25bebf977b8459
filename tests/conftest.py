"""Suite-wide options and fixtures: `--runslow`, and paths to the bundled fixtures."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from tests.support import fixtures as fx


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--runslow", action="store_true", default=False, help="also run tests marked slow"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
    skip_slow = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)


_REAL_V0_USE = re.compile(r"\bV0_FIXTURES\b|\bV0 /|\bV0\)|\(V0\b|\[V0\b|str\(V0\)")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a test that reads the public V0 files when `../shared/fixtures-v0` is absent."""
    if fx.HAVE_REAL_V0:
        return
    function = getattr(item, "function", None)
    try:
        source = inspect.getsource(function) if function is not None else ""
    except (OSError, TypeError):
        source = ""
    if _REAL_V0_USE.search(source):
        pytest.skip("needs the public V0 files in ../shared/fixtures-v0 (never committed)")


@pytest.fixture(params=fx.sdk_scenarios())
def sdk_scenario(request: pytest.FixtureRequest) -> str:
    """Each SDK scenario name in turn (a_text, b_terminal, ...)."""
    return str(request.param)


@pytest.fixture
def sdk_conversation_dir(sdk_scenario: str) -> Path:
    """The conversation folder of each SDK scenario in turn (read-only: never modify it)."""
    return fx.sdk_conversation(sdk_scenario)
