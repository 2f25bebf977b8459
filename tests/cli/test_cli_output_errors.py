"""Output problems: every writing command fails with one line naming the path and the OS reason.

Real file systems, no mocks: a read-only tmpfs (EROFS), a full tmpfs (ENOSPC), a folder without
write permission (EACCES; as root the child runs without CAP_DAC_OVERRIDE, since root ignores
permissions otherwise), a missing parent folder, and `-o` naming a folder. Each case checks the
exit status, the one-line message and that nothing was left behind. Mounting needs root; those
cases are skipped elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support import fixtures as fx
from tests.support.cli import run_trajkit

REPO = fx.REPO
A_TEXT = fx.sdk_conversation("a_text")
V0_FILE = fx.FIXTURES / "v0-synthetic" / "every_type.json"

# name -> (arguments writing into folder D, the output path the message must name)
Case = Callable[[Path], tuple[list[str], Path]]
WRITERS: dict[str, Case] = {
    "convert-one": lambda d: (["convert", str(A_TEXT), "-o", str(d / "c.json")], d / "c.json"),
    "convert-many": lambda d: (
        ["convert", str(fx.SDK_FIXTURES), "-o", str(d / "all.jsonl")],
        d / "all.jsonl",
    ),
    "view": lambda d: (["view", str(A_TEXT), "-o", str(d / "r.html")], d / "r.html"),
    "migrate": lambda d: (["migrate", str(V0_FILE), "-o", str(d / "m")], d / "m"),
    "schema-write": lambda d: (["schema", "--write", str(d / "s")], d / "s"),
    "export": lambda d: (["export", str(A_TEXT), "-o", str(d / "ds"), "--workers", "1"], d / "ds"),
}


def _run(args: list[str], *, drop_dac: bool = False) -> subprocess.CompletedProcess[str]:
    prefix: list[str] = []
    if drop_dac and os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("as root, EACCES needs setpriv to drop CAP_DAC_OVERRIDE")
        caps = "-dac_override,-dac_read_search"
        prefix = [setpriv, f"--bounding-set={caps}", f"--inh-caps={caps}"]
    return run_trajkit(*args, prefix=prefix, columns="200")


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _assert_one_line_error(
    result: subprocess.CompletedProcess[str], path: Path, reason: str
) -> None:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert errors == [f"Error: {path}: cannot write: {reason}"], result.stderr


@contextlib.contextmanager
def _tmpfs(where: Path, size: str) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0777", "tmpfs", str(where)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


@pytest.fixture
def readonly_dir(tmp_path: Path) -> Iterator[Path]:
    with _tmpfs(tmp_path / "ro", "1m") as mnt:
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        yield mnt


@pytest.fixture
def full_dir(tmp_path: Path) -> Iterator[Path]:
    with _tmpfs(tmp_path / "full", "64k") as mnt:
        with contextlib.suppress(OSError), (mnt / "filler").open("wb") as f:
            while True:  # until the file system says ENOSPC
                f.write(b"x" * 4096)
                f.flush()
        yield mnt


@pytest.fixture
def denied_dir(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "denied"
    folder.mkdir()
    folder.chmod(0o555)
    yield folder
    folder.chmod(0o755)


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_read_only_file_system(name: str, readonly_dir: Path) -> None:
    args, out = WRITERS[name](readonly_dir)
    _assert_one_line_error(_run(args), out, "Read-only file system (EROFS)")
    assert _tree(readonly_dir) == []


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_disk_full(name: str, full_dir: Path) -> None:
    args, out = WRITERS[name](full_dir)
    _assert_one_line_error(_run(args), out, "No space left on device (ENOSPC)")
    assert _tree(full_dir) == ["filler"]


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_permission_denied(name: str, denied_dir: Path) -> None:
    args, out = WRITERS[name](denied_dir)
    _assert_one_line_error(_run(args, drop_dac=True), out, "Permission denied (EACCES)")
    assert _tree(denied_dir) == []


@pytest.mark.parametrize("name", ["convert-one", "convert-many", "view"])
def test_missing_parent_folder_of_an_output_file(name: str, tmp_path: Path) -> None:
    parent = tmp_path / "no" / "such"
    args, out = WRITERS[name](parent)
    result = _run(args)
    _assert_one_line_error(result, out, f"the folder {parent} does not exist; create it first")
    assert _tree(tmp_path) == []


@pytest.mark.parametrize("name", ["migrate", "schema-write", "export"])
def test_output_folder_below_a_file(name: str, tmp_path: Path) -> None:
    # Output folders are created with their parents (mkdir -p); a file on the way is refused.
    (tmp_path / "file.txt").write_text("a file, not a folder")
    args, out = WRITERS[name](tmp_path / "file.txt" / "sub")
    result = _run(args)
    _assert_one_line_error(result, out, f"{tmp_path / 'file.txt'} is not a folder")
    assert _tree(tmp_path) == ["file.txt"]


@pytest.mark.parametrize("name", ["convert-one", "convert-many", "view"])
def test_output_naming_a_folder(name: str, tmp_path: Path) -> None:
    args, out = WRITERS[name](tmp_path)
    out.mkdir()
    for extra in ([], ["--overwrite"]):
        result = _run([*args, *extra])
        _assert_one_line_error(result, out, "is a folder; give a file name (e.g. out.json)")
        assert _tree(tmp_path) == [out.name]


@pytest.mark.parametrize("name", ["migrate", "schema-write", "export"])
def test_output_folder_naming_a_file(name: str, tmp_path: Path) -> None:
    args, out = WRITERS[name](tmp_path)
    out.write_text("mine")
    result = _run(args)
    _assert_one_line_error(result, out, "is a file; choose a folder")
    assert out.read_text() == "mine"


def test_repair_on_a_read_only_file_system(tmp_path: Path) -> None:
    with _tmpfs(tmp_path / "ro", "1m") as mnt:
        shutil.copytree(fx.BAD_FIXTURES / "empty_event_file", mnt / "conv")
        before = _tree(mnt)
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        result = _run(["repair", str(mnt / "conv")])
        _assert_one_line_error(result, mnt / "conv", "Read-only file system (EROFS)")
        assert _tree(mnt) == before
