"""`trajkit migrate`: exact output lines, exit codes, and no traceback on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from tests.migrate._helpers import SYN, V0
from trajkit.cli import main


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["migrate", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_migrates_a_file_and_prints_one_line_per_conversation(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # output paths below the working folder print relative
    code, out, err = _run(str(V0 / "wrong_initial_state.json"), "-o", "out")
    assert code == 0 and err == ""
    assert out.splitlines() == [
        f"{V0 / 'wrong_initial_state.json'} -> out/5b449424bf9e55b0b835de548324ce9a "
        "(9 events, 0 dropped, 0 warning(s))",
        "migrated 1 conversation(s) into out: 9 events, 0 V0 events dropped, "
        "1 synthesized, 0 warning(s) (see migration_report.json); 0 input(s) skipped",
    ]
    assert (tmp_path / "out" / "5b449424bf9e55b0b835de548324ce9a" / "base_state.json").is_file()


def test_exit_1_when_anything_was_skipped_and_the_rest_still_migrates(tmp_path):
    code, out, err = _run(str(SYN / "bad" / "broken_line.jsonl"), "-o", str(tmp_path))
    assert code == 1
    broken = SYN / "bad" / "broken_line.jsonl"
    assert err.splitlines()[0].startswith(
        f"skipped {broken}#astropy__astropy-12907: line is not valid JSON ("
    )
    assert err.splitlines()[1] == (
        f"skipped {broken}#no-history: expected an eval record: a JSON object with a 'history' list"
    )
    assert "Traceback" not in out + err
    assert "migrated 2 conversation(s)" in out and "2 input(s) skipped" in out
    assert len(list(tmp_path.iterdir())) == 2


def test_bad_files_never_give_a_traceback(tmp_path):
    code, out, err = _run(str(SYN / "bad"), "-o", str(tmp_path / "out"))
    assert code == 1
    assert "Traceback" not in out + err
    lines = err.splitlines()
    assert any("not_json.json: not valid JSON" in line for line in lines)
    assert any("not_a_trajectory.json: not a V0 trajectory" in line for line in lines)
    assert any(
        "truncated.json: not valid JSON (the file looks truncated)" in line for line in lines
    )


def test_rerun_keeps_finished_folders_and_overwrite_rewrites_them(tmp_path):
    # Issue 16: re-running an interrupted migrate finishes the job, so what a previous run
    # completed is kept (not an error); --overwrite still rewrites it.
    args = (str(V0 / "basic.json"), "-o", str(tmp_path))
    assert _run(*args)[0] == 0
    (folder,) = tmp_path.iterdir()
    marker = folder / "note.txt"
    marker.write_text("kept")
    code, out, err = _run(*args)
    assert code == 0 and err == ""
    assert "1 already migrated (kept; --overwrite rewrites them)" in out
    assert marker.read_text() == "kept"
    assert _run(*args, "--overwrite")[0] == 0
    assert not marker.exists()


def test_tool_names_option(tmp_path):
    _run(str(V0 / "wrong_initial_state.json"), "-o", str(tmp_path), "--tool-names", "v1")
    events = sorted((tmp_path / "5b449424bf9e55b0b835de548324ce9a" / "events").iterdir())
    names = {json.loads(p.read_text()).get("tool_name") for p in events} - {None}
    assert names == {"terminal", "file_editor", "finish"}


def test_json_output(tmp_path):
    code, out, _ = _run(str(SYN / "bad" / "broken_line.jsonl"), "-o", str(tmp_path), "--json")
    assert code == 1
    doc = json.loads(out)
    assert [m["name"] for m in doc["migrated"]] == [
        "django__django-11099",
        "astropy__astropy-12907",
    ]
    assert len(doc["skipped"]) == 2


def test_usage_errors_exit_2(tmp_path):
    assert _run(str(V0 / "basic.json"))[0] == 2  # no -o
    assert _run(str(V0 / "basic.json"), "-o", str(tmp_path), "--tool-names", "x")[0] == 2


def test_real_process_migrates_the_v0_fixtures(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "trajkit", "migrate", str(V0), "-o", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("migrated 6 conversation(s)")
    assert len([p for p in Path(tmp_path).iterdir()]) == 6
