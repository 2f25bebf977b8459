"""No secret value reaches disk in clear: runtime, export, convert, view, inspect, migrate.

A real conversation (loopback model, real bash) uses an API key and registered secrets, runs
commands that print them, gets a model reply and a tool call that hold one literally; then the
folder is exported (with and without --no-redact), converted, viewed and inspected. Every file
written anywhere under the test folder, except the agent's own workspace, is scanned for each
value, as text and in the forms a JSON or HTML writer could give it. Positive controls check the
secrets really were used (the server saw the key; bash printed the token into the workspace).
"""

from __future__ import annotations

import base64
import json
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import SecretStr

from tests.support.llm_server import ScriptedLLMServer
from trajkit.cli import main
from trajkit.sdk import LLM, Agent, Conversation, Tool
from trajkit.sdk.secret.secrets import Cipher

API_KEY = "sk-live-APIKEY-9f8e7d6c5b4a3210zz"
TOKEN = "tok-REGISTERED-5a4b3c2d1e0f9999"
LATE = "late-SECRET-77aa88bb99ccdd"
SECRETS = (API_KEY, TOKEN, LATE)


def _forms(value: str) -> list[bytes]:
    raw = value.encode()
    return [
        raw,
        json.dumps(value).encode()[1:-1],
        json.dumps(value, ensure_ascii=True).encode()[1:-1],
        base64.b64encode(raw)[:-2],
        value.encode("utf-16-le"),  # arrow/parquet never does this, a cheap paranoia check
    ]


def _scan(root: Path, *, skip: Path) -> list[str]:
    leaks = []
    for path in root.rglob("*"):
        if not path.is_file() or skip in path.parents or path.is_symlink():
            continue
        data = path.read_bytes()
        for value in SECRETS:
            if any(form in data for form in _forms(value)):
                leaks.append(f"{path.relative_to(root)}: {value[:12]}…")
    return leaks


def _run_conversation(tmp_path: Path, server: ScriptedLLMServer, cipher: Cipher | None) -> Path:
    ws = tmp_path / "ws"
    server.enqueue_tool_call("terminal", {"command": 'echo "token=$MY_TOKEN late=$LATE_TOKEN"'})
    server.enqueue_tool_call("terminal", {"command": 'printf "%s" "$MY_TOKEN" > token.txt'})
    server.enqueue_tool_call("terminal", {"command": f"echo {TOKEN} | wc -c"})  # literal value
    server.enqueue_tool_call(
        "file_editor", {"command": "view", "path": str(ws / "token.txt")}, text=f"I see {LATE}."
    )
    server.enqueue_text(f"The token was {TOKEN}, the late one {LATE}.")
    llm = LLM(
        model="openai/gpt-4o",
        api_key=SecretStr(API_KEY),
        base_url=server.base_url,
        usage_id="agent",
        num_retries=1,
    )
    agent = Agent(llm=llm, tools=[Tool(name="terminal"), Tool(name="file_editor")])
    conv = Conversation(
        agent=agent,
        workspace=ws,
        persistence_dir=tmp_path / "persist",
        secrets={"MY_TOKEN": TOKEN},
        cipher=cipher,
    )
    try:
        conv.update_secrets({"LATE_TOKEN": LATE})
        conv.send_message("Use $MY_TOKEN and $LATE_TOKEN.")
        conv.run()
        server.enqueue_tool_call("finish", {"message": "done"})
        conv.send_message("finish up")
        conv.run()
        assert conv.state.execution_status == "finished"
    finally:
        conv.close()
    return tmp_path / "persist" / conv.id.hex


@pytest.mark.parametrize("cipher", [None, Cipher("a-key-for-the-test")], ids=["masked", "cipher"])
def test_no_secret_in_clear_in_any_file_written(
    tmp_path: Path, cipher: Cipher | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "scratch"  # the terminal's temp files land here, and are scanned
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    with ScriptedLLMServer() as server:
        folder = _run_conversation(tmp_path, server, cipher)
        # positive controls: the key was sent, bash got the token
        assert any(API_KEY in str(r.headers) for r in server.requests)
        assert (tmp_path / "ws" / "token.txt").read_text() == TOKEN
        results = json.dumps(
            [m for b in server.bodies("chat") for m in b["messages"] if m["role"] == "tool"]
        )
    assert "token=" in results  # the echo ran, and the model got its output masked:
    assert TOKEN not in results and LATE not in results

    runner = CliRunner()
    outputs = []
    for args in (
        ["export", str(folder.parent), "-o", str(tmp_path / "export")],
        ["export", str(folder.parent), "-o", str(tmp_path / "export-raw"), "--no-redact"],
        ["convert", str(folder), "-o", str(tmp_path / "chat.json")],
        ["convert", str(folder), "--to", "responses", "-o", str(tmp_path / "resp.json")],
        ["view", str(folder), "-o", str(tmp_path / "view.html")],
        ["inspect", str(folder)],
        ["validate", "--strict", str(folder)],
    ):
        result = runner.invoke(main, args)
        assert result.exit_code == 0, (args, result.output)
        outputs.append(result.output)
    assert (tmp_path / "view.html").stat().st_size > 0
    assert any((tmp_path / "export").rglob("*.parquet"))

    assert _scan(tmp_path, skip=tmp_path / "ws") == []
    for value in SECRETS:
        assert all(value not in out for out in outputs)
