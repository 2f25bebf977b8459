"""Issue 14 items 2-5, the reading side: `validate` finds secrets by value (a registered secret
in clear under a plain MCP env name, an API key inside a URL, a JSON-escaped copy in tool-call
arguments, a key used as an object key) and `export` masks them in every column, decoded."""

from __future__ import annotations

import json
from pathlib import Path

from tests.security.conftest import invoke

TOKEN = "tok-REGISTERED-5a4b3c2d1e0f9999"


def _escaped(value: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in value)


def _plant(conv: Path) -> None:
    """What an older or foreign writer left: a clear registered secret, found again elsewhere."""
    state = json.loads((conv / "base_state.json").read_text())
    state["secret_registry"] = {
        "secret_sources": {"MY_TOKEN": {"kind": "StaticSecret", "value": TOKEN}}
    }
    state["agent"]["mcp_config"] = {
        "srv": {"command": "x", "env": {"MCP_PLAIN": TOKEN, "HOOK": "https://h/?sig=abcdef123456"}}
    }
    (conv / "base_state.json").write_text(json.dumps(state))
    action = next(
        p
        for p in sorted((conv / "events").glob("event-*.json"))
        if b'"ActionEvent"' in p.read_bytes()
    )
    data = json.loads(action.read_text())
    args = json.loads(data["tool_call"]["arguments"])
    args[TOKEN] = "as-a-key"
    text = json.dumps(args).replace(TOKEN, _escaped(TOKEN), 1)  # the key, JSON-escaped
    data["tool_call"]["arguments"] = text
    action.write_text(json.dumps(data))
    assert TOKEN.encode() not in action.read_bytes()  # only the escaped form is in the file


def test_validate_finds_secrets_by_value(conv: Path) -> None:
    _plant(conv)
    out = invoke("validate", str(conv)).output
    assert "/agent/mcp_config/srv/env/MCP_PLAIN: holds the value of secret 'MY_TOKEN'" in out
    assert "/agent/mcp_config/srv/env/HOOK: a URL query parameter" in out
    action_lines = [line for line in out.splitlines() if "event-" in line and "MY_TOKEN" in line]
    assert action_lines, out


def test_export_masks_decoded_forms_and_keys(tmp_path: Path, conv: Path) -> None:
    import pyarrow.parquet as pq

    _plant(conv)
    r = invoke("export", str(conv), "-o", str(tmp_path / "out"))
    assert r.exit_code == 0, r.output
    for table in (tmp_path / "out").rglob("*.parquet"):
        rows = json.dumps(pq.read_table(table).to_pylist(), default=str)
        assert TOKEN not in rows and _escaped(TOKEN) not in rows
        decoded = json.dumps(json.loads(rows), ensure_ascii=False)
        assert TOKEN not in decoded
        for row in pq.read_table(table).to_pylist():
            for value in row.values():
                if isinstance(value, str) and value.startswith("{"):
                    assert TOKEN not in json.dumps(json.loads(value), ensure_ascii=False)


def test_validate_finds_a_secret_query_with_no_clear_secret_to_look_for(conv: Path) -> None:
    """No registered secret or credential in clear (nothing to search for by value): a
    secret-looking URL query parameter is still found, under keys and in lists, by pointer."""
    from trajkit.validate import validate_conversation

    assert not [p for p in validate_conversation(conv).problems if p.code == "secret"]
    state = json.loads((conv / "base_state.json").read_text())
    state["agent"]["mcp_config"] = {
        "srv": {"command": "x", "args": ["--hook", "https://h/x?access_token=abcdef123456"]},
        "https://h/?api-key=zyxwvu987654": {"command": "y"},
    }
    state["stats"] = {"note": "https://h/?sig=notreported1"}  # the metrics are not searched
    (conv / "base_state.json").write_text(json.dumps(state))
    found = [
        (p.pointer, p.message) for p in validate_conversation(conv).problems if p.code == "secret"
    ]
    query = "a URL query parameter with a secret-looking name holds a value in clear"
    assert found == [
        ("/agent/mcp_config/srv/args/1", query),
        ("/agent/mcp_config/https:~1~1h~1?api-key=zyxwvu987654", query),
    ]
