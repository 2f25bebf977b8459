"""Shared helpers for the security tests: a copied real conversation and a tree snapshot."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from trajkit.cli import main

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def tree(root: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every path below root (links not followed): size, mtime and content of files."""
    out: dict[str, tuple[int, int, bytes]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            body = p.read_bytes() if p.is_file() and not p.is_symlink() else b""
            out[str(p.relative_to(root))] = (st.st_size, st.st_mtime_ns, body)
    return out


def invoke(*args: str, input: str | None = None) -> Result:  # noqa: A002
    result = CliRunner().invoke(main, list(args), input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in result.output
    return result


def copy_fixture(tmp_path: Path, name: str = "b_terminal") -> Path:
    src = next((FIXTURES / "sdk" / name).glob("[0-9a-f]" * 32))
    dst = tmp_path / "corpus" / src.name
    shutil.copytree(src, dst)
    return dst


@pytest.fixture
def conv(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path)
