"""Issue 14 "Done when": the API key and two registered secrets appear in every place of items
2-6 of a real conversation (loopback model over HTTP, real bash, a real stdio MCP server):
plain, JSON-escaped in tool-call arguments, as an object key, in MCP `env` values under plain
names, in URLs (an `env` value and `base_url?api-key=`), in an LLM error body, base64-encoded
in command output, in log records (file and stderr). Then every byte under the persistence
folder, the log file, stderr, the output of convert/view/inspect/validate/ls and the decoded
Parquet tables of export are searched for every form of each value: zero hits.

Positive controls prove each place was really exercised (the server saw the key and the
arguments; bash and the MCP server got the secret)."""

from __future__ import annotations

import base64
import json
import logging
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import SecretStr

from tests.support.llm_server import ScriptedLLMServer
from tests.support.mcp_server import server_config
from trajkit.cli import main
from trajkit.redact import encoded_forms
from trajkit.sdk import LLM, Agent, Conversation, Tool
from trajkit.sdk.conversation import ConversationRunError
from trajkit.sdk.logger import get_logger, setup_logging
from trajkit.sdk.secret.secrets import Cipher

API_KEY = "plainkey-NOT-A-PROVIDER-SHAPE-7c1d9e2f"  # a secret by value, whatever it looks like
TOKEN = "tok-REGISTERED-5a4b3c2d1e0f9999"
LATE = "late-SECRET-77aa88bb99ccdd"
SECRETS = (API_KEY, TOKEN, LATE)


def _escaped(value: str) -> str:
    """The value with every character JSON-escaped as \\uXXXX (what a model may write)."""
    return "".join(f"\\u{ord(c):04x}" for c in value)


def _forms(value: str) -> list[bytes]:
    forms = {f.encode() for f in encoded_forms(value)}
    forms.add(_escaped(value).encode())
    forms.add(value.encode("utf-16-le"))
    return sorted(forms)


def _hits(name: str, data: bytes | str) -> list[str]:
    raw = data.encode() if isinstance(data, str) else data
    return [f"{name}: {v[:12]}…" for v in SECRETS if any(f in raw for f in _forms(v))]


def _run(tmp_path: Path, server: ScriptedLLMServer, cipher: Cipher | None) -> Path:
    ws = tmp_path / "ws"
    escaped_args = '{"command": "echo ' + _escaped(TOKEN) + ' > escaped.txt"}'
    server.enqueue_tool_call("terminal", escaped_args, call_id="c_escaped")
    server.enqueue_tool_call(
        "terminal",
        {"command": f'printf "%s" "$MY_TOKEN" | base64; echo key={API_KEY}'},
        call_id="c_b64",
    )
    server.enqueue_tool_call(
        "echo",
        {"text": f"hello {LATE}", "env_var": "MCP_PLAIN", TOKEN: "as-a-key"},
        call_id="c_key",
    )
    server.enqueue_tool_call(
        "echo", {"text": "env", "env_var": "MCP_PLAIN"}, call_id="c_env", text=f"key {API_KEY}"
    )
    server.enqueue_text(
        f"Done: {TOKEN} {LATE} {API_KEY} " + base64.b64encode(LATE.encode()).decode()
    )
    server.enqueue_error(401, f"Incorrect API key provided: {API_KEY} (secret {TOKEN})")
    mcp = {
        "mcpServers": {
            "t": server_config(MCP_PLAIN=TOKEN, MCP_URL=f"https://x.example/hook?key={API_KEY}")
        }
    }
    llm = LLM(
        model="openai/gpt-4o",
        api_key=SecretStr(API_KEY),
        base_url=server.base_url,
        usage_id="agent",
        num_retries=1,
        retry_min_wait=0,
        retry_max_wait=0,
    )
    agent = Agent(llm=llm, tools=[Tool(name="terminal")], mcp_config=mcp)
    conv = Conversation(
        agent=agent,
        workspace=ws,
        persistence_dir=tmp_path / "persist",
        secrets={"MY_TOKEN": TOKEN},
        cipher=cipher,
    )
    try:
        conv.update_secrets({"LATE_TOKEN": LATE})
        conv.send_message(f"Use $MY_TOKEN; my key is {API_KEY}; also {LATE}.")
        conv.run()
        assert conv.state.execution_status == "finished", conv.state.execution_status
        conv.send_message("again")
        with pytest.raises(ConversationRunError) as raised:  # raised after persisting, as the SDK
            conv.run()  # the 401: an error event and a log record holding the body
        assert API_KEY not in str(raised.value) and TOKEN not in str(raised.value)
        assert conv.state.execution_status == "error"
        get_logger("trajkit.test").warning("a record with %s and %s", TOKEN, API_KEY)
    finally:
        conv.close()
    # A second conversation whose base_url carries the key in its query string.
    llm2 = LLM(
        model="openai/gpt-4o",
        api_key=SecretStr(API_KEY),
        base_url=f"http://127.0.0.1:9/v1?api-key={API_KEY}",
        usage_id="agent",
    )
    other = Conversation(
        agent=Agent(llm=llm2, tools=[]),
        workspace=ws,
        persistence_dir=tmp_path / "persist",
        cipher=cipher,
    )
    other.send_message("hi")  # events are written from the first message on (as the SDK)
    other.close()
    return tmp_path / "persist"


@pytest.mark.parametrize("cipher", [None, Cipher("scan-key")], ids=["masked", "cipher"])
def test_no_secret_form_anywhere(
    tmp_path: Path,
    cipher: Cipher | None,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    logs = tmp_path / "logs"
    setup_logging(log_to_file=True, log_dir=logs)
    try:
        with ScriptedLLMServer() as server:
            persist = _run(tmp_path, server, cipher)
            assert any(API_KEY in str(r.headers) for r in server.requests)
    finally:
        for h in logging.getLogger("trajkit").handlers:
            h.flush()
        stderr = capfd.readouterr().err
        setup_logging(log_to_file=False)
    # positive controls: each place was exercised
    assert (tmp_path / "ws" / "escaped.txt").read_text().strip() == TOKEN
    assert "Incorrect API key" in stderr or "Incorrect API key" in (logs / "app.log").read_text()
    log_text = (logs / "app.log").read_text()
    assert "a record with" in log_text

    leaks: list[str] = []
    for path in sorted(persist.rglob("*")) + sorted(scratch.rglob("*")) + [logs / "app.log"]:
        if path.is_file() and not path.is_symlink():
            leaks += _hits(str(path.relative_to(tmp_path)), path.read_bytes())
    leaks += _hits("stderr", stderr)

    runner = CliRunner()
    folders = sorted(p for p in persist.iterdir() if p.is_dir())
    env = {"TRAJKIT_SECRET_KEY": "scan-key"} if cipher else {}
    for args in (
        ["export", str(persist), "-o", str(tmp_path / "export")],
        ["export", str(persist), "-o", str(tmp_path / "export-raw"), "--no-redact"],
        *(["convert", str(f)] for f in folders),
        *(["convert", str(f), "--to", "responses"] for f in folders),
        *(["inspect", "--full", str(f)] for f in folders),
        ["ls", str(persist)],
        ["stats", str(persist)],
        ["validate", "--strict", str(persist)],
    ):
        result = runner.invoke(main, args, env=env)
        assert result.exit_code == 0, (args, result.output)
        leaks += _hits(" ".join(args[:1]), result.output)
    for i, f in enumerate(folders):
        out = tmp_path / f"view{i}.html"
        result = runner.invoke(main, ["view", str(f), "-o", str(out)])
        assert result.exit_code == 0, result.output
        leaks += _hits(out.name, out.read_bytes())
    import pyarrow.parquet as pq

    tables = list((tmp_path / "export").rglob("*.parquet")) + list(
        (tmp_path / "export-raw").rglob("*.parquet")
    )
    assert tables
    for table in tables:
        leaks += _hits(table.name, table.read_bytes())
        leaks += _hits(
            f"{table.name} (decoded)",
            json.dumps(pq.read_table(table).to_pylist(), default=str, ensure_ascii=False),
        )
    assert leaks == []
