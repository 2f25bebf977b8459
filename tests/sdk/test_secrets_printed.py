"""Issue 27/30: no byte of the API key or a registered secret in what the runtime prints or
raises: stdout (the console visualizer), stderr (logs, the uncaught ``ConversationRunError``
with its chained provider error from a 401 body echoing the key), nor in any event field,
including the ``summary`` built from ``\\u``-escaped argument text. A real subprocess against
the loopback server, as a user runs a script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.llm_server import ScriptedLLMServer

KEY = "sk-proj-PRINTKEY-9d8c7b6a5f4e3d2c"
SECRET = "tok-PRINTSECRET-a1b2c3d4e5"
ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import os, sys
from pydantic import SecretStr
from trajkit.sdk import LLM, Agent, Conversation, Tool

llm = LLM(model="openai/gpt-4o", api_key=SecretStr(os.environ["KEY"]),
          base_url=os.environ["BASE_URL"], usage_id="agent", num_retries=0)
agent = Agent(llm=llm, tools=[Tool(name="terminal")])
conversation = Conversation(agent=agent, workspace=sys.argv[1], persistence_dir=sys.argv[2],
                            secrets={"MY_TOKEN": os.environ["SECRET"]})
conversation.send_message("Echo the token.")
conversation.run()
conversation.send_message("Again.")
conversation.run()  # the 401: raises ConversationRunError, uncaught, traceback on stderr
"""


def _escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


def _forms(value: str) -> list[bytes]:
    return [value.encode(), _escaped(value).encode(), _escaped(value).upper().encode()]


def test_no_key_or_secret_in_prints_raises_or_events(tmp_path: Path) -> None:
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    ws, persist = tmp_path / "ws", tmp_path / "persist"
    ws.mkdir()
    with ScriptedLLMServer() as server:
        # The model writes the secret \\u-escaped in its arguments, summary included.
        raw_args = (
            '{"command": "echo '
            + _escaped(SECRET)
            + '", "summary": "echo '
            + _escaped(SECRET)
            + '", "security_risk": "LOW"}'
        )
        server.enqueue_tool_call("terminal", raw_args, text=f"Using {SECRET} now")
        server.enqueue_text(f"The token was {SECRET}.")
        server.enqueue_error(401, f"Incorrect API key provided: {KEY}; token {SECRET}")
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "KEY": KEY,
            "SECRET": SECRET,
            "BASE_URL": server.base_url,
            "COLUMNS": "200",
        }
        proc = subprocess.run(
            [sys.executable, str(script), str(ws), str(persist)],
            env=env,
            capture_output=True,
            timeout=180,
        )
        assert any(KEY in str(r.headers) for r in server.requests)  # the key was used
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 1 and "ConversationRunError" in err, err[-2000:]
    assert "Incorrect API key" in err  # the provider's message is there, masked
    assert b"echo" in proc.stdout  # the visualizer printed the tool call
    events = b"".join(p.read_bytes() for p in persist.rglob("*") if p.is_file())
    assert b"TerminalObservation" in events
    leaks = [
        (where, form)
        for where, data in (("stdout", proc.stdout), ("stderr", proc.stderr), ("events", events))
        for value in (KEY, SECRET)
        for form in _forms(value)
        if form in data
    ]
    assert leaks == [], leaks
    summaries = [
        json.loads(p.read_text()).get("summary")
        for p in (persist.rglob("event-*.json"))
        if '"ActionEvent"' in p.read_text()
    ]
    assert summaries and all(s and "<secret-hidden>" in s or "****" in s for s in summaries)
