"""MCP: a real stdio server (tests/support/mcp_server.py) started, listed and called."""

from __future__ import annotations

import sys
import tempfile

import pytest

from tests.support.mcp_server import server_config
from trajkit.convert.tools import tools_to_chat
from trajkit.events import ImageContent, MCPToolAction, TextContent
from trajkit.sdk.mcp import (
    MCPError,
    MCPServerConnection,
    MCPTimeouts,
    MCPToolset,
    normalize_mcp_config,
    result_to_observation,
)


@pytest.fixture(scope="module")
def toolset():
    ts = MCPToolset({"mcpServers": {"test": server_config(TRAJKIT_MCP_VAR="from-env")}}).start()
    yield ts
    ts.close()


def _tool(ts, name):
    return next(t for t in ts.tools if t.name == name)


def test_normalize_accepts_both_forms():
    server = {"command": "uvx", "args": ["mcp-server-fetch"]}
    assert normalize_mcp_config({"mcpServers": {"fetch": server}}) == {"fetch": server}
    assert normalize_mcp_config({"fetch": server}) == {"fetch": server}
    assert normalize_mcp_config(None) == {}
    assert normalize_mcp_config({}) == {}


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"mcpServers": {"x": {"args": []}}}, "mcp_config/x: expected 'command'"),
        ({"x": {"command": "a", "args": "b"}}, "mcp_config/x/args: expected a list"),
        ({"x": {"command": "a", "env": {"K": 1}}}, "mcp_config/x/env"),
        ({"mcpServers": ["x"]}, "expected an object mapping names"),
    ],
)
def test_normalize_rejects_malformed(config, expected):
    with pytest.raises(MCPError, match=expected):
        normalize_mcp_config(config)


def test_lists_tools_with_definitions(toolset):
    assert toolset.errors == []
    names = [t.name for t in toolset.tools]
    assert names[:2] == ["add", "echo"]
    definition = _tool(toolset, "add").definition()
    dumped = definition.model_dump(mode="json", exclude_none=True)
    assert dumped["kind"] == "MCPToolDefinition"
    assert dumped["action_type"] == "MCPToolAction"
    assert dumped["observation_type"] == "MCPToolObservation"
    assert dumped["title"] == "add"
    assert dumped["mcp_tool"]["name"] == "add"
    assert dumped["mcp_tool"]["description"] == "Add two integers and return the sum."
    assert dumped["mcp_tool"]["inputSchema"]["required"] == ["a", "b"]


def test_llm_schema_matches_conversion_of_the_persisted_definition(toolset):
    """What the LLM is sent equals what `convert` rebuilds from the SystemPromptEvent entry."""
    for tool in toolset.tools:
        assert [tool.to_chat_tool()] == tools_to_chat([tool.definition()])
    params = _tool(toolset, "add").parameters_schema()
    assert list(params["properties"])[:2] == ["security_risk", "summary"]
    assert params["properties"]["a"] == {"type": "integer"}


def test_call_text_and_env(toolset):
    add = _tool(toolset, "add")
    action = add.action_from_arguments({"a": 2, "b": 40, "security_risk": "LOW", "summary": "s"})
    assert action == MCPToolAction(data={"a": 2, "b": 40})
    obs = add(action)
    assert obs.tool_name == "add"
    assert not obs.is_error
    assert [c.text for c in obs.content] == ["[Tool 'add' executed.]", "42"]
    echo = _tool(toolset, "echo")
    obs = echo(MCPToolAction(data={"text": "hi", "env_var": "TRAJKIT_MCP_VAR"}))
    assert obs.content[1] == TextContent(text="hi from-env")


def test_call_image_and_error(toolset):
    obs = _tool(toolset, "pixel")(MCPToolAction(data={}))
    assert isinstance(obs.content[1], ImageContent)
    assert obs.content[1].image_urls[0].startswith("data:image/png;base64,iVBOR")
    obs = _tool(toolset, "fail")(MCPToolAction(data={"reason": "bad input"}))
    assert obs.is_error
    assert obs.content[0].text == "[Tool 'fail' executed.]"
    assert "bad input" in obs.content[1].text


def test_call_timeout_is_bounded():
    ts = MCPToolset({"t": server_config()}, timeouts=MCPTimeouts(call=0.5)).start()
    try:
        obs = _tool(ts, "sleep")(MCPToolAction(data={"seconds": 5}))
        assert obs.is_error
        assert "did not answer within 0.5s" in obs.content[0].text
        # the session is still usable afterwards
        assert _tool(ts, "add")(MCPToolAction(data={"a": 1, "b": 1})).content[1].text == "2"
    finally:
        ts.close()


def test_server_that_dies_gives_error_observations_fast():
    ts = MCPToolset({"t": server_config()}).start()
    try:
        obs = _tool(ts, "crash")(MCPToolAction(data={}))
        assert obs.is_error
        assert "MCP server 't'" in obs.content[0].text
        later = _tool(ts, "add")(MCPToolAction(data={"a": 1, "b": 1}))
        assert later.is_error
    finally:
        ts.close()


def test_several_servers_prefix_their_tools_with_the_server_name():
    """As the SDK's composite client: ``<server>_<tool>`` offered, the server's own name called."""
    with MCPToolset({"a": server_config(), "b": server_config()}).start() as ts:
        names = [t.name for t in ts.tools]
        assert names[:2] == ["a_add", "a_echo"] and "b_add" in names
        add = _tool(ts, "b_add")
        assert add.definition().model_dump(mode="json")["mcp_tool"]["name"] == "b_add"
        obs = add(MCPToolAction(data={"a": 1, "b": 2}))
        assert [c.text for c in obs.content] == ["[Tool 'b_add' executed.]", "3"]
        assert obs.tool_name == "b_add"


def test_one_server_failing_offers_no_tool_and_leaves_no_file(tmp_path, monkeypatch):
    """The SDK starts the servers as one client: one that fails drops all their tools."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    config = {"test": server_config(), "fetch": {"command": "uvx-missing-xyz"}}
    ts = MCPToolset(config).start()
    assert ts.tools == [] and ts.connections == {}
    assert len(ts.errors) == 1 and "MCP server 'fetch'" in str(ts.errors[0])
    assert list(tmp_path.iterdir()) == []  # no stderr log left behind


def test_missing_command_is_a_clear_error_not_a_crash():
    ts = MCPToolset(
        {"mcpServers": {"fetch": {"command": "uvx-missing-xyz", "args": ["a"]}}}
    ).start()
    assert ts.tools == []
    assert len(ts.errors) == 1
    message = str(ts.errors[0])
    assert "MCP server 'fetch'" in message
    assert "uvx-missing-xyz a" in message
    assert "not found on PATH" in message


def test_uvx_hint_when_uv_is_missing(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    ts = MCPToolset(
        {"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}}}
    ).start()
    assert "install uv" in str(ts.errors[0])


def test_server_that_exits_at_start():
    code = "import sys; sys.stderr.write('boom: no config\\n'); sys.exit(2)"
    conn = MCPServerConnection("early", {"command": sys.executable, "args": ["-c", code]})
    with pytest.raises(MCPError) as info:
        conn.start()
    assert "MCP server 'early'" in str(info.value)
    assert "boom: no config" in str(info.value)


def test_server_that_never_answers_times_out():
    code = "import time; time.sleep(60)"
    conn = MCPServerConnection(
        "mute", {"command": sys.executable, "args": ["-c", code]}, timeouts=MCPTimeouts(start=1)
    )
    with pytest.raises(MCPError, match="did not start .* within 1s"):
        conn.start()


def test_result_to_observation_keeps_other_blocks_readable():
    obs = result_to_observation(
        "r", {"content": [{"type": "resource_link", "uri": "file:///x", "name": "x"}]}
    )
    assert obs.content[1].text.startswith('{"type": "resource_link"')
    assert not obs.is_error


# -- in a conversation ---------------------------------------------------------------------


def test_conversation_uses_mcp_tools_and_restores_them(llm_server, tmp_path):
    import json
    import uuid
    from pathlib import Path

    from tests.sdk.helpers import make_llm
    from tests.sdk.test_state_restore import strict_validate
    from trajkit.convert import convert_conversation
    from trajkit.events import (
        ActionEvent,
        ConversationErrorEvent,
        MCPToolObservation,
        ObservationEvent,
        SystemPromptEvent,
    )
    from trajkit.sdk import Agent, Conversation, Tool

    config = {"mcpServers": {"test": server_config(TRAJKIT_MCP_VAR="v1")}}
    cid = uuid.uuid4()

    def open_conv():
        agent = Agent(llm=make_llm(llm_server), tools=[Tool(name="terminal")], mcp_config=config)
        return Conversation(
            agent=agent,
            workspace=tmp_path / "ws",
            persistence_dir=tmp_path / "convs",
            conversation_id=cid,
        )

    llm_server.enqueue_tool_call("add", {"a": 2, "b": 3, "security_risk": "LOW", "summary": "s"})
    llm_server.enqueue_text("The sum is 5.")
    conv = open_conv()
    conv.send_message("add 2 and 3")
    conv.run()
    assert conv.state.execution_status == "finished"
    events = conv.state.events
    assert not [e for e in events if isinstance(e, ConversationErrorEvent)]
    action = next(e for e in events if isinstance(e, ActionEvent))
    assert action.action == MCPToolAction(data={"a": 2, "b": 3})
    obs = next(e for e in events if isinstance(e, ObservationEvent))
    assert isinstance(obs.observation, MCPToolObservation)
    assert obs.observation.tool_name == "add"
    assert [c.text for c in obs.observation.content] == ["[Tool 'add' executed.]", "5"]
    system = next(e for e in events if isinstance(e, SystemPromptEvent))
    mcp_defs = [t for t in system.tools if t.kind == "MCPToolDefinition"]
    assert {t.mcp_tool["name"] for t in mcp_defs} >= {"add", "echo"}

    folder = Path(conv.state.persistence_dir)
    sent = llm_server.bodies()[0]
    assert "add" in [t["function"]["name"] for t in sent["tools"]]
    # the conversion of the stored folder rebuilds exactly the tools and messages sent
    converted = convert_conversation(folder, to="chat")
    assert converted["tools"] == sent["tools"]
    assert converted["messages"][: len(sent["messages"])] == sent["messages"]
    state = json.loads((folder / "base_state.json").read_text())
    assert set(state["agent"]["mcp_config"]) == {"test"}  # the plain map form
    assert state["agent"]["mcp_config"]["test"]["env"] == {"TRAJKIT_MCP_VAR": "v1"}
    conv.close()
    del conv

    # restored: the servers are started again and the tools still answer
    restored = open_conv()
    llm_server.enqueue_tool_call("echo", {"text": "back", "env_var": "TRAJKIT_MCP_VAR"})
    llm_server.enqueue_text("ok")
    restored.send_message("echo")
    restored.run()
    last = [e for e in restored.state.events if isinstance(e, ObservationEvent)][-1]
    assert last.observation.content[1].text == "back v1"
    assert sum(isinstance(e, SystemPromptEvent) for e in restored.state.events) == 1
    restored.close()
    strict_validate(folder)


def test_secret_env_of_a_server_is_protected_on_disk(llm_server, tmp_path):
    import json

    from tests.sdk.helpers import make_llm
    from trajkit.sdk import Agent, Cipher, Conversation
    from trajkit.sdk.secret.secrets import MASK

    secret = "mcp-secret-value-123456"
    config = {"mcpServers": {"test": server_config(API_TOKEN=secret, TRAJKIT_MCP_VAR="v1")}}
    agent = Agent(llm=make_llm(llm_server), mcp_config=config)
    assert agent.mcp_config["test"]["env"]["API_TOKEN"] == secret  # in memory: usable

    masked = json.loads(agent.model_dump_json())["mcp_config"]["test"]["env"]
    assert masked == {"API_TOKEN": MASK, "TRAJKIT_MCP_VAR": "v1"}
    assert Agent.model_validate({**json.loads(agent.model_dump_json())}).mcp_config["test"][
        "env"
    ] == {"TRAJKIT_MCP_VAR": "v1"}  # a masked value is dropped, not passed as "**********"

    cipher = Cipher("k")
    data = json.loads(agent.model_dump_json(context={"cipher": cipher}))
    assert data["mcp_config"]["test"]["env"]["API_TOKEN"].startswith("gAAAAA")
    back = Agent.model_validate(data, context={"cipher": cipher})
    assert back.mcp_config == agent.mcp_config

    conv = Conversation(agent=agent, workspace=tmp_path / "ws", persistence_dir=tmp_path / "c")
    tool = conv.tools["echo"]
    obs = tool(tool.action_from_arguments({"text": "env", "env_var": "API_TOKEN"}))
    assert obs.content[1].text == f"env {secret}"  # the server got the real value
    conv.close()
    for path in (tmp_path / "c").rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


def test_server_environment_passes_network_settings_not_secrets(monkeypatch):
    from trajkit.sdk.mcp import server_environment

    monkeypatch.setenv("SSL_CERT_FILE", "/etc/ssl/certs/ca.pem")
    monkeypatch.setenv("UV_CACHE_DIR", "/tmp/uv-cache")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")
    monkeypatch.setenv("LLM_API_KEY", "sk-do-not-pass")
    monkeypatch.setenv("UV_INDEX_TOKEN", "tok-do-not-pass")
    env = server_environment({"EXTRA": "1"})
    assert env["SSL_CERT_FILE"] == "/etc/ssl/certs/ca.pem"
    assert env["UV_CACHE_DIR"] == "/tmp/uv-cache"
    assert env["HTTPS_PROXY"] == "http://proxy:3128"
    assert env["EXTRA"] == "1"
    assert "LLM_API_KEY" not in env and "UV_INDEX_TOKEN" not in env


def test_server_gets_no_secret_from_the_parent_environment(monkeypatch):
    monkeypatch.setenv("LLM_API_KEY", "sk-parent-secret")
    with MCPToolset({"t": server_config()}).start() as ts:
        echo = _tool(ts, "echo")
        obs = echo(MCPToolAction(data={"text": "k", "env_var": "LLM_API_KEY"}))
        assert obs.content[1].text == "k <unset>"


def test_mcp_server_models_start_real_servers_and_persist_the_plain_map(llm_server, tmp_path):
    import json

    from pydantic import ValidationError

    from tests.sdk.helpers import make_llm
    from trajkit.sdk import Agent, Conversation
    from trajkit.sdk.mcp import MCPServer

    entry = server_config()
    servers = {
        "test": MCPServer(
            command=entry["command"], args=entry["args"], env={"TRAJKIT_MCP_VAR": "m"}
        ),
        "off": MCPServer(command="never-started-xyz", enabled=False),
    }
    assert "'m'" not in repr(servers["test"])  # env values are secrets
    agent = Agent(llm=make_llm(llm_server), mcp_config=servers)
    assert agent.mcp_config["test"] == {**entry, "env": {"TRAJKIT_MCP_VAR": "m"}, "enabled": True}
    conv = Conversation(agent=agent, workspace=tmp_path / "ws", persistence_dir=tmp_path / "c")
    tool = conv.tools["echo"]
    obs = tool(tool.action_from_arguments({"text": "hi", "env_var": "TRAJKIT_MCP_VAR"}))
    assert obs.content[1].text == "hi m"
    assert not [e for e in conv.state.events if type(e).__name__ == "ConversationErrorEvent"]
    conv.close()
    state = json.loads(next((tmp_path / "c").glob("*/base_state.json")).read_text())
    assert state["agent"]["mcp_config"]["off"] == {"command": "never-started-xyz", "enabled": False}
    with pytest.raises(ValidationError, match="needs 'command'"):
        MCPServer(args=["x"])
    with pytest.raises(ValidationError, match="needs 'url'"):
        MCPServer(transport="sse", command="x")


def test_conversation_filters_mcp_tools_and_logs_a_failed_server(llm_server, tmp_path, caplog):
    """``filter_tools_regex`` applies to MCP tools (as in example 07); a server that cannot
    start is logged and the conversation goes on with no MCP tool.
    """
    from tests.sdk.helpers import make_llm
    from trajkit.sdk import Agent, Conversation, Tool

    llm = make_llm(llm_server)
    servers = {"keep": server_config(), "drop": server_config()}
    agent = Agent(llm=llm, mcp_config=servers, filter_tools_regex="^(?!drop)|^drop_add$")
    with Conversation(agent=agent, workspace=tmp_path / "a") as conv:
        mcp = sorted(n for n in conv.tools if n.startswith(("keep_", "drop_")))
        assert "keep_echo" in mcp and "drop_add" in mcp and "drop_echo" not in mcp
    servers["fetch"] = {"command": "uvx-missing-xyz"}
    agent = Agent(llm=llm, tools=[Tool(name="terminal")], mcp_config=servers)
    with Conversation(agent=agent, workspace=tmp_path / "b") as conv:
        llm_server.enqueue_text("ok")
        conv.send_message("hi")
        assert sorted(conv.tools) == ["finish", "terminal", "think"]
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("'fetch'" in m and "without the tools of drop, fetch, keep" in m for m in warned)


# -- remote servers (streamable HTTP, SSE) on 127.0.0.1 ------------------------------------


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
def test_remote_server_by_url(transport):
    """The transport follows the URL as in the SDK (``/sse`` is SSE, else streamable HTTP)."""
    from tests.support.mcp_server import http_server

    with http_server(transport) as url, MCPToolset({"remote": {"url": url}}).start() as ts:
        assert ts.errors == []
        assert [t.name for t in ts.tools][:2] == ["add", "echo"]
        obs = _tool(ts, "add")(MCPToolAction(data={"a": 20, "b": 22}))
        assert [c.text for c in obs.content] == ["[Tool 'add' executed.]", "42"]


@pytest.mark.parametrize(
    "how",
    [
        {"headers": {"Authorization": "Bearer remote-secret-7788"}},
        {"auth": {"strategy": "bearer", "value": "remote-secret-7788"}},
        {"auth": "remote-secret-7788"},
    ],
)
def test_remote_server_credentials_are_sent_and_kept_secret(llm_server, tmp_path, how):
    import json

    from tests.sdk.helpers import make_llm
    from trajkit.sdk import Agent, Conversation
    from trajkit.sdk.mcp import MCPServer

    with http_server_guarded("Bearer remote-secret-7788") as url:
        refused = MCPToolset({"remote": {"url": url, "transport": "http"}}).start()
        assert refused.tools == []
        assert "(connect and initialize): MCPError: Server returned an error" in str(
            refused.errors[0]
        )
        server = MCPServer(url=url, transport="http", **how)
        assert "remote-secret-7788" not in repr(server)
        agent = Agent(llm=make_llm(llm_server), mcp_config={"remote": server})
        conv = Conversation(agent=agent, workspace=tmp_path / "w", persistence_dir=tmp_path / "c")
        tool = conv.tools["echo"]
        assert tool(tool.action_from_arguments({"text": "in"})).content[1].text == "in"
        conv.close()
    state = (next((tmp_path / "c").glob("*/base_state.json"))).read_text()
    assert json.loads(state)["agent"]["mcp_config"]["remote"]["url"] == url
    assert "remote-secret-7788" not in state


def test_auth_strategies_as_headers():
    from trajkit.sdk.mcp import auth_headers

    assert auth_headers({"strategy": "api_key", "value": "k", "header_name": "X-Key"}) == {
        "X-Key": "k"
    }
    assert auth_headers({"strategy": "basic", "username": "u", "password": "p"}) == {
        "Authorization": "Basic dTpw"
    }
    assert auth_headers({"strategy": "header", "headers": {"A": "b"}}) == {"A": "b"}
    assert auth_headers(None) == {}
    with pytest.raises(MCPError, match="OAuth sign-in is not supported"):
        auth_headers("oauth")
    with pytest.raises(MCPError, match="'oauth2' is not supported"):
        auth_headers({"strategy": "oauth2"})


def http_server_guarded(token):
    from tests.support.mcp_server import http_server

    return http_server("streamable-http", header=f"Authorization={token}")


def test_unreachable_url_is_a_clear_error():
    ts = MCPToolset({"gone": {"url": "http://127.0.0.1:9/mcp"}}, timeouts=MCPTimeouts(start=5))
    ts.start()
    assert ts.tools == []
    assert "MCP server 'gone' (`http://127.0.0.1:9/mcp`) failed to start (connect" in str(
        ts.errors[0]
    )


def test_a_url_with_credentials_is_masked_in_messages():
    url = "http://me:pw-secret-991@127.0.0.1:9/mcp?api_key=key-secret-992&x=1"
    ts = MCPToolset({"gone": {"url": url}}, timeouts=MCPTimeouts(start=5)).start()
    message = str(ts.errors[0])
    assert "127.0.0.1:9/mcp" in message and "x=1" in message
    assert "secret-99" not in message
