"""The scripted server speaks both wire formats and records what it received."""

import json
import urllib.error
import urllib.request

import pytest

from tests.support.llm_server import ScriptedLLMServer


def _post(url: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_chat_tool_calls_usage_and_recording(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue_tool_calls(
        [("terminal", {"command": "ls"}, "c1"), ("think", '{"thought": "x"')],
        text="thinking",
        reasoning_content="because",
        prompt_tokens=7,
        completion_tokens=3,
    )
    status, body = _post(llm_server.base_url + "/chat/completions", {"messages": [1]})
    assert status == 200
    msg = body["choices"][0]["message"]
    assert msg["content"] == "thinking"
    assert msg["reasoning_content"] == "because"
    assert [c["id"] for c in msg["tool_calls"]] == ["c1", "call_0_1"]
    assert msg["tool_calls"][1]["function"]["arguments"] == '{"thought": "x"'  # verbatim
    assert body["usage"]["total_tokens"] == 10
    assert llm_server.requests[0].body == {"messages": [1]}
    assert llm_server.requests[0].endpoint == "chat"


def test_responses_shape(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue_tool_call("finish", {"message": "ok"}, text="t", reasoning_content="r")
    status, body = _post(llm_server.base_url + "/responses", {"input": []})
    assert status == 200
    assert [o["type"] for o in body["output"]] == ["reasoning", "message", "function_call"]
    assert body["output"][2]["name"] == "finish"
    assert llm_server.bodies("responses") == [{"input": []}]


def test_errors_and_empty_queue(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue_error(429, times=2)
    assert _post(llm_server.base_url + "/chat/completions", {})[0] == 429
    status, body = _post(llm_server.base_url + "/chat/completions", {})
    assert status == 429 and body["error"]["type"] == "rate_limit_error"
    status, body = _post(llm_server.base_url + "/chat/completions", {})
    assert status == 400 and "no response queued" in body["error"]["message"]
    assert len(llm_server.requests) == 3


def test_default_reply_when_queue_empty() -> None:
    from tests.support.llm_server import ScriptedReply

    with ScriptedLLMServer(default=ScriptedReply(text="again")) as server:
        for _ in range(2):
            status, body = _post(server.base_url + "/chat/completions", {})
            assert body["choices"][0]["message"]["content"] == "again"


@pytest.mark.parametrize("status", [401, 500])
def test_error_status(llm_server: ScriptedLLMServer, status: int) -> None:
    llm_server.enqueue_error(status, "nope")
    code, body = _post(llm_server.base_url + "/chat/completions", {})
    assert code == status and body["error"]["message"] == "nope"
