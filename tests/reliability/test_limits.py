"""Huge inputs do not exhaust memory: they are streamed, or refused with a clear message.

The files are sparse (holes cost no disk). Each command runs in a child process whose own peak
resident memory is read from /proc/self/status (VmHWM) when it ends; `ru_maxrss` would not do,
as it is inherited across exec from this (big) pytest process. Limits (README "Limits"):
one event or state file 100 MiB (`TRAJKIT_MAX_FILE_BYTES`), one V0 JSON document (a
trajectory file or one line of a .jsonl) 256 MiB (`TRAJKIT_MAX_V0_BYTES`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
GiB = 1 << 30
PEAK_LIMIT_MB = 400
"""Far below any of the file sizes: nothing was loaded whole."""

RUNNER = textwrap.dedent(
    """
    import sys
    from trajkit.cli import main
    try:
        main(sys.argv[2:], prog_name="trajkit")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    else:
        code = 0
    with open("/proc/self/status") as f:
        peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    with open(sys.argv[1], "w") as f:
        f.write(f"{code} {peak}")
    """
)

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="needs /proc (Linux)"
)


def _trajkit(tmp_path: Path, *args: str) -> tuple[int, str, float]:
    """Exit code, output, and peak memory (MiB) of `trajkit ARGS` in a child process."""
    script = tmp_path / "runner.py"
    script.write_text(RUNNER)
    result_file = tmp_path / "result.txt"
    proc = subprocess.run(
        [sys.executable, str(script), str(result_file), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    code, peak_kb = result_file.read_text().split()
    return int(code), proc.stdout + proc.stderr, int(peak_kb) / 1024


def args_label(path: Path) -> str:
    return f"{path.name} ({path.stat().st_size / GiB:.0f} GiB)"


def _sparse(path: Path, head: bytes, size: int, *, newline_every: int = 0) -> Path:
    with open(path, "wb") as f:
        f.write(head)
        if newline_every:
            for offset in range(newline_every, size, newline_every):
                f.seek(offset)
                f.write(b"\n")
        f.truncate(size)
    return path


@pytest.fixture
def huge_event_conversation(tmp_path: Path) -> Path:
    src = next((FIXTURES / "sdk" / "a_text").glob("[0-9a-f]" * 32))
    conv = tmp_path / "corpus" / src.name
    shutil.copytree(src, conv)
    last = sorted((conv / "events").glob("event-*.json"))[-1]
    _sparse(last, last.read_bytes(), GiB)
    return conv


def test_one_gigabyte_event_file_is_refused_without_loading_it(
    tmp_path: Path, huge_event_conversation: Path
) -> None:
    conv = huge_event_conversation
    for args in (
        ["validate", str(conv)],
        ["convert", str(conv)],
        ["inspect", str(conv)],
        ["export", str(conv), "-o", str(tmp_path / "ds"), "--workers", "1"],
        ["repair", "--dry-run", str(conv)],
    ):
        code, out, peak = _trajkit(tmp_path, *args)
        if args[0] == "repair":  # it plans to set the file aside
            assert code == 0 and "would quarantine" in out, out
        else:
            assert code == 1, (args, out)
        assert "is 1024 MiB, above the 100 MiB limit" in out.replace(" MB", " MiB"), (args, out)
        print(args[0], f"{peak:.0f} MiB", out.strip().splitlines()[0][-160:])
        assert peak < PEAK_LIMIT_MB, (args, peak)


def test_five_gigabyte_jsonl_is_streamed_line_by_line(tmp_path: Path) -> None:
    good = (FIXTURES / "v0-synthetic" / "eval_output.jsonl").read_text().splitlines()[1]
    src = _sparse(tmp_path / "output.jsonl", (good + "\n").encode(), 5 * GiB, newline_every=8 << 20)
    code, out, peak = _trajkit(
        tmp_path, "migrate", str(src), "-o", str(tmp_path / "out"), "-j", "1"
    )
    assert code == 1, out  # the NUL lines are skipped, each with its line number
    assert "output.jsonl#2: line is not valid JSON" in out
    assert len(list((tmp_path / "out").iterdir())) == 1  # the good line was migrated
    assert peak < PEAK_LIMIT_MB, peak
    print(f"{args_label(src)} peak {peak:.0f} MiB")
    code, out, peak = _trajkit(tmp_path, "validate", str(src))
    assert code == 1 and "an OpenHands V0 evaluation output" in out, out  # named, not read
    assert peak < PEAK_LIMIT_MB, peak
    print(f"{args_label(src)} peak {peak:.0f} MiB")


def test_five_gigabyte_single_line_is_refused(tmp_path: Path) -> None:
    src = _sparse(tmp_path / "output.jsonl", b'{"instance_id": "x", "history": [', 5 * GiB)
    code, out, peak = _trajkit(
        tmp_path, "migrate", str(src), "-o", str(tmp_path / "out"), "-j", "1"
    )
    assert code == 1
    assert "output.jsonl#1: record is 5120 MiB, above the 256 MiB limit" in out, out
    assert peak < PEAK_LIMIT_MB, peak
    print(f"{args_label(src)} peak {peak:.0f} MiB")


def test_five_gigabyte_trajectory_json_is_refused(tmp_path: Path) -> None:
    src = _sparse(tmp_path / "trajectory.json", b'[{"id": 0, "action": "message"', 5 * GiB)
    code, out, peak = _trajkit(
        tmp_path, "migrate", str(src), "-o", str(tmp_path / "out"), "-j", "1"
    )
    assert code == 1
    assert "trajectory.json: file is 5120 MiB, above the 256 MiB limit" in out, out
    assert peak < PEAK_LIMIT_MB, peak
    print(f"{args_label(src)} peak {peak:.0f} MiB")


def test_limits_are_documented_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Limits", 1)[1].split("\n## ", 1)[0]
    for needle in ("TRAJKIT_MAX_FILE_BYTES", "TRAJKIT_MAX_V0_BYTES", "100 MiB", "256 MiB"):
        assert needle in section
    json.dumps(section)
