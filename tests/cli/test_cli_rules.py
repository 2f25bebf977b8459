"""Rules every command follows: a missing PATH, whole-file messages, spinners, Ctrl-C."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support import fixtures as fx
from trajkit.cli import main

A_TEXT = fx.sdk_conversation("a_text")

# Every command reading PATHs, with the extra arguments it needs.
READERS: dict[str, list[str]] = {
    "validate": [],
    "ls": [],
    "stats": ["--json"],
    "convert": [],
    "repair": ["--dry-run"],
    "inspect": [],
    "view": [],
    "export": ["-o", "{tmp}/ds"],
    "migrate": ["-o", "{tmp}/m"],
}


@pytest.mark.parametrize("command", sorted(READERS))
def test_missing_path_exits_1_with_one_message_in_every_command(
    command: str, tmp_path: Path
) -> None:
    missing = tmp_path / "nope"
    extra = [a.replace("{tmp}", str(tmp_path)) for a in READERS[command]]
    args = [command, str(missing), *extra] if command != "inspect" else [command, str(missing)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert f"{missing}: no such file or folder" in result.output
    assert "::" not in result.output  # whole-file problems are `path: message`
    assert "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no empty output left behind


def test_stats_json_lists_the_missing_path_as_a_problem(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["stats", "--json", str(A_TEXT), str(tmp_path / "nope")])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["schema"] == "trajkit.stats/1"
    assert doc["conversations"] == 1
    assert doc["problems"] == [f"{tmp_path / 'nope'}: no such file or folder"]


def test_convert_writes_no_file_when_every_conversation_fails(tmp_path: Path) -> None:
    out = tmp_path / "all.jsonl"
    bad = [str(fx.BAD_FIXTURES / n) for n in ("truncated_base_state", "top_level_array")]
    result = CliRunner().invoke(main, ["convert", *bad, "-o", str(out)])
    assert result.exit_code == 1
    assert "converted 0 conversation(s), skipped 2" in result.stderr
    assert f"{out} not written" in result.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_convert_failing_keeps_an_existing_output_as_it_was(tmp_path: Path) -> None:
    out = tmp_path / "all.jsonl"
    out.write_text("earlier\n")
    bad = str(fx.BAD_FIXTURES / "truncated_base_state")
    result = CliRunner().invoke(main, ["convert", bad, bad, "-o", str(out), "--overwrite"])
    assert result.exit_code == 1
    assert out.read_text() == "earlier\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all.jsonl"]


def test_export_with_nothing_exported_leaves_no_dataset_folder(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    bad = str(fx.BAD_FIXTURES / "truncated_base_state")
    result = CliRunner().invoke(main, ["export", bad, str(tmp_path / "nope"), "-o", str(out)])
    assert result.exit_code == 1
    assert "nothing exported (0 unchanged, 0 filtered out, 2 skipped)" in result.stderr
    assert not out.exists()


def test_export_into_an_existing_empty_folder_keeps_the_folder(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    out.mkdir()
    result = CliRunner().invoke(main, ["export", str(tmp_path / "nope"), "-o", str(out)])
    assert result.exit_code == 1
    assert out.is_dir() and list(out.iterdir()) == []  # the user's folder, left as it was


def test_ls_header_names_aligned_columns_and_is_off_on_a_pipe() -> None:
    plain = CliRunner().invoke(main, ["ls", str(fx.SDK_FIXTURES)])  # not a terminal
    assert plain.exit_code == 0 and not plain.stdout.startswith("ID")
    result = CliRunner().invoke(main, ["ls", str(fx.SDK_FIXTURES), "--header"])
    assert result.exit_code == 0
    header, first, *_ = result.stdout.splitlines()
    assert header.split() == [
        "ID", "STARTED", "LAST", "STATUS", "EVENTS", "MODEL", "COST", "FIRST", "MESSAGE",
    ]  # fmt: skip
    assert header.index("STATUS") == first.index("finished")
    assert header.index("MODEL") == first.index("gpt-4o")  # no provider route (issue 25)


def test_stats_table_wraps_long_identifiers_instead_of_cutting_them(tmp_path: Path) -> None:
    import shutil

    conv = shutil.copytree(A_TEXT, tmp_path / "conv")
    state = json.loads((conv / "base_state.json").read_text())
    model = "provider/" + "averyveryverylongmodelname" * 3
    state["agent"]["llm"]["model"] = model
    (conv / "base_state.json").write_text(json.dumps(state))
    result = CliRunner().invoke(main, ["stats", str(conv), "--table"], env={"COLUMNS": "40"})
    assert result.exit_code == 0, result.output
    assert "…" not in result.stdout
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("By model"))
    cells = [
        line.split("│")[1].strip()
        for line in lines[start:]
        if line.startswith("│") and not line.startswith("│ conversations")
    ]
    block = []
    for cell in cells:  # the model column's fragments, until the table ends
        block.append(cell)
        if "".join(block).endswith(model[-10:]):
            break
    assert "".join(block) == model.removeprefix("provider/")  # shown without its route
    assert max(len(line) for line in lines) <= 40


def _run_on_a_terminal(args: list[str], cwd: Path) -> str:
    """Run trajkit with stdout and stderr on one real pseudo-terminal; return what it showed."""
    import os
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "CI"}  # progress is off under CI
    env.update(PYTHONPATH=str(fx.REPO), TERM="xterm", COLUMNS="200", LINES="50")
    proc = subprocess.Popen(
        [sys.executable, "-m", "trajkit", *args],
        stdin=follower, stdout=follower, stderr=follower, cwd=cwd, env=env, close_fds=True,
    )  # fmt: skip
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the terminal closed
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


def _screen_lines(raw: str) -> list[str]:
    """The lines as a terminal leaves them: escapes dropped, a carriage return rewrites."""
    import re

    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw)
    return [line.split("\r")[-1].strip() for line in text.replace("\r\n", "\n").split("\n")]


@pytest.mark.parametrize("command", ["validate", "migrate"])
def test_result_lines_are_not_glued_to_the_progress_spinner(command: str, tmp_path: Path) -> None:
    import shutil

    if command == "validate":
        corpus = tmp_path / "corpus"
        for name in ("index_gap", "duplicate_index", "wrong_field_types"):
            shutil.copytree(fx.BAD_FIXTURES / name, corpus / name)
        for folder in fx.sdk_conversations():
            shutil.copytree(folder, corpus / folder.name)
        args = ["validate", str(corpus)]
        wanted = "corpus/"
    else:
        args = ["migrate", str(fx.FIXTURES / "v0-synthetic"), "-o", str(tmp_path / "out")]
        wanted = " -> "
    lines = _screen_lines(_run_on_a_terminal(args, tmp_path))
    results = [line for line in lines if wanted in line]
    assert results, lines
    for line in results:  # each result starts its own line: no spinner text before it
        assert line.startswith(("corpus/", str(fx.FIXTURES))), line


def _tree_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    ("make", "said"),
    [
        ("file", "a file; repair works on conversation folders"),
        ("empty", "a folder holding no conversation; repair works on conversation folders"),
    ],
)
def test_repair_dry_run_says_why_it_cannot_work_on_a_path(
    make: str, said: str, tmp_path: Path
) -> None:
    target = tmp_path / "target"
    if make == "file":
        target.write_text("not a conversation")
    else:
        target.mkdir()
    result = CliRunner().invoke(main, ["repair", "--dry-run", str(target)])
    assert result.exit_code == 1
    assert (
        result.stderr
        == f"Error: {target}: {said} (holding events/ or base_state.json), nothing to repair\n"
    )


def test_repair_dry_run_on_a_folder_validate_rejects_says_repair_cannot_fix_it(
    tmp_path: Path,
) -> None:
    import shutil

    conv = shutil.copytree(fx.BAD_FIXTURES / "wrong_field_types", tmp_path / "conv")
    before = _tree_bytes(conv)
    result = CliRunner().invoke(main, ["repair", "--dry-run", str(conv)])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert all(
        line.startswith(f"not crash damage: {conv}/events/event-00003-") for line in lines[:2]
    )
    assert lines[1].endswith("/observation/exit_code: expected integer or null, got string")
    assert lines[-1].startswith(f"{conv}: nothing repair can fix: 2 problem(s) above")
    assert "nothing to repair" not in result.stdout
    assert _tree_bytes(conv) == before  # a dry run changes nothing


def test_repair_dry_run_says_what_it_would_do(tmp_path: Path) -> None:
    import shutil

    conv = shutil.copytree(fx.BAD_FIXTURES / "leaf_event_missing", tmp_path / "conv")
    before = _tree_bytes(conv)
    result = CliRunner().invoke(main, ["repair", "--dry-run", str(conv)])
    assert result.exit_code == 0, result.output
    first, last = result.stdout.splitlines()
    assert first.startswith(f"would set head: {conv}/base_state.json: head ")
    assert last == f"{conv}: planned (1 fix(es))"
    assert _tree_bytes(conv) == before


def test_inspect_full_on_a_50_mb_event_is_cut_with_a_note(tmp_path: Path) -> None:
    # Was 13 minutes and 950 MB (rich rendering the whole value); now each value is cut at
    # 1,000,000 characters, so the output and the time are bounded whatever the input.
    import shutil
    import subprocess
    import sys

    conv = shutil.copytree(fx.sdk_conversation("b_terminal"), tmp_path / "conv")
    event = next((conv / "events").glob("event-00003-*.json"))
    data = json.loads(event.read_text())
    data["observation"]["content"][0]["text"] = "".join(
        f"line {i} " + "x" * 90 + "\n" for i in range(500_000)
    )
    event.write_text(json.dumps(data))
    assert event.stat().st_size > 50_000_000
    result = subprocess.run(
        [sys.executable, "-m", "trajkit", "inspect", str(conv), "--full", "--no-pager"],
        capture_output=True, text=True, timeout=300, check=False,
        env={"PYTHONPATH": str(fx.REPO), "COLUMNS": "120", "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert len(result.stdout) < 2_000_000
    assert "more characters not shown (51,389,041 in all; the whole value is" in " ".join(
        result.stdout.split()
    )
    assert "line 0 xxx" in result.stdout and "line 499999 xxx" in result.stdout  # start and end


def test_inspect_exits_0_when_the_pager_is_quit_early(tmp_path: Path) -> None:
    # rich answers a broken pipe with SystemExit(1) (Console.on_broken_pipe); the pager's
    # console raises BrokenPipeError instead, which ends the rendering quietly (issue 13.9).
    import shlex
    import shutil
    import subprocess
    import sys

    conv = shutil.copytree(fx.sdk_conversation("b_terminal"), tmp_path / "conv")
    event = next((conv / "events").glob("event-00003-*.json"))
    data = json.loads(event.read_text())
    data["observation"]["content"][0]["text"] = "output line\n" * 100_000  # > a pipe's buffer
    event.write_text(json.dumps(data))
    pager = f"{shlex.quote(sys.executable)} -c 'import sys; sys.stdin.read(10)'"
    result = subprocess.run(
        [sys.executable, "-m", "trajkit", "inspect", str(conv), "--pager", "--full"],
        capture_output=True, text=True, timeout=120, check=False,
        env={"PYTHONPATH": str(fx.REPO), "PAGER": pager, "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and result.stdout == ""
