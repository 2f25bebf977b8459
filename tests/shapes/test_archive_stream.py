"""A `.tar.gz` of many conversations is decompressed once per command, not once per conversation.

Measured, not assumed: each command runs in a child process that reports the bytes it read
through `read()` calls (`rchar` of `/proc/self/io`), less what it reads for a small plain folder
(imports). Before, every conversation opened meant two passes over the archive (list, then read
its members): for 12 conversations `ls` read 27 times the archive's size, now 1.1.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.support import fixtures as fx

HEX = "5a3e0c8d2f1b4e6a9c7d1e2f3a4b5c6d"
REPO = Path(__file__).resolve().parents[2]
N = 12

pytestmark = pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs /proc/self/io")

_PROBE = """
import sys
from trajkit.cli import main
def rchar():
    with open("/proc/self/io") as f:
        return int(next(l for l in f if l.startswith("rchar:")).split()[1])
before = rchar()
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print("RCHAR", rchar() - before, code, file=sys.stderr)
"""


def _archive(tmp: Path, *, shuffled: bool = False) -> Path:
    """N copies of a conversation, each with 200 KB of incompressible output, in one tar.gz."""
    source = fx.FIXTURES / "shapes" / "old_sdk" / HEX
    rng = random.Random(3)
    root = tmp / "src"
    for i in range(N):
        conv = root / f"{i:032x}"
        shutil.copytree(source, conv)
        state = json.loads((conv / "base_state.json").read_text())
        state["id"] = f"{i:08x}-0000-4000-8000-000000000000"
        state["tags"] = {"noise": rng.randbytes(100_000).hex()}  # does not compress
        (conv / "base_state.json").write_text(json.dumps(state))
    out = tmp / "download.tar.gz"
    folders = sorted(root.iterdir())
    if shuffled:
        rng.shuffle(folders)
    with tarfile.open(out, "w:gz") as tf:
        for folder in folders:
            tf.add(folder, arcname=folder.name)
    return out


def _read_bytes(*args: str) -> tuple[int, int, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"}
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,  # `-c` puts the current folder first on sys.path
        timeout=300,
        check=False,
    )
    line = next(ln for ln in result.stderr.splitlines() if ln.startswith("RCHAR"))
    _, read, code = line.split()
    return int(read), int(code), result.stdout + result.stderr


@pytest.mark.parametrize("command", ["ls", "validate", "stats", "convert"])
def test_one_pass_for_all_conversations(command: str, tmp_path: Path) -> None:
    archive = _archive(tmp_path)
    size = archive.stat().st_size
    args = [command, str(archive)] + (
        ["-o", str(tmp_path / "c.jsonl")] if command == "convert" else []
    )
    read, code, output = _read_bytes(*args)
    assert code in (0, None), output[-2000:]
    if command == "ls":
        assert output.count("\n") >= N  # every conversation listed
    passes = (read - _baseline(command, tmp_path)) / size
    # one pass (the listing keeps a small archive's members); workers may read their part again
    assert passes < 1.6, f"{passes:.1f} passes over a {size} byte archive for {N} conversations"


def _baseline(command: str, tmp: Path) -> int:
    """What the command reads for two small plain conversations: imports and their files (two,
    so that convert takes its many-conversations path, as for the archive)."""
    folder = tmp / "plain"
    if not folder.exists():
        for name in (HEX, "0" * 32):
            shutil.copytree(fx.FIXTURES / "shapes" / "old_sdk" / HEX, folder / name)
    args = [command, str(folder)] + (["-o", str(tmp / "b.jsonl")] if command == "convert" else [])
    return _read_bytes(*args)[0]


def test_an_archive_out_of_order_is_still_read_whole(tmp_path: Path) -> None:
    archive = _archive(tmp_path, shuffled=True)
    read, code, output = _read_bytes("ls", "--json", str(archive))
    assert code in (0, None), output[-2000:]
    rows = json.loads(output[: output.rindex("}") + 1])["conversations"]
    assert len(rows) == N and all(r["n_events"] == 6 for r in rows)
    passes = (read - _baseline("ls", tmp_path)) / archive.stat().st_size
    assert passes < 1.6  # listed in archive order: one pass
