"""Issue 30 against a real `trajkit serve` on 127.0.0.1: a private cache, hostile requests.

Every test talks to the server over a real socket with a bounded number of requests.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.serve.conftest import Server
from tests.views.conftest import make_corpus


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The common umask, under which the cache used to come out 0644 (the server inherits it)."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _cache_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("serve-*.sqlite3*"))


def test_the_default_cache_is_private_to_the_user(tmp_path: Path, umask_022: None) -> None:
    make_corpus(tmp_path / "corpus")
    server = Server([tmp_path / "corpus"], None, env={"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    try:
        assert server.rows()["all"] >= 0  # the index answers: the cache is open
        server.wait_indexed(3)
        folder = tmp_path / "xdg" / "trajkit"
        names = [p.name for p in _cache_files(folder)]
        assert any(n.endswith(".sqlite3-wal") for n in names), names  # WAL mode: 3 files
        assert _mode(folder) == 0o700
        assert {p.name: _mode(p) for p in _cache_files(folder)} == dict.fromkeys(names, 0o600)
    finally:
        server.close()


def test_an_existing_world_readable_cache_is_tightened(tmp_path: Path, umask_022: None) -> None:
    make_corpus(tmp_path / "corpus")
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    first = Server([tmp_path / "corpus"], None, env=env)
    first.wait_indexed(3)
    first.close()
    folder = tmp_path / "xdg" / "trajkit"
    os.chmod(folder, 0o755)  # as an older trajkit left them
    for path in _cache_files(folder):
        os.chmod(path, 0o644)
    (folder.parent / "other").mkdir()

    again = Server([tmp_path / "corpus"], None, env=env)
    try:
        again.wait_indexed(3)
        assert _mode(folder) == 0o700
        modes = {p.name: _mode(p) for p in _cache_files(folder)}
        assert modes and set(modes.values()) == {0o600}, modes
        assert _mode(folder.parent / "other") == 0o755  # nothing else under XDG_CACHE_HOME
    finally:
        again.close()


def test_a_chosen_cache_file_is_private_and_its_new_folder_too(
    tmp_path: Path, umask_022: None
) -> None:
    make_corpus(tmp_path / "corpus")
    cache = tmp_path / "new" / "deeper" / "index.sqlite3"
    server = Server([tmp_path / "corpus"], cache)
    try:
        server.wait_indexed(3)
        assert _mode(cache.parent) == 0o700
        assert _mode(cache) == 0o600
        assert _mode(Path(f"{cache}-wal")) == 0o600
    finally:
        server.close()
