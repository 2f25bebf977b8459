"""Suite-wide options and fixtures: `--runslow`, and paths to the bundled fixtures."""

from __future__ import annotations

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


@pytest.fixture(params=fx.sdk_scenarios())
def sdk_scenario(request: pytest.FixtureRequest) -> str:
    """Each SDK scenario name in turn (a_text, b_terminal, ...)."""
    return str(request.param)


@pytest.fixture
def sdk_conversation_dir(sdk_scenario: str) -> Path:
    """The conversation folder of each SDK scenario in turn (read-only: never modify it)."""
    return fx.sdk_conversation(sdk_scenario)
