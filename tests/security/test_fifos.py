"""Issue 14 item 7: a FIFO (or a device) where an event file or base_state.json should be never
blocks a command: every reader opens with O_NONBLOCK and checks S_ISREG on the descriptor; the
command prints one line naming the file and exits 1. Real FIFOs, real subprocesses (a hang
fails the test by its timeout instead of blocking the suite)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.security.conftest import copy_fixture
from tests.support.cli import run_trajkit

FIFO_EVENT = "event-00099-0000abcd-1111-4222-8333-444455556666.json"


def _commands(conv: Path, tmp: Path) -> list[list[str]]:
    return [
        ["validate", str(conv)],
        ["convert", str(conv)],
        ["export", str(conv), "-o", str(tmp / "export")],
        ["view", str(conv), "-o", str(tmp / "v.html")],
        ["ls", str(conv)],
        ["stats", str(conv)],
        ["inspect", str(conv)],
        ["repair", str(conv)],
        ["repair", "--dry-run", str(conv)],
    ]


@pytest.mark.parametrize("where", ["event", "base_state"])
def test_fifo_never_blocks_a_command(tmp_path: Path, where: str) -> None:
    conv = copy_fixture(tmp_path)
    if where == "event":
        fifo = conv / "events" / FIFO_EVENT
    else:
        fifo = conv / "base_state.json"
        fifo.unlink()
    os.mkfifo(fifo)
    failures = []
    for args in _commands(conv, tmp_path):
        r = run_trajkit(*args, cwd=tmp_path)
        out = r.stdout + r.stderr
        if args[0] == "ls" and where == "base_state":  # it must finish, and say little
            bad = "Traceback" in out or r.returncode not in (0, 1)
        else:
            bad = "Traceback" in out or r.returncode != 1 or not ("FIFO" in out or "device" in out)
        if bad:
            failures.append((args[0], r.returncode, out[-400:]))
    assert failures == []
    assert fifo.exists() and not fifo.is_file()  # left where it was


def test_device_is_refused_by_the_store(tmp_path: Path) -> None:
    from trajkit.errors import InputError
    from trajkit.store import read_file_bytes

    with pytest.raises(InputError, match="a device, not a regular file"):
        read_file_bytes("/dev/zero")
