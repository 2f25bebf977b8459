"""What a newcomer sees (issue 25, section 2): help, errors, tables, notes, terminal text.

Each test fails on `8bb7cc8`. The ones on `../shared/fixtures-wild` and `../shared/fixtures-v0`
(public files, never committed) skip with a reason when those folders are absent; paths to them
are computed inside the tests, never at import.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tests.support import fixtures as fx
from tests.support.cli import invoke
from trajkit.cli import _COMMANDS, _load_command, main


def _shared(name: str) -> Path:
    """`../shared/<name>` beside the checkout (or its worktree parent); skip when absent."""
    for base in (fx.REPO.parent, fx.REPO.parents[1]):
        if (base / "shared" / name).is_dir():
            return base / "shared" / name
    pytest.skip(f"../shared/{name} is not here (public files, never committed)")


def _a_text_copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(fx.sdk_conversation("a_text"), tmp_path / "a_text"))


# -- help ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(_COMMANDS))
def test_help_shows_two_or_three_examples(name: str) -> None:
    result = CliRunner().invoke(main, [name, "--help"])
    assert result.exit_code == 0, result.output
    _, _, tail = result.output.partition("\n  Examples:\n")
    examples = [line.strip() for line in tail.splitlines() if line.strip()]
    assert 2 <= len(examples) <= 3, result.output
    assert all(line.startswith(f"trajkit {name} ") for line in examples), examples


@pytest.mark.parametrize(
    "name",
    sorted(
        n for n in _COMMANDS if any(p.name == "storage_option" for p in _load_command(n).params)
    ),
)
def test_storage_option_comes_after_the_others(name: str) -> None:
    options = [p for p in _load_command(name).params if isinstance(p, click.Option)]
    assert options[-1].name == "storage_option", [o.name for o in options]
    help_text = CliRunner().invoke(main, [name, "--help"]).output
    listed = re.findall(r"^  (-\w, )?(--[\w-]+)", help_text, flags=re.M)
    assert [opt for _, opt in listed][-2:] == ["--storage-option", "--help"], listed


def test_inspect_names_its_argument_for_folders_and_files() -> None:
    usage = CliRunner().invoke(main, ["inspect", "--help"]).output.splitlines()[0]
    assert usage == "Usage: trajkit inspect [OPTIONS] FOLDER_OR_FILE"


# -- terminal -----------------------------------------------------------------------------


def test_inspect_shows_crlf_text_as_lines(tmp_path: Path) -> None:
    conv = _a_text_copy(tmp_path)
    (event,) = (conv / "events").glob("event-00001-*.json")
    data = json.loads(event.read_text(encoding="utf-8"))
    data["llm_message"]["content"][0]["text"] = "first line\r\nsecond line\r\nbare\rcarriage"
    event.write_text(json.dumps(data), encoding="utf-8")
    result = invoke("inspect", conv, "--no-pager")
    assert result.exit_code == 0, result.output
    assert "first line\\r" not in result.output
    lines = [line.strip(" │") for line in result.output.splitlines()]
    assert "first line" in lines and "second line" in lines, result.output
    assert "bare\\rcarriage" in result.output  # a lone CR would overwrite the line: shown


def test_inspect_of_wild_crlf_conversation_has_no_cr_marks() -> None:
    conv = _shared("fixtures-wild") / "agent-server" / "b2688296b4844863aaede6f60a88b9da"
    result = invoke("inspect", conv, "--no-pager", "--to", "2")
    assert result.exit_code == 0, result.output
    assert "\\r" not in result.stdout


# -- errors -------------------------------------------------------------------------------


def test_validate_of_a_missing_path_is_an_error_not_an_invalid_file(tmp_path: Path) -> None:
    result = invoke("validate", tmp_path / "nope")
    assert result.exit_code == 1
    assert result.stdout == ""  # no "INVALID: 1 error ... in 1 file"
    assert result.stderr == f"Error: {tmp_path / 'nope'}: no such file or folder\n"
    mixed = invoke("validate", tmp_path / "nope", fx.sdk_conversation("a_text"))
    assert mixed.exit_code == 1
    assert mixed.stdout.splitlines()[-1] == (
        "valid: 1 conversation (3 events); 1 path not checked (above)"
    )


def test_validate_of_the_v0_part_of_the_wild_tree_says_so_on_stderr() -> None:
    result = invoke("validate", _shared("fixtures-wild") / "v0-eval-paired")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ") and "trajkit migrate" in result.stderr


def test_export_that_created_nothing_does_not_say_it_exported(tmp_path: Path) -> None:
    out = tmp_path / "e3"
    result = invoke("export", tmp_path / "nope", "-o", out)
    assert result.exit_code == 1
    assert not out.exists()
    last = result.stderr.splitlines()[-1]
    assert "exported 0" not in last
    assert last == f"nothing exported (0 unchanged, 0 filtered out, 1 skipped); {out} not created"


@pytest.mark.parametrize("command", ["convert", "ls", "inspect", "view", "stats", "export"])
def test_a_v1_event_file_alone_is_named_once_and_not_called_v0(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conv = _a_text_copy(tmp_path)
    (event,) = (conv / "events").glob("event-00000-*.json")
    monkeypatch.chdir(tmp_path)
    rel = event.relative_to(tmp_path)
    args = [command, rel, *(["-o", "out"] if command in ("export", "view") else [])]
    result = invoke(*args)
    assert result.exit_code == 1
    said = result.stderr
    assert "one V1 event (SystemPromptEvent), not a whole conversation" in said, said
    assert f"give its conversation folder, {rel.parent.parent}" in said
    assert "V0" not in said and "--from-v0" not in said
    assert said.count(str(rel)) == 1, said


@pytest.mark.parametrize("command", ["convert", "export"])
def test_a_file_that_is_not_json_does_not_suggest_keep_invalid(
    command: str, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("not json\n", encoding="utf-8")
    args = [command, bad, *(["-o", tmp_path / "out"] if command == "export" else [])]
    result = invoke(*args)
    assert result.exit_code == 1
    assert "not valid JSON" in result.stderr
    assert "--keep-invalid" not in result.stderr


def test_a_readable_but_invalid_conversation_still_suggests_keep_invalid() -> None:
    result = invoke("convert", fx.BAD_FIXTURES / "index_gap")
    assert result.exit_code == 1
    assert "(--keep-invalid keeps it)" in result.stderr


# -- tables -------------------------------------------------------------------------------


def _row(**kw: object) -> object:
    from trajkit.views.summary import ConversationRow

    base: dict[str, object] = {
        "id": "b2688296-b484-4863-aaed-e6f60a88b9da",
        "path": "p",
        "first_time": "2025-09-25T11:33:20.1",
        "last_time": "2025-09-26T11:35:08.2",
        "status": "finished",
        "n_events": 218,
        "model": "litellm_proxy/anthropic/claude-sonnet-4-20250514-with-a-long-suffix",
        "cost": 1.83,
        "first_message": "Fix the failing test in the parser module, then run the whole suite",
    }
    return ConversationRow(**{**base, **kw})  # type: ignore[arg-type]


def test_ls_keeps_the_first_message_at_120_columns_beside_a_long_model() -> None:
    from trajkit.views.tables import format_rows

    rows = [_row(), _row(model="gpt-4o", cost=None, status=None)]
    lines = list(format_rows(rows, width=120, header=True))  # type: ignore[arg-type]
    assert all(len(line) <= 120 for line in lines), lines
    assert lines[0].endswith("FIRST MESSAGE")
    for line in lines[1:]:
        assert "Fix the failing" in line, line
    assert "litellm_proxy" not in "\n".join(lines)  # the provider route goes first


def test_ls_shows_model_names_without_their_provider_route() -> None:
    from trajkit.views.tables import format_rows, short_model

    assert short_model("litellm_proxy/anthropic/claude-sonnet-4-20250514") == (
        "claude-sonnet-4-20250514"
    )
    assert short_model("gpt-4o") == "gpt-4o" and short_model(None) == "-"
    (line,) = format_rows([_row(model="openai/gpt-4o")], width=None)  # type: ignore[list-item]
    assert line.split()[7:9] == ["gpt-4o", "$1.8300"], line


def test_ls_marks_every_missing_value_with_one_dash() -> None:
    from trajkit.views.tables import format_rows

    rows = [
        _row(first_time=None, last_time=None, status=None, model=None, cost=None),
        _row(cost=0.0),
        _row(cost=0.00001),
    ]
    lines = list(format_rows(rows, width=None))  # type: ignore[arg-type]
    assert lines[0].split()[1:7] == ["-", "-", "-", "218", "-", "-"], lines[0]
    assert lines[1].split()[-1 - len(_row().first_message.split())] == "-"  # type: ignore[attr-defined]
    assert "<$0.0001" in lines[2]
    assert not any(mark in "\n".join(lines) for mark in ("$0.0000", " ? ", " 0 "))


def test_ls_of_the_wild_tree_at_120_columns() -> None:
    result = CliRunner().invoke(
        main, ["ls", "--header", str(_shared("fixtures-wild"))], env={"COLUMNS": "120"}
    )
    lines = result.stdout.splitlines()
    assert lines[0].endswith("FIRST MESSAGE") and len(lines) > 10
    assert all(len(line) <= 120 for line in lines), lines
    server = next(line for line in lines if line.startswith("88ca1e54-"))
    assert "claude-sonnet-4" in server and "I have access to" in server, server
    assert "$0.0000" not in result.stdout and "litellm_proxy/" not in result.stdout


def test_stats_table_marks_unknown_with_a_dash_and_shortens_models() -> None:
    result = CliRunner().invoke(
        main, ["stats", "--table", str(_shared("fixtures-wild"))], env={"COLUMNS": "120"}
    )
    assert "│ -  " in result.stdout and "unknown" not in result.stdout
    assert "│ claude-sonnet-4-20250514 │" in result.stdout


def test_inspect_marks_missing_usage_with_a_dash(tmp_path: Path) -> None:
    conv = _a_text_copy(tmp_path)
    (conv / "base_state.json").unlink()
    result = invoke("inspect", conv, "--no-pager")
    header = result.stdout.split("\n\n")[0]
    assert "?" not in header, header
    assert "  cost   -" in header.splitlines()


# -- noise --------------------------------------------------------------------------------

_UPGRADED = "older SDK format upgraded in memory"


def test_validate_says_each_upgrade_rule_once_with_a_count() -> None:
    servers = _shared("fixtures-wild") / "agent-server"  # 3 valid conversations, 14 rules
    result = invoke("validate", servers)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[-1] == "valid with warnings: 0 errors, 40 warnings in 3 conversations (306 events)"
    upgrades = [line for line in lines if _UPGRADED in line]
    assert len(upgrades) == 14, lines  # was 40: one per rule per conversation
    assert len({line.split("openhands-sdk")[0] for line in upgrades}) == 14
    bash = next(line for line in upgrades if "ExecuteBashAction" in line)
    assert bash.startswith("warning: ") and bash.endswith(
        "(154 events in 3 conversations; -v lists each)"
    ), bash
    verbose = invoke("validate", "-v", servers).stdout.splitlines()
    assert sum(_UPGRADED in line for line in verbose) == 40
    quiet = invoke("validate", "-q", servers)
    assert quiet.stdout.splitlines() == [lines[-1]] and quiet.exit_code == 0


def test_convert_says_migrated_in_memory_once_for_80_records(tmp_path: Path) -> None:
    v0 = _shared("fixtures-wild") / "v0-eval-paired" / "gorilla_torch_output.jsonl"
    result = invoke("convert", v0, "-o", tmp_path / "c.jsonl")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "warning: OpenHands V0 trajectory (eval-jsonl) migrated in memory "
        "(80 conversations; -v lists each)",
        "converted 80 conversation(s), skipped 0; 0 secret(s) masked",
    ]
    verbose = invoke("convert", "-v", v0, "-o", tmp_path / "v.jsonl")
    assert sum("migrated in memory" in line for line in verbose.stderr.splitlines()) == 80
    quiet = invoke("convert", "-q", v0, "-o", tmp_path / "q.jsonl")
    assert quiet.stderr.splitlines() == [
        "converted 80 conversation(s), skipped 0; 0 secret(s) masked"
    ]


def test_a_warning_seen_once_is_printed_as_before() -> None:
    early = _shared("fixtures-wild") / "sdk-early" / "test_file_store"
    lines = invoke("validate", early).stdout.splitlines()
    assert all(line.startswith(f"{early}: warning: {_UPGRADED}") for line in lines[:-1]), lines


def test_inspect_quiet_prints_no_notes() -> None:
    conv = _shared("fixtures-wild") / "agent-server" / "b2688296b4844863aaede6f60a88b9da"
    assert "note: " in invoke("inspect", conv, "--to", "1", "--no-pager").stderr
    quiet = invoke("inspect", "-q", conv, "--to", "1", "--no-pager")
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_v_and_q_contradict_each_other() -> None:
    result = CliRunner().invoke(main, ["validate", "-v", "-q", str(fx.SDK_FIXTURES)])
    assert result.exit_code == 2 and "-v and -q contradict each other" in result.output


# -- progress -----------------------------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def _in_a_terminal(*args: str | Path, cwd: Path | None = None) -> tuple[int, str, str]:
    """`trajkit ARGS` with stderr on a pseudo-terminal: (exit code, stdout, terminal text)."""
    import os
    import pty
    import select
    import subprocess
    import sys

    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(PYTHONPATH=str(fx.REPO), COLUMNS="160", TERM="xterm-256color")
    proc = subprocess.Popen(
        [sys.executable, "-m", "trajkit", *map(str, args)],
        stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL, env=env, cwd=cwd,
    )  # fmt: skip
    os.close(slave)
    seen = bytearray()
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    out = proc.stdout.read().decode() if proc.stdout else ""
    code = proc.wait(timeout=120)
    return code, out, _ANSI.sub("", seen.decode("utf-8", "replace"))


def _last_count(terminal: str) -> tuple[int, int]:
    counts = re.findall(r"(\d+)/(\d+) ", terminal)
    assert counts, terminal
    done, total = counts[-1]
    return int(done), int(total)


def test_progress_shows_done_total_percent_and_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import time

    from trajkit.cli import _output

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.delenv("CI", raising=False)
    with _output.progress("checking", total=lambda: "abcd") as bar:
        time.sleep(0.3)  # the count arrives from its thread
        for name in "abcd":
            bar.advance(note=name)
            time.sleep(0.15)
    text = _ANSI.sub("", stream.getvalue())
    assert "checking" in text and "4/4" in text and "100%" in text, text
    assert re.search(r"\d+/4 .*\d+%\s+eta \d:\d\d:\d\d", text), text


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    from tests.support.cli import run_trajkit

    wild = _shared("fixtures-wild")
    result = run_trajkit("validate", wild / "agent-server", env={"PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_validate_progress_on_a_terminal_agrees_with_the_summary() -> None:
    code, out, terminal = _in_a_terminal("validate", _shared("fixtures-wild"))
    assert code == 1  # one conversation of the tree is invalid
    assert "validating" in terminal and "100%" in terminal, terminal
    assert _last_count(terminal) == (14, 14), terminal  # and the V0 file, named, not checked
    assert out.splitlines()[-1].endswith("in 13 conversations (491 events)")


def test_export_progress_agrees_with_the_summary(tmp_path: Path) -> None:
    code, _, terminal = _in_a_terminal("export", _shared("fixtures-wild"), "-o", tmp_path / "d")
    summary = re.search(r"exported (\d+) conversation.*, (\d+) skipped", terminal)
    assert summary, terminal
    exported, skipped = map(int, summary.groups())
    assert _last_count(terminal) == (exported + skipped,) * 2, terminal
    assert "exporting" in terminal and "100%" in terminal


def test_migrate_progress_agrees_with_the_summary(tmp_path: Path) -> None:
    code, out, terminal = _in_a_terminal("migrate", _shared("fixtures-v0"), "-o", tmp_path / "m")
    assert code == 0, terminal
    migrated = int(re.search(r"migrated (\d+) conversation", out).group(1))  # type: ignore[union-attr]
    assert _last_count(terminal) == (migrated, migrated) and "migrating" in terminal


def test_view_site_progress_agrees_with_the_pages(tmp_path: Path) -> None:
    code, out, terminal = _in_a_terminal("view", _shared("fixtures-wild"), "-o", tmp_path / "s")
    pages = int(re.search(r"and (\d+) conversation page", out).group(1))  # type: ignore[union-attr]
    assert _last_count(terminal) == (pages, pages) and "writing pages" in terminal


def test_serve_first_scan_shows_progress(tmp_path: Path) -> None:
    import os
    import pty
    import select
    import signal
    import subprocess
    import sys
    import time

    wild = _shared("fixtures-wild")
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(PYTHONPATH=str(fx.REPO), COLUMNS="160", TERM="xterm-256color")
    args = ["serve", wild, "--port", "0", "--cache", tmp_path / "c.sqlite3"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "trajkit", *map(str, args)],
        stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL, env=env, text=True,
    )  # fmt: skip
    os.close(slave)
    seen, lines = bytearray(), []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any("indexed" in x for x in lines):
            ready, _, _ = select.select([master, proc.stdout], [], [], 0.2)
            if master in ready:
                seen += os.read(master, 65536)
            if proc.stdout in ready:
                lines.append(proc.stdout.readline())
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        os.close(master)
    indexed = next(x for x in lines if "indexed" in x)
    n = int(re.search(r"indexed (\d+) conversations", indexed).group(1))  # type: ignore[union-attr]
    terminal = _ANSI.sub("", seen.decode("utf-8", "replace"))
    assert "indexing" in terminal and _last_count(terminal) == (n, n), terminal


def test_no_progress_on_a_pipe_for_any_long_command(tmp_path: Path) -> None:
    from tests.support.cli import run_trajkit

    wild = _shared("fixtures-wild")
    for args in (
        ("export", wild, "-o", tmp_path / "d"),
        ("migrate", _shared("fixtures-v0"), "-o", tmp_path / "m"),
        ("view", wild, "-o", tmp_path / "s"),
    ):
        result = run_trajkit(*args)
        assert "━" not in result.stderr and "\r" not in result.stderr, result.stderr


def test_migration_report_keeps_the_source_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    v0 = _shared("fixtures-v0")
    shutil.copytree(v0, tmp_path / "v0")
    monkeypatch.chdir(tmp_path)
    result = invoke("migrate", "v0", "-o", "out")
    assert result.exit_code == 0, result.output
    sources = {
        json.loads(p.read_text())["source"]
        for p in (tmp_path / "out").glob("*/migration_report.json")
    }
    assert sources and all(s.startswith("v0/") for s in sources), sources
    assert not any(
        str(tmp_path) in p.read_text() for p in (tmp_path / "out").glob("*/migration_report.json")
    )


def test_migrate_quiet_prints_the_summary_only(tmp_path: Path) -> None:
    v0 = _shared("fixtures-wild") / "v0-eval-paired" / "gorilla_torch_output.jsonl"
    loud = invoke("migrate", v0, "-o", tmp_path / "a")
    assert len(loud.stdout.splitlines()) == 81  # one line per record, then the summary
    quiet = invoke("migrate", "-q", v0, "-o", tmp_path / "b")
    assert quiet.exit_code == 0
    assert quiet.stdout.splitlines() == [loud.stdout.splitlines()[-1].replace("/a:", "/b:")]


def test_convert_and_stats_progress_agree_with_their_counts(tmp_path: Path) -> None:
    wild = _shared("fixtures-wild")
    code, _, terminal = _in_a_terminal("convert", wild, "-o", tmp_path / "c.jsonl")
    done = re.search(r"converted (\d+) conversation\(s\), skipped (\d+)", terminal)
    assert done, terminal
    n = sum(map(int, done.groups()))
    assert _last_count(terminal) == (n, n) and "converting" in terminal
    code, out, terminal = _in_a_terminal("stats", wild, "--json")
    listed = json.loads(out)["conversations"]
    assert _last_count(terminal)[0] == _last_count(terminal)[1] >= listed


def test_stats_leaves_conversations_without_usage_out_of_token_figures(tmp_path: Path) -> None:
    bare = _a_text_copy(tmp_path)
    (bare / "base_state.json").unlink()  # no usage recorded: missing, not 0 tokens
    result = invoke("stats", bare, fx.sdk_conversation("a_text"), "--json")
    doc = json.loads(result.stdout)
    assert doc["conversations"] == 2
    tokens = doc["per_conversation"]["prompt_tokens"]
    assert tokens["min"] == tokens["max"] > 0, tokens


def _mixed_tree(tmp_path: Path) -> Path:
    """A V1 folder with V0 records and a V0 eval output beside it, an archive, an events file."""
    import tarfile

    tree = tmp_path / "mixed"
    runs = tree / "runs"
    shutil.copytree(fx.sdk_conversation("a_text"), runs / "a_text")
    shutil.copy(fx.REPO / "fixtures" / "v0" / "cli_edit_and_finish.json", runs)
    shutil.copy(fx.REPO / "fixtures" / "v0-synthetic" / "eval_output.jsonl", runs)  # 2 records
    with tarfile.open(tree / "download.tar.gz", "w:gz") as tar:
        tar.add(fx.sdk_conversation("b_terminal"), arcname="b_terminal")
    shutil.copy(fx.REPO / "fixtures" / "shapes" / "events.jsonl", tree)
    return tree


@pytest.mark.parametrize(
    ("command", "options", "processed"),
    [
        # 3 V1 conversations checked, the 2 V0 files named (not checked): 5 reports
        ("validate", [], 5),
        ("convert", ["-o", "{tmp}/c.jsonl"], 6),  # V0 migrated in memory: 6 lines
        ("export", ["-o", "{tmp}/d"], 5),  # 3 exported, the 2 V0 files skipped
        ("migrate", ["-o", "{tmp}/m"], 6),  # 5 migrated, the V1 folder skipped
        ("stats", ["--json"], 6),
        ("view", ["-o", "{tmp}/s"], 6),  # one page each
    ],
)
def test_progress_total_is_what_the_command_processes(
    command: str, options: list[str], processed: int, tmp_path: Path
) -> None:
    """The bar's total is counted over the registry's listing the command itself reads."""
    args = [o.format(tmp=tmp_path) for o in options]
    code, out, terminal = _in_a_terminal(command, _mixed_tree(tmp_path), *args)
    assert _last_count(terminal) == (processed, processed), (code, out, terminal)
