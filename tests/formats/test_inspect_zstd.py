"""`.eval` logs whose members are zstd (zip method 93), as Inspect's own writer makes them.

The log is written by `inspect_ai.log.write_eval_log` (its default compression); trajkit reads it
in a subprocess, where inspect_ai's patch of `zipfile` is not loaded: with `zstandard` (the
`zstd` extra) it gives the same conversations as the deflate log; without it, one line naming
the extra; a damaged member, one line naming the entry.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support import fixtures as fx
from tests.support.fixtures import REPO
from trajkit.cli import main

_BLOCK_ZSTD = "import sys; sys.modules['zstandard'] = None; "


def _trajkit(*args: str, prelude: str = "") -> subprocess.CompletedProcess[str]:
    code = prelude + "from trajkit.cli import main; main()"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(  # a process of its own: no inspect_ai import patches zipfile there
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=300
    )


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a deflate log written by trajkit, the same log rewritten by Inspect: zstd)."""
    from inspect_ai.log import read_eval_log, write_eval_log

    tmp = tmp_path_factory.mktemp("zstd")
    deflate, zstd = tmp / "deflate.eval", tmp / "zstd.eval"
    conversations = [str(fx.sdk_conversation(s)) for s in ("b_terminal", "d_parallel")]
    result = CliRunner().invoke(main, ["convert", *conversations, "--to", "inspect", "-o", str(deflate)])  # fmt: skip
    assert result.exit_code == 0, result.output
    write_eval_log(read_eval_log(str(deflate)), str(zstd))
    with zipfile.ZipFile(zstd) as z:
        methods = {i.compress_type for i in z.infolist() if i.filename.startswith("samples/")}
    assert methods == {93}  # what Inspect writes: zstd members
    return deflate, zstd


def test_zstd_members_read_with_the_zstd_extra(logs: tuple[Path, Path]) -> None:
    deflate, zstd = logs
    ours, theirs = (_trajkit("convert", str(p)) for p in (deflate, zstd))
    assert theirs.returncode == 0, theirs.stderr
    assert "Traceback" not in theirs.stderr
    lines = [json.loads(line) for line in theirs.stdout.splitlines()]
    assert len(lines) == 2
    assert [x["messages"] for x in lines] == [
        json.loads(line)["messages"] for line in ours.stdout.splitlines()
    ]


def test_without_zstandard_one_line_names_the_extra(logs: tuple[Path, Path]) -> None:
    result = _trajkit("convert", str(logs[1]), prelude=_BLOCK_ZSTD)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert errors and all("pip install 'trajkit[zstd]'" in line for line in errors)
    assert all(f"{logs[1]}:" in line for line in errors)  # names the file and the entry
    deflate = _trajkit("convert", str(logs[0]), prelude=_BLOCK_ZSTD)  # deflate needs nothing
    assert deflate.returncode == 0, deflate.stderr


def test_a_damaged_zstd_member_is_one_line(logs: tuple[Path, Path], tmp_path: Path) -> None:
    bad = tmp_path / "bad.eval"
    data = bytearray(logs[1].read_bytes())
    with zipfile.ZipFile(logs[1]) as z:
        info = next(i for i in z.infolist() if i.filename.startswith("samples/"))
    at = info.header_offset + 30 + len(info.filename.encode()) + 16  # inside its zstd frame
    data[at : at + 8] = b"\xff" * 8
    bad.write_bytes(bytes(data))
    result = _trajkit("validate", str(bad))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"{bad}:{info.filename}" in result.stdout + result.stderr
