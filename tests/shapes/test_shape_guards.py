"""Every shape reader goes through the store's guard (issue 15, point 4).

Per reader, two real cases:
- a FIFO where the shape's file should be: refused before a byte is read (the command would
  otherwise block forever waiting for a writer), with a one-line message naming it;
- a symlink leading outside: the parts of a conversation (a bare folder's event file, the
  `trajectory.json` beside an `events.json`, an agent server's `meta.json`, an archive's link
  members) that lead outside its folder are never read, as `events/` files of a V1 folder. A file
  that *is* the conversation (an `output.jsonl`, an `events.json`, an archive) named through a
  link is that conversation: followed, as a symlinked conversation folder is.

Each command runs in a child process with a timeout: a blocking open fails the test, it cannot
hang it.
"""

from __future__ import annotations

import json
import os
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.support import fixtures as fx
from tests.support.cli import run_trajkit

SHAPES = fx.FIXTURES / "shapes"
REPO = Path(__file__).resolve().parents[2]
SECRET = "only-outside-the-conversation"


FIFO_NAMES = {
    "eval output": "output.jsonl",
    "events JSONL": "events.jsonl",
    "events array": "events.json",
    "baseState document": "trajectory.json",
    "zip archive": "download.zip",
    "tar.gz archive": "download.tar.gz",
}


@pytest.mark.parametrize("command", ["validate", "ls", "convert", "inspect"])
@pytest.mark.parametrize("reader", sorted(FIFO_NAMES))
def test_a_fifo_named_as_a_shape_is_refused_without_blocking(
    reader: str, command: str, tmp_path: Path
) -> None:
    fifo = tmp_path / FIFO_NAMES[reader]
    os.mkfifo(fifo)
    args = [command, fifo] + (["--no-pager"] if command == "inspect" else [])
    result = run_trajkit(*args)  # a blocking open would time out here
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    out = result.stdout + result.stderr
    assert str(fifo) in out and "FIFO" in out, out


def test_a_fifo_below_a_tree_migrate_reads_whole_is_named_without_blocking(
    tmp_path: Path,
) -> None:
    # migrate names each stray .json below a folder; sniffing one opened it blocking (hung)
    tree = tmp_path / "tree"
    tree.mkdir()
    os.mkfifo(tree / "stray.json")
    shutil.copy(fx.FIXTURES / "v0" / "cli_edit_and_finish.json", tree)
    result = run_trajkit("migrate", tree, "-o", tmp_path / "out", timeout=60)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "migrated 1 conversation" in result.stdout
    assert f"skipped {tree / 'stray.json'}: a FIFO" in result.stderr, result.stderr


def test_the_shape_readers_refuse_a_fifo_even_when_asked_directly(tmp_path: Path) -> None:
    # past the is_file() checks (a name that turned into a FIFO between listing and reading)
    from trajkit.errors import InputError
    from trajkit.shapes import ShapeRef, open_shape

    for shape, name in [
        ("eval-v1", "output.jsonl"),
        ("events-jsonl", "events.jsonl"),
        ("events-json", "events.json"),
        ("state-doc", "trajectory.json"),
        ("archive", "download.zip"),
        ("archive", "download.tar.gz"),
    ]:
        fifo = tmp_path / name
        os.mkfifo(fifo)
        ref = ShapeRef(shape, str(fifo), "x" if shape == "archive" else "", 1, span=(0, 10))
        with pytest.raises(InputError, match="FIFO"):
            open_shape(ref)
        fifo.unlink()


def test_a_fifo_among_bare_event_files_is_refused(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    shutil.copytree(SHAPES / "bare_events", bare)
    victim = sorted(bare.iterdir())[2]
    victim.unlink()
    os.mkfifo(victim)
    result = run_trajkit("validate", bare)
    assert result.returncode == 1
    assert f"{victim}: expected an event file, got a folder or device" in result.stdout


def test_a_bare_event_file_linking_outside_is_never_read(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    shutil.copytree(SHAPES / "bare_events", bare)
    victim = sorted(bare.iterdir())[1]
    outside = tmp_path / "outside.json"
    outside.write_text(victim.read_text().replace("hello-from-terminal", SECRET))
    victim.unlink()
    victim.symlink_to(outside)
    for command in ("validate", "convert", "inspect"):
        args = [command, bare] + (["--no-pager"] if command == "inspect" else [])
        result = run_trajkit(*args)
        out = result.stdout + result.stderr
        assert SECRET not in out, command
        assert "outside the conversation folder" in out, (command, out[-2000:])
        assert result.returncode == 1, command


def test_a_trajectory_json_beside_events_json_linking_outside_is_not_read(tmp_path: Path) -> None:
    folder = tmp_path / "vis"
    folder.mkdir()
    shutil.copy(SHAPES / "events.json", folder / "events.json")
    doc = json.loads((SHAPES / "state_doc.json").read_text())
    doc["baseState"]["agent"]["llm"]["model"] = SECRET
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps({"baseState": doc["baseState"]}))
    (folder / "trajectory.json").symlink_to(outside)
    result = run_trajkit("ls", "--json", folder / "events.json")
    assert SECRET not in result.stdout
    validate = run_trajkit("validate", folder / "events.json")
    assert "trajectory.json beside it is a symlink to" in validate.stdout
    assert "outside the folder; not read" in validate.stdout


def test_archive_link_members_are_never_followed(tmp_path: Path) -> None:
    source = SHAPES / "old_sdk"
    archive = tmp_path / "download.tar.gz"
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"kind": "MessageEvent", "text": SECRET}))
    with tarfile.open(archive, "w:gz") as tf:
        tf.add(source, arcname="c")
        name = "event-00099-0f0e0d0c-0b0a-4908-8706-050403020100.json"
        link = tarfile.TarInfo(f"c/5a3e0c8d2f1b4e6a9c7d1e2f3a4b5c6d/events/{name}")
        link.type = tarfile.SYMTYPE
        link.linkname = str(outside)
        tf.addfile(link)
    result = run_trajkit("validate", archive)
    assert SECRET not in result.stdout + result.stderr
    assert f"{name}: link, not read" in result.stdout
    zipped = tmp_path / "download.zip"
    with zipfile.ZipFile(zipped, "w") as zf:
        info = zipfile.ZipInfo("c/base_state.json")
        info.external_attr = 0o120777 << 16  # a symlink entry
        zf.writestr(info, str(outside))
    result = run_trajkit("validate", zipped)
    assert result.returncode == 1
    assert "is a symbolic link; not read" in result.stdout + result.stderr


@pytest.mark.parametrize("name", ["eval_output.jsonl", "events.json", "events.jsonl"])
def test_a_link_to_a_single_file_shape_is_that_conversation(name: str, tmp_path: Path) -> None:
    link = tmp_path / name
    link.symlink_to(SHAPES / name)
    linked = run_trajkit("ls", "--json", link)
    direct = run_trajkit("ls", "--json", SHAPES / name)
    assert linked.returncode == direct.returncode == 0
    ids = [r["id"] for r in json.loads(linked.stdout)["conversations"]]
    assert ids == [r["id"] for r in json.loads(direct.stdout)["conversations"]]
