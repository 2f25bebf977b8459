"""The SDK-style examples (examples/sdk/) run against the loopback server and print what they
claim; each is a script in the style of the SDK's standalone examples with trajkit imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.llm_server import ScriptedLLMServer, ScriptedReply, ScriptedToolCall
from tests.support.mcp_server import SCRIPT as MCP_SCRIPT

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "sdk"


def _call(name: str, args: dict[str, object], **kw: object) -> ScriptedReply:
    return ScriptedReply(tool_calls=[ScriptedToolCall(name, args)], **kw)  # type: ignore[arg-type]


@dataclass
class Case:
    script: str
    replies: list[ScriptedReply] | Callable[[Path], list[ScriptedReply]]
    """The model's answers, or a function of the script's working folder giving them."""
    expect: list[str]
    model: str = "openai/gpt-4o"
    check: Callable[[Path], None] | None = None
    env: dict[str, str] = field(default_factory=dict)


def _facts_written(cwd: Path) -> None:
    assert (cwd / "FACTS.txt").read_text().strip() == "a fact"


def _no_secret_on_disk(cwd: Path) -> None:
    data = b"".join(p.read_bytes() for p in (cwd / ".conversations").rglob("*") if p.is_file())
    assert data and b"token-value-42" not in data


def _ok_kept(cwd: Path) -> None:
    assert (cwd / "ok.txt").exists()  # the approved action ran, the rejected one did not


def _text(t: str, **kw: object) -> ScriptedReply:
    return ScriptedReply(text=t, **kw)  # type: ignore[arg-type]


def _three_files_at_once(cwd: Path) -> list[ScriptedReply]:
    create = [
        ScriptedToolCall(
            "file_editor", {"command": "create", "path": f"{cwd}/{n}.txt", "file_text": f"{n}\n"}
        )
        for n in "abc"
    ]
    return [
        ScriptedReply(tool_calls=create),
        _call("terminal", {"command": "cat ?.txt | wc -l"}),
        _text("3 lines."),
    ]


def _classes_listed(cwd: Path) -> None:
    assert not (cwd / "CLASSES.txt").exists()  # written, then deleted as asked
    assert (cwd / "project" / "shapes.py").exists()


CASES = [
    Case("01_hello_world.py", [_call("terminal", {"command": "echo 'a fact' > FACTS.txt"}),
         _text("Done.")], ["All done!", "EXAMPLE_COST: "], check=_facts_written),
    Case("02_custom_tools.py",
         [_call("find_text", {"pattern": r"^class (\w+)", "path": "project", "include": "*.py"}),
          _call("terminal", {"command": "printf 'Circle\\nSquare\\n' > CLASSES.txt"}),
          _text("Written."), _call("terminal", {"command": "rm CLASSES.txt"}), _text("Deleted.")],
         ["Tools offered: ['file_editor', 'find_text', 'finish', 'terminal', 'think']",
          "The model read: 2 matching line(s) in 1 file(s):",
          "CLASSES.txt: ['Circle', 'Square']", "CLASSES.txt still there: False"],
         check=_classes_listed),
    Case("03_activate_skill.py", [_text("magic")], ["Activated: ['flarglebargle']"]),
    Case("04_confirmation_mode.py", [_call("terminal", {"command": "touch ok.txt"}),
         _call("terminal", {"command": "rm -f ./*"}), _text("Understood.")],
         ["Status: finished"], check=_ok_kept),
    Case("07_mcp_integration.py", [_call("add", {"a": 2, "b": 3}), _text("5")],
         ["'add'", "Status: finished"],
         env={"MCP_SERVER_COMMAND": json.dumps([sys.executable, MCP_SCRIPT])}),
    # The command takes a second so that pause() lands while the step runs, however fast the machine.
    Case("09_pause.py", [_call("terminal", {"command": "sleep 1 && echo 1"}), _text("3")],
         ["Status after pause: paused", "Status after resume: finished"]),
    Case("11_async.py", [_text("hello 0"), _text("hello 1")],
         ["Statuses: ['finished', 'finished']", "Events seen by the async callback: "]),
    Case("12_custom_secrets.py", [_call("terminal", {"command": "echo ${#MY_TOKEN}"}),
         _text("It is set.")], ["Secrets known: ['MY_TOKEN']"], check=_no_secret_on_disk),
    Case("13_llm_metrics.py", [_text("hi")],
         ["Prompt tokens: 100, completion tokens: 20", "Usage ids: ['agent']"]),
    Case("14_context_condenser.py",
         [*(_call("terminal", {"command": f"echo step{i}"}) for i in range(5)),
          _text("SUMMARY: five echoes."), _text("Stopped.")],
         ["Condensations: 1", "Usage ids: ['agent', 'condenser']"]),
    Case("15_condense_command.py", [_text("Planets..."), _text("SUMMARY"), _text("Moons...")],
         ["Condensation requested: True, done: True"]),
    Case("17_image_input.py", [_text("Red.")], ["Status: finished"]),
    Case("18_send_message_while_processing.py",
         [_call("terminal", {"command": "sleep 1; echo first"}), _text("second")],
         ["Messages: 3; status: finished"]),
    Case("23_responses_reasoning.py", [_text("4", reasoning_content="2 plus 2")],
         ["Uses the Responses API: True", "Status: finished"], model="openai/gpt-5-mini"),
    Case("26_custom_visualizer.py", [_text("Hello!")],
         ["[EVENT] SystemPromptEvent", "[EVENT] MessageEvent", "Task completed!"]),
    Case("28_ask_agent.py", [_text("Noted."), _text("7"), _text("The number seven")],
         ["Answer: 7", "Events added by the question: 0", "Title: The number seven"]),
    Case("45_parallel_tool_calls.py", _three_files_at_once,
         ["Parallel batches: 1, calls in the first: 3", "Results in call order: True",
          "Files: ['a.txt', 'b.txt', 'c.txt']", "Status: finished"]),
    Case("48_conversation_fork.py", [_text("Tom"), _text("Rex")],
         ["Source events: 3, fork events: 5", "Different ids: True"]),
    # The command takes 2 s, so interrupt() lands while the step runs however fast the machine.
    Case("50_interrupt.py", [_call("terminal", {"command": "sleep 2 && echo working"}, delay=0.3)],
         ["Status after interrupt: paused"]),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c.script for c in CASES])
def test_sdk_example_runs(case: Case, tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        replies = case.replies(tmp_path) if callable(case.replies) else case.replies
        server.enqueue(*replies)
        env = dict(
            os.environ,
            LLM_BASE_URL=server.base_url,
            LLM_API_KEY="dummy-key",
            LLM_MODEL=case.model,
            PYTHONPATH=str(ROOT),
            **case.env,
        )
        result = subprocess.run(
            [sys.executable, str(EXAMPLES / case.script)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert result.returncode == 0, result.stderr[-3000:]
        assert server.pending == 0, f"{server.pending} scripted replies unused"
    for line in case.expect:
        assert line in result.stdout, f"{line!r} not in:\n{result.stdout[-2000:]}"
    if case.check is not None:
        case.check(tmp_path)
