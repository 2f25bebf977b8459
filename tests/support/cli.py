"""Run the `trajkit` command in tests: as a real child process, or in process with click's runner.

One home for what many test files need: `python -m trajkit` with this checkout first on the
path, a wide terminal (so messages are not wrapped) and a timeout (a hang fails the test instead
of blocking the suite); and an in-process call that fails on any exception but `SystemExit` and
on a traceback in the output.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from click.testing import CliRunner, Result

from tests.support.fixtures import REPO

__all__ = ["invoke", "run_trajkit"]


def run_trajkit(
    *args: str | os.PathLike[str],
    timeout: float = 120,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    prefix: Sequence[str] = (),
    columns: str = "300",
) -> subprocess.CompletedProcess[str]:
    """`python -m trajkit ARGS` in a child process; stdout and stderr captured as text.

    `env` is the whole environment of the child (default: this process's); PYTHONPATH and
    COLUMNS are set on top of it. `prefix` goes before the interpreter (`setpriv ...`).
    """
    base = dict(os.environ if env is None else env)
    path = base.get("PYTHONPATH", "")
    base["PYTHONPATH"] = f"{REPO}{os.pathsep}{path}" if path else str(REPO)
    base["COLUMNS"] = columns
    return subprocess.run(
        [*prefix, sys.executable, "-m", "trajkit", *map(str, args)],
        capture_output=True,
        text=True,
        env=base,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )


def invoke(*args: str | Path) -> Result:
    """`trajkit ARGS` in process. Fails on an exception other than `SystemExit` (a crash, not
    an exit status) and on a traceback in the output."""
    from trajkit.cli import main

    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        args,
        repr(result.exception),
        result.output,
    )
    assert "Traceback" not in result.output, result.output
    return result
