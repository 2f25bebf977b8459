"""TerminalTool against a real bash."""

import hashlib
import shutil
from pathlib import Path

import pytest

from trajkit.events import TerminalAction, TerminalObservation
from trajkit.sdk.tool import ToolContext, resolve_tool
from trajkit.tools.terminal import TerminalTool


@pytest.fixture
def term(tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    tool = TerminalTool(ToolContext(str(ws), str(tmp_path / "conv")), no_change_timeout_seconds=2)
    yield tool
    tool.close()


def run(tool: TerminalTool, command: str, **kw) -> TerminalObservation:
    return tool(TerminalAction(command=command, **kw))


def test_output_exit_code_and_metadata_like_the_sdk(term: TerminalTool) -> None:
    obs = run(term, "echo hello-from-terminal && pwd")
    ws = term.ctx.working_dir
    assert obs.text == f"hello-from-terminal\n{ws}"
    assert obs.exit_code == 0 and obs.metadata.exit_code == 0 and not obs.is_error
    assert obs.metadata.suffix == "\n[The command completed with exit code 0.]"
    assert obs.metadata.working_dir == ws
    assert obs.full_output_save_dir == str(Path(term.ctx.conversation_dir) / "observations")
    python = shutil.which("python") or ""
    assert obs.metadata.py_interpreter_path == python
    interpreter = f"\n[Python interpreter: {python}]" if python else ""
    assert obs.llm_text().endswith(
        f"[Current working directory: {ws}]{interpreter}\n[Command finished with exit code 0]"
    )
    dumped = obs.model_dump(exclude_none=True)
    assert list(dumped) == [
        "content", "is_error", "command", "exit_code", "timeout", "metadata",
        "full_output_save_dir", "kind",
    ]  # fmt: skip


def test_cwd_and_env_persist_and_exit_code(term: TerminalTool) -> None:
    run(term, "mkdir -p sub && cd sub && export GREETING=hi")
    obs = run(term, "echo $GREETING; pwd; false")
    assert obs.text == f"hi\n{term.ctx.working_dir}/sub"
    assert obs.exit_code == 1
    assert "[The command completed with exit code 1.]" in obs.metadata.suffix


def test_empty_output_has_no_save_dir(term: TerminalTool) -> None:
    obs = run(term, "true")
    assert obs.text == "" and obs.full_output_save_dir is None


def test_hard_timeout_returns_and_keeps_session(term: TerminalTool) -> None:
    # As the SDK: the hard timeout returns the output so far; the command keeps running until
    # it is interrupted (C-c), and the session (its environment) is kept.
    run(term, "export KEEP=1")
    obs = run(term, "echo start; sleep 30", timeout=1)
    assert obs.timeout is True and obs.exit_code == -1 and obs.metadata.exit_code == -1
    assert obs.text == "start"
    assert "timed out after 1 seconds" in obs.metadata.suffix
    assert "[Command finished" not in obs.llm_text()
    stopped = run(term, "C-c", is_input=True)
    assert stopped.exit_code == 130 and "CTRL+C was sent" in stopped.metadata.suffix
    assert run(term, "echo $KEEP").text == "1"


def test_no_output_timeout(term: TerminalTool) -> None:
    obs = run(term, "sleep 20")
    assert obs.timeout is True and obs.exit_code == -1
    assert "no new output after 2 seconds" in obs.metadata.suffix
    assert "still running" in obs.metadata.suffix


def test_builtin_loop_is_interrupted_without_restart(term: TerminalTool) -> None:
    # On a terminal, C-c reaches bash itself, so a builtin loop stops and the session lives.
    run(term, "export KEEP=2")
    obs = run(term, "while :; do :; done", timeout=1)
    assert obs.timeout and obs.exit_code == -1
    stopped = run(term, "C-c", is_input=True)
    assert stopped.exit_code == 130 and "restarted" not in stopped.metadata.suffix
    assert run(term, "echo alive $KEEP").text == "alive 2"


def test_long_output_truncated_and_full_output_saved(term: TerminalTool) -> None:
    obs = run(term, "seq 1 20000")
    full = "\n".join(str(i) for i in range(1, 20001))
    assert len(obs.text) == 30000
    name = f"terminal_output_{hashlib.sha256(full.encode()).hexdigest()[:8]}.txt"
    saved = Path(obs.full_output_save_dir) / name
    assert saved.read_text() == full
    assert str(saved) in obs.text
    assert obs.text.startswith("1\n2\n") and obs.text.endswith("19999\n20000")
    # the format-time file the LLM is pointed at exists too
    llm = obs.to_llm_content()[0].text
    assert len(llm) == 30000
    referenced = llm.split("saved to ")[1].split(" - ")[0]
    assert Path(referenced).exists()


def test_reset_and_empty_command_and_is_input(term: TerminalTool) -> None:
    run(term, "export X=1")
    obs = run(term, "echo ${X:-unset}", reset=True)
    assert obs.text == "unset" and obs.metadata.prefix.startswith("Terminal session has been reset")
    assert run(term, "").is_error
    assert run(term, "C-c", is_input=True).is_error


def test_exit_in_command_restarts(term: TerminalTool) -> None:
    obs = run(term, "exit 3")
    assert obs.exit_code == 3
    assert run(term, "echo back").text == "back"


def test_registry_resolves_by_name(tmp_path: Path) -> None:
    tools = resolve_tool("terminal", ToolContext(str(tmp_path)))
    assert [t.name for t in tools] == ["terminal"]
    assert tools[0].definition().kind == "TerminalTool"
    with pytest.raises(ValueError, match="unknown tool 'nope'"):
        resolve_tool("nope", ToolContext(str(tmp_path)))


def test_timeout_spares_background_jobs_of_earlier_commands(term: TerminalTool) -> None:
    run(term, "sleep 300 & echo $! > bg.pid")
    pid = int((Path(term.ctx.working_dir) / "bg.pid").read_text())
    try:
        obs = run(term, "sleep 30", timeout=1)
        assert obs.timeout
        assert run(term, "C-c", is_input=True).exit_code == 130
        assert Path(f"/proc/{pid}").exists()  # the earlier background job still runs
    finally:
        import os
        import signal

        os.kill(pid, signal.SIGKILL)


def test_endless_output_is_stopped(term: TerminalTool) -> None:
    obs = run(term, "yes trajkit")
    assert obs.timeout and obs.exit_code == -1
    assert "MiB of output" in obs.metadata.suffix
    assert len(obs.text) == 30000  # cut for the LLM, full output saved
    assert run(term, "echo still-here").text == "still-here"
