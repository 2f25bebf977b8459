"""`trajkit convert`, tested by what it prints and writes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.convert._build import Log, text
from tests.support import fixtures as fx
from trajkit.cli import main


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["convert", *args])
    return result.exit_code, result.stdout, result.stderr


def test_one_conversation_gives_a_chat_document() -> None:
    code, out, err = run(str(fx.sdk_conversation("d_parallel")))
    assert code == 0, err
    document = json.loads(out)
    assert list(document) == ["messages", "tools"]
    assert document["messages"] == fx.sdk_expected("d_parallel", "chat_messages.json")
    assert err == ""


def test_one_conversation_gives_a_responses_document() -> None:
    code, out, _ = run(
        str(fx.sdk_conversation("j_condense")), "--to", "responses", "--view", "full"
    )
    assert code == 0
    document = json.loads(out)
    assert list(document) == ["instructions", "input", "tools"]
    expected = fx.sdk_expected("j_condense", "responses_input.json")
    assert (document["instructions"], document["input"]) == (
        expected["instructions"],
        expected["input"],
    )


def test_auto_picks_the_api_of_the_conversation_llm() -> None:
    code, out, _ = run(str(fx.sdk_conversation("a_text")), "--to", "auto")
    assert code == 0 and "messages" in json.loads(out)  # gpt-4o: Chat Completions


def test_options_drop_system_and_reasoning() -> None:
    code, out, _ = run(str(fx.sdk_conversation("a_text")), "--no-system", "--no-reasoning")
    assert code == 0
    assert [m["role"] for m in json.loads(out)["messages"]] == ["user", "assistant"]


def test_folder_of_many_gives_jsonl_and_skips_bad_ones(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    for scenario in fx.sdk_scenarios():
        src = fx.sdk_conversation(scenario)
        shutil.copytree(src, corpus / src.name)
    bad = corpus / "ffffffffffffffffffffffffffffffff"
    Log().write(bad)
    (bad / "events" / "event-00000-aaaaaaaa-0000-4000-8000-000000000000.json").write_text("{oops")
    code, out, err = run(str(corpus), "--jobs", "2")
    assert code == 1
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == len(fx.sdk_scenarios())
    assert all(list(line) == ["conversation_id", "messages", "tools"] for line in lines)
    by_id = {line["conversation_id"].replace("-", ""): line for line in lines}
    d_parallel = fx.sdk_conversation("d_parallel")
    assert by_id[d_parallel.name]["messages"] == fx.sdk_expected("d_parallel", "chat_messages.json")
    error_lines = [line for line in err.splitlines() if line.startswith("Error: ")]
    assert len(error_lines) == 1
    assert error_lines[0].startswith(f"Error: {bad}/")  # validate's first error, shared (issue 16)
    assert "Traceback" not in err
    assert (
        err.splitlines()[-1]
        == f"converted {len(lines)} conversation(s), skipped 1; 0 secret(s) masked"
    )


def test_output_file_and_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    code, _, err = run(str(fx.SDK_FIXTURES), "--to", "responses", "-o", str(target), "-j", "1")
    assert code == 0, err
    lines = target.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(fx.sdk_scenarios())
    assert all("input" in json.loads(line) for line in lines)
    code, _, err = run(str(fx.SDK_FIXTURES), "-o", str(target))
    assert code == 1 and err.startswith(f"Error: {target}: already exists")
    code, _, _ = run(str(fx.SDK_FIXTURES), "-o", str(target), "--overwrite")
    assert code == 0 and "messages" in target.read_text(encoding="utf-8")


def test_never_writes_into_a_conversation_folder(tmp_path: Path) -> None:
    folder = shutil.copytree(fx.sdk_conversation("a_text"), tmp_path / "c")
    code, _, err = run(str(folder), "-o", str(folder / "out.json"))
    assert code == 2
    assert "convert never writes into a conversation" in err
    assert not (folder / "out.json").exists()


def test_bad_single_conversation_is_an_error_without_traceback(tmp_path: Path) -> None:
    log = Log()
    log.system()
    log.user(text("x"), parent_id="ffffffff-0000-4000-8000-000000000000")
    folder = log.write(tmp_path / "c")
    code, out, err = run(str(folder))
    assert code == 1 and out == ""
    assert err.startswith("Error: ") and err.rstrip().endswith(
        "names no event of this conversation ('ffffffff-0000-4000-8000-000000000000'); "
        "invalid, skipped (--keep-invalid keeps it)"
    )  # validate's message: the check convert and validate share (issue 16)
    assert "/parent_id" in err


def test_dangling_calls_are_reported_on_stderr(tmp_path: Path) -> None:
    log = Log()
    log.system()
    log.action("c9", "r1")
    folder = log.write(tmp_path / "c")
    code, out, err = run(str(folder), "--view", "full", "--dangling", "synthesize")
    assert code == 0
    assert err == f"warning: {folder}: tool call without a result: terminal (id c9, message 1)\n"
    assert json.loads(out)["messages"][-1]["tool_call_id"] == "c9"


@pytest.mark.parametrize("argv", [["convert", "--help"], ["--help"]])
def test_help_lists_the_command(argv: list[str]) -> None:
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 0 and "convert" in result.stdout


def test_convert_does_not_import_litellm_or_the_runtime() -> None:
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from trajkit.cli import main\n"
        "from trajkit.convert import convert_conversation\n"
        f"convert_conversation({str(fx.sdk_conversation('j_condense'))!r}, to='responses')\n"
        f"r = CliRunner().invoke(main, ['convert', {str(fx.SDK_FIXTURES)!r}, '-j', '1'])\n"
        "assert r.exit_code == 0, r.output\n"
        "bad = [m for m in sys.modules if m.split('.')[0] == 'litellm'"
        " or m.startswith(('trajkit.sdk', 'trajkit.tools'))]\n"
        "print(bad)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=fx.REPO, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_reasoning_content_flag() -> None:
    folder = str(fx.sdk_conversation("g_reasoning_chat"))
    code, out, _ = run(folder)
    assert "reasoning_content" not in out  # gpt-4o is not sent its reasoning back
    code, out, _ = run(folder, "--reasoning-content")
    assert code == 0
    messages = json.loads(out)["messages"]
    assert messages[-1]["reasoning_content"] == "The output is a year; answer briefly."
    code, _, err = run(folder, "--reasoning-content", "--no-reasoning")
    assert code == 2 and "contradict" in err
