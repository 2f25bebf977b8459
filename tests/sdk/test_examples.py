"""The reference document's two examples run unchanged (imports renamed) against the loopback
server and print what the document says they print."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.llm_server import ScriptedLLMServer
from trajkit.store import open_conversation
from trajkit.validate import validate_conversation

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
_PANEL = ("╭", "│", "╰")
"""Lines of the default visualizer's panels."""
SEED_COST_RE = re.compile(r"^EXAMPLE_COST: (\d+(\.\d+)?(e-?\d+)?)$", re.M)


def _run(example: str, server: ScriptedLLMServer, cwd: Path) -> subprocess.CompletedProcess[str]:
    # The first example configures `uvx mcp-server-fetch`, which would download a package:
    # a stub `uvx` that fails at once keeps the test offline wherever uv is installed.
    stub = cwd.parent / "stub-bin"
    stub.mkdir(exist_ok=True)
    (stub / "uvx").write_text("#!/bin/sh\necho 'uvx: offline test stub' >&2\nexit 1\n")
    (stub / "uvx").chmod(0o755)
    env = dict(
        os.environ,
        LLM_BASE_URL=server.base_url,
        LLM_API_KEY="dummy-key",
        LLM_MODEL="openai/gpt-4o",
        PYTHONPATH=str(ROOT),
        PATH=f"{stub}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    return subprocess.run(
        [sys.executable, str(EXAMPLES / example)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def _only_conversation(root: Path) -> Path:
    folders = [p for p in root.iterdir() if p.is_dir() and len(p.name) == 32]
    assert len(folders) == 1, folders
    return folders[0]


def _assert_valid(folder: Path) -> None:
    report = validate_conversation(folder)
    errors = [p for p in report.problems if str(p.severity).endswith("error")]
    assert not errors, errors


def test_examples_are_the_seed_with_trajkit_imports() -> None:
    for name in ("10_persistence.py", "36_event_json_to_openai_messages.py"):
        text = (EXAMPLES / name).read_text()
        assert "faheemcode" not in text and "from trajkit.sdk import" in text


def test_persistence_example(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.enqueue_tool_call(
            "terminal", {"command": "printf 'one\\ntwo\\nthree\\n' > FACTS.txt"}
        )
        server.enqueue_tool_call("finish", {"message": "Wrote 3 facts to FACTS.txt."})
        server.enqueue_tool_call("terminal", {"command": "rm FACTS.txt"})
        server.enqueue_tool_call("finish", {"message": "Deleted FACTS.txt."})
        server.enqueue_tool_call("finish", {"message": "I created FACTS.txt, then deleted it."})
        result = _run("10_persistence.py", server, tmp_path)
        assert result.returncode == 0, result.stderr[-4000:]
        assert server.pending == 0 and len(server.requests) == 5
        bodies = server.bodies("chat")

    out = result.stdout
    # the default visualizer prints a panel per event (as the SDK's does); the script's own
    # lines are the rest
    panels = [ln for ln in out.splitlines() if ln.startswith(_PANEL)]
    assert any(ln.startswith("╭─ Message from User") for ln in panels)
    lines = [ln for ln in out.splitlines() if not ln.startswith(_PANEL)]
    assert lines[0] == "=" * 100
    assert lines[1] == "Conversation finished. Got the following LLM messages:"
    messages = [ln for ln in lines if ln.startswith("Message ")]
    # system, user, (assistant call, tool result) x2, user, (call, result) x2 = 11 messages
    assert [m.split(":")[0] for m in messages] == [f"Message {i}" for i in range(11)]
    assert all(len(m) <= len(f"Message {i}: ") + 200 for i, m in enumerate(messages))
    assert "role='system'" in messages[0] and "role='user'" in messages[1]
    assert "role='tool'" in messages[3] and "role='assistant'" in messages[4]
    tail = lines[len(messages) + 2 :]
    assert tail[:3] == [
        "Serializing conversation...",
        "Deserializing conversation...",
        "Sending message to deserialized conversation...",
    ]
    cost = float(SEED_COST_RE.search(out).group(1))  # type: ignore[union-attr]
    # gpt-4o: $2.50 / M input, $10 / M output; the server reports 100 + 20 tokens per call
    assert abs(cost - 5 * (100 * 2.5e-6 + 20 * 1e-5)) < 1e-9

    # the task really ran in the workspace, and the restored run saw the whole history
    assert not (tmp_path / "FACTS.txt").exists()
    last = bodies[-1]["messages"]
    assert len(last) == 12 and last[: len(bodies[-2]["messages"])] == bodies[-2]["messages"]
    assert last[-3]["tool_calls"][0]["function"]["name"] == "finish"
    assert last[-2]["content"] == [{"type": "text", "text": "Deleted FACTS.txt."}]
    assert last[-1] == {
        "content": [
            {"type": "text", "text": "Hey what did you create? Return an agent finish action"}
        ],
        "role": "user",
    }

    folder = _only_conversation(tmp_path / ".conversations")
    _assert_valid(folder)
    state = json.loads((folder / "base_state.json").read_text())
    assert state["agent"]["llm"]["api_key"] == "**********"
    assert state["agent"]["mcp_config"] == {
        "fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}
    }
    assert state["execution_status"] == "finished"
    events = list(open_conversation(folder).iter_events())
    kinds = [e.kind for e in events]
    assert kinds.count("MessageEvent") == 3 and kinds[0] == "SystemPromptEvent"
    # the MCP server could not start: logged (not recorded, as the SDK), the run went on
    assert not [e for e in events if getattr(e, "code", None) == "MCPServerError"]
    assert b"dummy-key" not in b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


def test_event_json_to_openai_messages_example(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.enqueue_tool_call("terminal", {"command": "pwd > tool_output.txt"})
        server.enqueue_text("Done: the working directory is in tool_output.txt.")
        server.enqueue_text("I ran pwd and saved its output to tool_output.txt.")
        result = _run("36_event_json_to_openai_messages.py", server, tmp_path)
        assert result.returncode == 0, result.stderr[-4000:]
        bodies = server.bodies("chat")

    own = "\n".join(ln for ln in result.stdout.splitlines() if not ln.startswith(_PANEL))
    assert "╭─ Agent Action" in result.stdout  # the default visualizer's panels
    assert own.strip() == f"EXAMPLE_COST: {3 * (100 * 2.5e-6 + 20 * 1e-5):.5f}".rstrip("0")
    assert (tmp_path / "tool_output.txt").read_text().strip() == str(tmp_path)
    logs = list((tmp_path / ".conversations" / "logs").rglob("*.log"))
    assert len(logs) == 1
    records = [json.loads(line) for line in logs[0].read_text().splitlines()]
    chat_logs = [r for r in records if r["message"].startswith("Chat Completions messages:\n")]
    assert len(chat_logs) == 1
    logged = json.loads(chat_logs[0]["message"].split("\n", 1)[1])
    # the example's own conversion of the files equals what the agent sent (+ the final reply)
    assert logged[:-1] == bodies[-1]["messages"]
    assert logged[-1]["role"] == "assistant"
    _assert_valid(_only_conversation(tmp_path / ".conversations"))


def test_scripted_demo(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "scripted_demo.py"), str(out)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    assert "equal to the 5 requests the server received: True" in result.stdout
    assert "validate: 0 errors" in result.stdout
    _assert_valid(_only_conversation(out))


def test_scripted_demo_prints_a_short_account_of_each_step(tmp_path: Path) -> None:
    """`make demo`'s runtime step: one line per step under readable headers, no system prompt."""
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "scripted_demo.py"), str(tmp_path / "demo")],
        capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    lines = result.stdout.splitlines()
    # The last line names the conversation folder, as long as the temp path pytest chose.
    text_lines = [line.replace(str(tmp_path), "<tmp>") for line in lines]
    assert len(lines) < 30 and max(map(len, text_lines)) <= 120, result.stdout
    assert "<ROLE>" not in result.stdout and "System Prompt" not in result.stdout
    steps = [
        "run 1: a new conversation",
        "   user says: Create notes.txt with two lines and count them.",
        "   agent calls file_editor(command='create', path='ws/notes.txt', file_text='alpha\\nbeta\\n')",
        "   agent calls terminal(command='wc -l notes.txt')",
        "   terminal returns: 2 notes.txt (+4 lines)",
        "   agent calls finish(message='Created notes.txt with two lines.')",
        "   -> finished, 8 events saved",
        "run 2: the same conversation restored from disk (8 events), continued",
        "   user says: Now change beta to BETA.",
        "   agent says: Changed beta to BETA.",
        "   -> finished, 12 events saved",
        "checks:",
    ]
    assert [line for line in lines if line in steps] == steps, result.stdout
