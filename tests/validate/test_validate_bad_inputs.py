"""Each bad input gives exit 1, a message naming the file, no traceback, and changes nothing."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.support import fixtures as fx
from trajkit.cli import main
from trajkit.cli._output import display_path

BAD = fx.BAD_FIXTURES

# case folder -> (file the message names, relative to the case folder; text the message holds)
CASES: dict[str, tuple[str, str]] = {
    "empty_event_file": ("events/event-00002-", ": empty file"),
    "truncated_event_json": ("events/event-00002-", ": truncated JSON"),
    "invalid_utf8": ("events/event-00001-", ": not valid UTF-8: byte 0xff at offset 241"),
    "top_level_array": (
        "events/event-00001-",
        ": expected a JSON object at the top level, got array",
    ),
    "wrong_field_types": (
        "events/event-00003-",
        ":/observation/exit_code: expected integer or null, got string",
    ),
    "missing_required_fields": ("events/event-00002-", ":/tool_call_id: missing required field"),
    "index_gap": ("events", ": index gap: no event file with index 3"),
    "duplicate_index": ("events/event-00002-", ": index 2 is also used by event-00002-"),
    "missing_events_folder": ("events", ": missing events/ folder"),
    "empty_base_state": ("base_state.json", ": empty file"),
    "truncated_base_state": ("base_state.json", ": truncated JSON"),
    "dangling_parent": ("events/event-00004-", ":/parent_id: names no event of this conversation"),
    "parent_cycle": ("events/event-00001-", ":/parent_id: parent_id loop"),
    "unpaired_observation": (
        "events/event-00003-",
        ":/action_id: names no event of this conversation",
    ),
    "file_name_id_mismatch": ("events/event-00001-0000aaaa", ":/id: file name says id"),
    "leaf_event_missing": ("base_state.json", ":/leaf_event_id: names no event on disk"),
    "secret_in_clear": ("base_state.json", ":/agent/llm/api_key: secret 'api_key' in clear"),
}


def tree_digest(root: Path) -> str:
    """Hash of every name, link target, mode and content under `root` (links not followed)."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted([*dirnames, *filenames]):
            path = Path(dirpath) / name
            st = path.lstat()
            digest.update(
                f"{path.relative_to(root)}|{st.st_mode}|{st.st_size}|{st.st_mtime_ns}".encode()
            )
            if path.is_symlink():
                digest.update(os.readlink(path).encode())
            elif path.is_file() and st.st_size < 10_000_000:
                digest.update(path.read_bytes())
    return digest.hexdigest()


def run_validate(*args: str | Path) -> Result:
    return CliRunner().invoke(main, ["validate", *map(str, args)])


def assert_reported(result: Result, folder: Path, where: str, text: str) -> None:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    prefix = f"{display_path(folder)}/{where}"
    # A PATH (or a link met in a walk) naming nothing to check is an `Error:` line on stderr;
    # the summary counts only what was checked (issue 25).
    said = [line.removeprefix("Error: ") for line in result.output.splitlines()]
    lines = [line for line in said if line.startswith(prefix)]
    assert any(text in line for line in lines), result.output
    last = result.stdout.rstrip().splitlines()[-1] if result.stdout.strip() else ""
    assert last.startswith("INVALID: ") or last.endswith("not checked (above)") or not last


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_fixture(case: str) -> None:
    folder = BAD / case
    before = tree_digest(folder)
    result = run_validate(folder)
    where, text = CASES[case]
    assert_reported(result, folder, where, text)
    assert tree_digest(folder) == before


def test_every_bad_fixture_has_a_test() -> None:
    folders = {p.name for p in BAD.iterdir() if p.is_dir()}
    assert folders == {*CASES, "valid_base", "unknown_kind"}


def test_valid_base_is_valid() -> None:
    result = run_validate(BAD / "valid_base")
    assert result.exit_code == 0, result.output
    assert result.output == "valid: 1 conversation (6 events)\n"


def test_unknown_kind_is_a_warning_and_an_error_under_strict() -> None:
    folder = BAD / "unknown_kind"
    before = tree_digest(folder)
    result = run_validate(folder)
    assert result.exit_code == 0, result.output
    line = result.output.splitlines()[0]
    assert line.startswith(f"{display_path(folder)}/events/event-00006-5d1f2e3a")
    assert ":/kind: warning: unknown event kind 'FutureEvent'" in line
    assert (
        result.output.splitlines()[-1]
        == "valid with warnings: 0 errors, 1 warning in 1 conversation (7 events)"
    )

    strict = run_validate(folder, "--strict")
    assert strict.exit_code == 1, strict.output
    assert ":/kind: unknown event kind 'FutureEvent'" in strict.output
    assert tree_digest(folder) == before


def test_symlink_loop_event_file(tmp_path: Path) -> None:
    folder = tmp_path / "conv"
    shutil.copytree(BAD / "valid_base", folder)
    loop = folder / "events" / "event-00006-deadbeef-0000-4000-8000-000000000001.json"
    loop.symlink_to(loop.name)  # points at itself
    before = tree_digest(tmp_path)
    result = run_validate(folder)
    assert_reported(result, folder, f"events/{loop.name}", ": symlink loop")
    assert tree_digest(tmp_path) == before


def test_symlink_loop_folders(tmp_path: Path) -> None:
    """A folder tree whose links loop back: the search ends and the loop is reported or skipped."""
    corpus = tmp_path / "corpus"
    shutil.copytree(BAD / "valid_base", corpus / "one")
    (corpus / "one" / "events" / "loop").symlink_to(".")  # events/loop -> events
    (corpus / "back").symlink_to("..")  # corpus/back -> tmp_path
    (corpus / "self").symlink_to("self")  # a link to itself
    before = tree_digest(tmp_path)
    result = run_validate(corpus)
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1), result.output
    assert "1 conversation" in result.output.splitlines()[-1]
    assert tree_digest(tmp_path) == before

    direct = run_validate(corpus / "self")
    assert_reported(direct, corpus, "self", "symlink loop")


def test_events_folder_is_a_symlink_loop(tmp_path: Path) -> None:
    folder = tmp_path / "conv"
    folder.mkdir()
    shutil.copy(BAD / "valid_base" / "base_state.json", folder)
    (folder / "events").symlink_to("events")
    before = tree_digest(tmp_path)
    result = run_validate(folder)
    assert_reported(result, folder, "events", "symlink loop")
    assert tree_digest(tmp_path) == before


def test_200_mb_event_file_is_refused_unread(tmp_path: Path) -> None:
    folder = tmp_path / "conv"
    shutil.copytree(BAD / "valid_base", folder)
    big = folder / "events" / "event-00006-0badf00d-0000-4000-8000-000000000000.json"
    with open(big, "wb") as fh:  # sparse: takes no disk space, reads as zeros
        fh.truncate(200 * 1024 * 1024)
    before = tree_digest(tmp_path)
    result = run_validate(folder)
    assert_reported(
        result, folder, f"events/{big.name}", ": file is 200 MB, above the 100 MB limit"
    )
    assert tree_digest(tmp_path) == before


def test_200_mb_file_is_not_loaded(tmp_path: Path) -> None:
    """Refusal happens before reading: peak memory stays far below the file's size."""
    import subprocess
    import sys

    big = tmp_path / "event-00000-0badf00d-0000-4000-8000-000000000000.json"
    with open(big, "wb") as fh:
        fh.truncate(200 * 1024 * 1024)
    # VmHWM is this process's own peak; getrusage's ru_maxrss would also carry the peak of
    # the (large) pytest process it was forked from across exec.
    code = (
        "import re, sys; from trajkit.cli import main\n"
        "try: main(['validate', sys.argv[1]])\n"
        "except SystemExit as e: code = e.code\n"
        "hwm = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)\n"
        "print(code, hwm)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(big)], capture_output=True, text=True, check=True
    )
    code_text, peak_kb = out.stdout.split()[-2:]
    assert code_text == "1"
    assert int(peak_kb) < 150 * 1024, out.stdout  # far below 200 MB


def test_missing_path_is_reported_and_exits_1_like_every_command(tmp_path: Path) -> None:
    result = run_validate(tmp_path / "nope")
    assert result.exit_code == 1
    assert f"{tmp_path / 'nope'}: no such file or folder\n" in result.output
    assert "::" not in result.output


def test_folder_without_conversations(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = run_validate(tmp_path / "empty")
    assert_reported(result, tmp_path, "empty", ": no conversation found here")


def test_no_paths_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["validate"])
    assert result.exit_code == 2
    assert "Missing argument 'PATH...'" in result.output


def test_v0_inputs_point_to_migrate() -> None:
    v0 = fx.V0_FIXTURES
    result = run_validate(v0 / "basic.json", v0)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    migrate = "not read here; `trajkit migrate PATH -o OUT` writes V1 folders to validate"
    basic = display_path(v0 / "basic.json")
    assert lines[0] == f"Error: {basic}: an OpenHands V0 trajectory, {migrate}"
    # the folder holds V0 only: each V0 input is named, as an error (nothing was checked)
    session = display_path(v0 / "sessions" / "63b4315947a049e2b7a51249b3d4fcc3")
    assert f"Error: {session}: an OpenHands V0 session folder, {migrate}" in lines
    assert all(migrate in line for line in lines), lines


def test_max_file_size_option(tmp_path: Path) -> None:
    folder = tmp_path / "conv"
    shutil.copytree(BAD / "valid_base", folder)
    big = folder / "events" / "event-00006-0badf00d-0000-4000-8000-000000000002.json"
    with open(big, "wb") as fh:
        fh.truncate(3 * 1024 * 1024)
    result = run_validate(folder, "--max-file-size", "2")
    assert_reported(result, folder, f"events/{big.name}", ": file is 3 MB, above the 2 MB limit")
