"""The terminal is a real terminal session: a PTY, input to running programs, soft timeouts."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from trajkit.events import TerminalAction, TerminalObservation
from trajkit.sdk.tool import ToolContext
from trajkit.tools.terminal import TerminalTool
from trajkit.tools.terminal.session import clean_output, key_bytes

CONTINUED = "[Below is the output of the previous command.]\n"


@pytest.fixture
def term(tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    tool = TerminalTool(ToolContext(str(ws), str(tmp_path / "conv")), no_change_timeout_seconds=2)
    yield tool
    tool.close()


def run(tool: TerminalTool, command: str, **kw) -> TerminalObservation:
    return tool(TerminalAction(command=command, **kw))


def test_programs_see_a_terminal_without_colours_or_pagers(term: TerminalTool) -> None:
    obs = run(term, "tty")
    assert obs.text.startswith("/dev/pts/") and obs.exit_code == 0
    assert run(term, "test -t 0 && test -t 1 && test -t 2 && echo all-tty").text == "all-tty"
    assert run(term, "stty size").text == "200 256"
    assert run(term, 'echo "$TERM $PAGER $GIT_PAGER"').text == "xterm-256color cat cat"
    coloured = run(term, r"printf '\033[1;31mred\033[0m plain\n'; ls --color=always /")
    assert "\x1b" not in coloured.text and coloured.text.startswith("red plain\n")
    # a progress bar's carriage returns are applied as a screen shows them
    assert run(term, r"printf '10%%\r50%%\r100%%\n'").text == "100%"
    # ls on a terminal prints columns, not one name per line
    for name in ("alpha", "beta", "gamma"):
        (Path(term.ctx.working_dir) / name).touch()
    assert len(run(term, "ls").text.splitlines()) == 1


def test_python_input_gets_text_through_is_input(term: TerminalTool) -> None:
    obs = run(term, """python3 -c "print('got', input('name? '))" """)
    assert obs.exit_code == -1 and obs.text == "name?"
    assert "no new output after 2 seconds and is still running" in obs.metadata.suffix
    assert obs.metadata.working_dir is None  # nothing known while it runs, as the SDK
    answered = run(term, "trajkit", is_input=True)
    assert answered.text == "got trajkit" and answered.exit_code == 0
    assert answered.metadata.prefix == CONTINUED
    assert answered.metadata.working_dir == term.ctx.working_dir


def test_cat_echoes_input_and_ends_on_ctrl_d(term: TerminalTool) -> None:
    assert run(term, "cat").exit_code == -1
    first = run(term, "first line", is_input=True)
    assert first.text == "first line" and first.exit_code == -1
    second = run(term, "second line", is_input=True)
    assert second.text == "second line"
    done = run(term, "C-d", is_input=True)
    assert done.exit_code == 0 and "CTRL+D was sent" in done.metadata.suffix
    assert run(term, "echo after-cat").text == "after-cat"


def test_ctrl_c_stops_sleep_600_and_new_commands_wait_for_it(term: TerminalTool) -> None:
    obs = run(term, "sleep 600")
    assert obs.exit_code == -1  # returned while it runs (no time bound: the machine may be busy)
    refused = run(term, "echo too-early")
    assert refused.is_error and "too-early" not in refused.text
    assert 'Your command "echo too-early" was NOT executed' in refused.metadata.suffix
    stopped = run(term, "C-c", is_input=True)
    assert stopped.exit_code == 130 and not stopped.is_error
    assert stopped.metadata.suffix == (
        "\n[The command completed with exit code 130. CTRL+C was sent.]"
    )
    assert run(term, "pgrep -x -f 'sleep 600' || echo none").text == "none"


def test_ctrl_c_works_when_trajkit_was_started_with_sigint_ignored(tmp_path: Path) -> None:
    """A runtime started in the background of a script (`cmd &`, nohup, a CI runner) inherits
    SIGINT and SIGQUIT ignored; the shell it starts must still let C-c stop a command."""
    script = f"""
from trajkit.sdk.tool import ToolContext
from trajkit.events import TerminalAction
from trajkit.tools.terminal import TerminalTool
tool = TerminalTool(ToolContext({str(tmp_path)!r}, {str(tmp_path / "conv")!r}),
                    no_change_timeout_seconds=2)
tool(TerminalAction(command="sleep 600"))
print(tool(TerminalAction(command="C-c", is_input=True)).exit_code)
tool.close()
"""

    def ignore() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGQUIT, signal.SIG_IGN)

    done = subprocess.run(
        [sys.executable, "-c", script], preexec_fn=ignore, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["130"]


def test_ctrl_z_suspends_the_job(term: TerminalTool) -> None:
    run(term, "sleep 600")
    obs = run(term, "C-z", is_input=True)
    assert obs.exit_code == 148 and "Stopped" in obs.text
    assert "sleep 600" in run(term, "jobs").text
    run(term, "kill -9 %1")


def test_silent_command_returns_after_soft_timeout_and_can_be_waited_on(tmp_path: Path) -> None:
    tool = TerminalTool(ToolContext(str(tmp_path)), no_change_timeout_seconds=5)
    try:
        t0 = time.monotonic()
        obs = run(tool, "sleep 15; echo finished")
        waited = time.monotonic() - t0
        assert waited >= 4.5 and obs.exit_code == -1 and obs.text == ""  # before `echo finished`
        assert "no new output after 5 seconds" in obs.metadata.suffix
        again = run(tool, "")  # wait once more: still silent
        assert again.exit_code == -1 and again.text == ""
        done = run(tool, "", timeout=30)  # wait up to 30 s: it finishes first
        assert done.text == "finished" and done.exit_code == 0
        assert time.monotonic() - t0 >= 14
    finally:
        tool.close()


def test_hard_timeout_returns_while_output_keeps_coming(term: TerminalTool) -> None:
    obs = run(term, "for i in $(seq 1 30); do echo $i; sleep 0.1; done", timeout=1)
    assert obs.exit_code == -1 and "timed out after 1 seconds" in obs.metadata.suffix
    so_far = obs.text.split()  # how many lines came within 1 s depends on the machine's load
    assert so_far == [str(i) for i in range(1, len(so_far) + 1)] and len(so_far) < 30
    rest = run(term, "", timeout=120)
    assert rest.exit_code == 0 and rest.metadata.prefix == CONTINUED
    assert (obs.text + "\n" + rest.text).split() == [str(i) for i in range(1, 31)]


def test_background_server_survives_between_calls_until_reset(term: TerminalTool) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    Path(term.ctx.working_dir, "index.html").write_text("served by trajkit")
    started = run(term, f"python3 -m http.server {port} --bind 127.0.0.1 > srv.log 2>&1 &")
    assert started.exit_code == 0 and started.metadata.pid > 0
    pid = started.metadata.pid
    run(term, "echo another command")
    run(term, "cd / && ls > /dev/null")
    body = b""
    for _ in range(50):
        try:
            body = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
            break
        except OSError:
            time.sleep(0.2)
    assert b"served by trajkit" in body
    assert Path(f"/proc/{pid}").exists()
    run(term, "", reset=True)
    for _ in range(50):
        if not Path(f"/proc/{pid}").exists() or "Z" in _state(pid):
            break
        time.sleep(0.1)
    assert not Path(f"/proc/{pid}").exists() or "Z" in _state(pid)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def test_metadata_carries_interpreter_and_last_background_pid(term: TerminalTool) -> None:
    run(term, "mkdir -p venv/bin && ln -s /bin/true venv/bin/python")
    obs = run(term, 'export PATH="$PWD/venv/bin:$PATH"; sleep 5 & echo started')
    assert obs.metadata.py_interpreter_path == f"{term.ctx.working_dir}/venv/bin/python"
    assert obs.metadata.pid > 0 and Path(f"/proc/{obs.metadata.pid}").exists()
    assert f"[Python interpreter: {term.ctx.working_dir}/venv/bin/python]" in obs.llm_text()
    os.kill(obs.metadata.pid, 9)


def test_input_without_a_running_command_is_an_error(term: TerminalTool) -> None:
    obs = run(term, "hello", is_input=True)
    assert obs.is_error and obs.text == "No previous running command to interact with."
    assert run(term, "").text == "No previous running command to retrieve logs from."


def test_key_names_and_output_cleaning() -> None:
    assert key_bytes("C-c") == b"\x03" and key_bytes(" C-d ") == b"\x04"
    assert key_bytes("C-z") == b"\x1a" and key_bytes("UP") == b"\x1b[A"
    assert key_bytes("ENTER") == b"\n" and key_bytes("hello") is None
    assert clean_output(b"\x1b]0;title\x07a\x1b[2Kb\r\nc") == "ab\nc"
    assert clean_output("é\x1b(B".encode()) == "é"
