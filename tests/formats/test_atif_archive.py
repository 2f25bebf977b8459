"""ATIF trajectories inside an archive (a Harbor job downloaded as `.zip` or `.tar.gz`): read in
place, continuations joined by the rule a folder is read with, embedded trajectories listed and
migrated below their parent. Through the real CLI.
"""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.formats.test_atif_subagents import _harbor_run, _steps_by_trajectory
from tests.support.cli import run_trajkit


def _part(steps: list[str], follow: str | None = None) -> dict:
    doc = {"schema_version": "ATIF-v1.7", "session_id": "run-1",
           "agent": {"name": "harness", "version": "2"},
           "steps": [{"step_id": i + 1, "source": "user", "message": m}
                     for i, m in enumerate(steps)]}  # fmt: skip
    return {**doc, "continued_trajectory_ref": follow} if follow else doc


def _trial(folder: Path) -> Path:
    """A Harbor trial folder: a trajectory continued twice after context resets."""
    agent = folder / "trial-1" / "agent"
    agent.mkdir(parents=True)
    (agent / "trajectory.json").write_text(json.dumps(_part(["a"], "trajectory.cont-1.json")))
    (agent / "trajectory.cont-1.json").write_text(json.dumps(_part(["b"], "trajectory.cont-2.json")))  # fmt: skip
    (agent / "trajectory.cont-2.json").write_text(json.dumps(_part(["c"])))
    return folder


def _pack(folder: Path, archive: Path) -> Path:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive, "w") as zf:
            for p in files:
                zf.write(p, p.relative_to(folder).as_posix())
    else:
        with tarfile.open(archive, "w:gz") as tf:
            for p in files:
                tf.add(p, p.relative_to(folder).as_posix())
    return archive


def _chat(path: Path) -> list[dict]:
    done = run_trajkit("convert", path, "--to", "chat")
    assert done.returncode == 0, done.stderr
    return [json.loads(line)["messages"] for line in done.stdout.splitlines()]


@pytest.mark.parametrize("name", ["job.zip", "job.tar.gz"])
def test_continuations_in_an_archive_are_joined_as_in_a_folder(tmp_path: Path, name: str) -> None:
    folder = _trial(tmp_path / "job")
    archive = _pack(folder, tmp_path / name)
    listed = run_trajkit("ls", archive, "--json")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)["conversations"]
    assert len(rows) == 1  # the continuations are not conversations of their own
    assert rows[0]["path"].endswith("#trial-1/agent/trajectory.json")
    texts = [p["text"] for m in _chat(archive)[0] for p in m["content"]]
    assert texts == ["a", "b", "c"]
    assert _chat(archive) == _chat(folder)  # one rule for both
    checked = run_trajkit("validate", archive)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "joined with its continuation(s)" in checked.stdout + checked.stderr


def test_a_bad_continuation_ref_in_an_archive_ends_the_chain_with_one_line(tmp_path: Path) -> None:
    agent = tmp_path / "job" / "agent"
    agent.mkdir(parents=True)
    (agent / "trajectory.json").write_text(json.dumps(_part(["a"], "trajectory.cont-1.json")))
    (agent / "trajectory.cont-1.json").write_text(json.dumps(_part(["b"], "../../etc/passwd")))
    archive = _pack(tmp_path / "job", tmp_path / "job.zip")
    done = run_trajkit("convert", archive, "--to", "chat")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert [p["text"] for m in json.loads(done.stdout)["messages"] for p in m["content"]] == ["a", "b"]  # fmt: skip
    assert "continued in ../../etc/passwd (after a context reset): not a file name beside it; not read" in done.stderr  # fmt: skip


def test_a_link_member_is_never_read_as_a_continuation(tmp_path: Path) -> None:
    archive = tmp_path / "job.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        data = json.dumps(_part(["a"], "trajectory.cont-1.json")).encode()
        info = tarfile.TarInfo("agent/trajectory.json")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("agent/trajectory.cont-1.json")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tf.addfile(link)
    done = run_trajkit("convert", archive, "--to", "chat")
    assert done.returncode == 0, done.stderr
    assert "trajectory.cont-1.json (after a context reset): a link in the archive; not read" in done.stderr  # fmt: skip


def test_an_archived_run_migrates_as_the_folder_does(tmp_path: Path) -> None:
    source = tmp_path / "job"
    source.mkdir()
    path = _harbor_run(source)
    archive = _pack(source, tmp_path / "job.tar.gz")
    listed = run_trajkit("ls", archive, "--json")
    paths = [row["path"] for row in json.loads(listed.stdout)["conversations"]]
    assert len(paths) == 4 and any(p.endswith("#trajectory.json#helper/deep") for p in paths)
    for address in paths:  # each address `ls` prints is accepted
        assert run_trajkit("ls", address).stdout.count("\n") == 1, address
    out = tmp_path / "out"
    done = run_trajkit("migrate", archive, "-o", out)
    assert done.returncode == 0, done.stderr
    (parent,) = out.iterdir()  # the embedded trajectories below it
    assert len(list(parent.glob("subagents/*/subagents/*/events"))) == 1
    assert len(list(parent.glob("subagents/*/events"))) == 2
    back = tmp_path / "back.json"
    assert run_trajkit("convert", parent, "--to", "atif", "-o", back).returncode == 0
    first, cont = (json.loads(p.read_text()) for p in (path, source / "trajectory.cont-1.json"))
    original = _steps_by_trajectory(first)
    original[""] += _steps_by_trajectory(cont)[""]
    original.update({k: v for k, v in _steps_by_trajectory(cont).items() if k})
    assert _steps_by_trajectory(json.loads(back.read_text())) == original
