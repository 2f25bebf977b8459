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


_REAL_V0_USE = re.compile(
    r"\bV0_FIXTURES\b|\bV0_FILES\b|\bALL_INPUTS\b|\bV0 /|\bV0\)|\(V0\b|\[V0\b|str\(V0\)"
)
"""How a test (or a fixture it uses) names the public V0 files (`tests/migrate/_helpers.py`)."""


def _source(function: object) -> str:
    try:
        return inspect.getsource(function)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return ""


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a test that reads the public V0 files when `../shared/fixtures-v0` is absent.

    The test's own source, the sources of the fixtures it uses and its parameters are looked at,
    so a helper never has to touch `../shared` at import to decide.
    """
    if fx.HAVE_REAL_V0:
        return
    functions = [getattr(item, "function", None)]
    info = getattr(item, "_fixtureinfo", None)
    for defs in getattr(info, "name2fixturedefs", {}).values():
        functions.extend(d.func for d in defs if "tests" in getattr(d, "baseid", "tests"))
    params = getattr(getattr(item, "callspec", None), "params", {})
    given_real_v0 = any(
        isinstance(v, Path) and v.is_relative_to(fx.V0_FIXTURES) for v in params.values()
    )
    if given_real_v0 or any(_REAL_V0_USE.search(_source(f)) for f in functions if f):
        pytest.skip("needs the public V0 files in ../shared/fixtures-v0 (never committed)")


@pytest.fixture(params=fx.sdk_scenarios())
def sdk_scenario(request: pytest.FixtureRequest) -> str:
    """Each SDK scenario name in turn (a_text, b_terminal, ...)."""
    return str(request.param)


@pytest.fixture
def sdk_conversation_dir(sdk_scenario: str) -> Path:
    """The conversation folder of each SDK scenario in turn (read-only: never modify it)."""
    return fx.sdk_conversation(sdk_scenario)
