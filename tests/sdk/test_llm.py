"""LLM: the SDK's persisted shape, secret masking, both APIs over real HTTP, retries, metrics."""

from __future__ import annotations

import json
import sys

import pytest
from pydantic import SecretStr

from tests.sdk.helpers import make_llm
from tests.support import fixtures as fx
from tests.support.llm_server import ScriptedLLMServer
from trajkit.events import Message, TextContent
from trajkit.sdk import LLM, LLMError


def _user(text: str = "hi") -> list[Message]:
    return [Message(role="user", content=[TextContent(text=text)])]


def test_dump_matches_what_the_sdk_persists() -> None:
    sdk = json.loads((fx.sdk_conversation("b_terminal") / "base_state.json").read_text())
    sdk_llm = sdk["agent"]["llm"]
    llm = LLM(
        model="openai/gpt-4o",
        api_key=SecretStr("sk-real"),
        base_url=sdk_llm["base_url"],
        usage_id="agent",
    )
    dumped = json.loads(llm.model_dump_json(exclude_none=True))
    assert dumped == sdk_llm
    assert list(dumped) == list(sdk_llm)  # same key order


def test_secret_masked_and_masked_value_loads_as_none() -> None:
    llm = LLM(model="openai/gpt-4o", api_key=SecretStr("sk-real"))
    assert '"api_key":"**********"' in llm.model_dump_json()
    assert "sk-real" not in llm.model_dump_json()
    assert llm.model_dump(context={"expose_secrets": True})["api_key"] == "sk-real"
    assert LLM.model_validate(json.loads(llm.model_dump_json())).api_key is None
    assert LLM(model="x", api_key=SecretStr("  ")).api_key is None


def test_uses_responses_api_rules() -> None:
    assert LLM(model="openai/gpt-4o").uses_responses_api() is False
    assert LLM(model="openai/gpt-5-mini").uses_responses_api() is True
    assert LLM(model="openai/gpt-4o", api_mode="responses").uses_responses_api() is True
    overrides = {"supports_responses_api": True}
    assert LLM(model="openai/gpt-4o", capability_overrides=overrides).uses_responses_api()


def test_chat_call_parses_tool_calls_reasoning_and_records_metrics(
    llm_server: ScriptedLLMServer,
) -> None:
    llm_server.enqueue_tool_calls(
        [("terminal", {"command": "ls"}), ("think", '{"thought": ')],
        text="hm",
        reasoning_content="because",
        prompt_tokens=6538,
        completion_tokens=66,
        cached_tokens=100,
        reasoning_tokens=5,
    )
    llm = make_llm(llm_server)
    r = llm.completion(_user())
    assert r.id == "chatcmpl-scripted-0"
    assert r.message.content == [TextContent(text="hm")]
    assert r.message.reasoning_content == "because"
    calls = r.message.tool_calls or []
    assert [(c.name, c.arguments, c.origin) for c in calls] == [
        ("terminal", '{"command": "ls"}', "completion"),
        ("think", '{"thought": ', "completion"),
    ]
    m = llm.metrics
    usage = m.token_usages[0]
    assert (usage.prompt_tokens, usage.completion_tokens) == (6538, 66)
    assert (usage.cache_read_tokens, usage.reasoning_tokens) == (100, 5)
    assert usage.context_window == 128000 and usage.per_turn_token == 6604
    assert usage.response_id == "chatcmpl-scripted-0"
    assert m.accumulated_cost > 0 and len(m.costs) == 1
    assert m.response_latencies[0].response_id == "chatcmpl-scripted-0"
    body = llm_server.requests[0].body
    assert body["model"] == "gpt-4o"
    assert body["messages"] == [{"content": [{"type": "text", "text": "hi"}], "role": "user"}]


def test_cost_matches_gpt4o_prices(llm_server: ScriptedLLMServer) -> None:
    # same token counts as fixtures/sdk/b_terminal's first call: the SDK recorded 0.017005
    llm_server.enqueue_text("x", prompt_tokens=6538, completion_tokens=66)
    llm = make_llm(llm_server)
    llm.completion(_user())
    assert llm.metrics.accumulated_cost == pytest.approx(0.017005)


def test_cost_is_priced_by_the_model_the_response_names(llm_server: ScriptedLLMServer) -> None:
    # as litellm's completion_cost (the SDK's): the server answers as gpt-4o, whatever was asked
    llm_server.enqueue_text("x", prompt_tokens=6538, completion_tokens=66)
    llm = make_llm(llm_server, model="openai/gpt-5.5")
    llm.completion(_user())
    assert llm.metrics.accumulated_cost == pytest.approx(0.017005)


def test_reset_metrics_gives_a_copy_metrics_of_its_own(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue_text("x")
    llm = make_llm(llm_server)
    llm.completion(_user())
    copy = llm.model_copy()
    assert copy.metrics is llm.metrics  # pydantic copies private attributes shallowly
    copy.reset_metrics()
    assert copy.metrics.accumulated_cost == 0 and llm.metrics.accumulated_cost > 0


def test_responses_call(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue_tool_call("finish", {"message": "m"}, text="t", reasoning_content="r")
    llm = make_llm(llm_server, api_mode="responses")
    msgs = [Message(role="system", content=[TextContent(text="sys")]), *_user()]
    r = llm.call(msgs)
    assert r.message.content == [TextContent(text="t")]
    call = (r.message.tool_calls or [])[0]
    assert call.origin == "responses" and call.id == "call_0_0"
    assert call.responses_item_id == "fc_scripted_0_0"
    assert r.message.responses_reasoning_item is not None
    body = llm_server.requests[0].body
    assert body["instructions"] == "sys" and body["store"] is False
    assert body["input"] == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    ]
    assert llm.metrics.token_usages[0].prompt_tokens == 100


def test_retry_then_success_and_non_retryable(llm_server: ScriptedLLMServer) -> None:
    llm = make_llm(llm_server, num_retries=3)
    llm_server.enqueue_error(429)
    llm_server.enqueue_error(502)
    llm_server.enqueue_text("ok")
    assert llm.completion(_user()).message.content[0].text == "ok"  # type: ignore[union-attr]
    assert len(llm_server.requests) == 3
    llm_server.enqueue_error(401, "bad key")
    with pytest.raises(LLMError) as exc:
        llm.completion(_user())
    assert exc.value.kind == "AuthenticationError" and "bad key" in str(exc.value)
    assert len(llm_server.requests) == 4


def test_backoff_is_exponential_and_bounded() -> None:
    llm = LLM(model="x", retry_multiplier=8, retry_min_wait=8, retry_max_wait=64)
    assert [llm._backoff(n) for n in range(1, 6)] == [8, 16, 32, 64, 64]


def test_importing_the_sdk_does_not_import_litellm() -> None:
    import subprocess

    code = "import sys, trajkit.sdk; print('litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_reasoning_settings_only_for_reasoning_models(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue_text("a")
    llm_server.enqueue_text("b")
    llm_server.enqueue_text("c")
    make_llm(llm_server).completion(_user())  # gpt-4o: no reasoning
    make_llm(llm_server, model="openai/gpt-5-mini", reasoning_effort="low").completion(_user())
    make_llm(llm_server, model="openai/gpt-5-mini", reasoning_summary="auto").responses(_user())
    chat_plain, chat_reasoning, responses = (r.body for r in llm_server.requests)
    assert "reasoning_effort" not in chat_plain
    assert chat_reasoning["reasoning_effort"] == "low"
    assert responses["reasoning"] == {"effort": "high", "summary": "auto"}
    assert responses["include"] == ["reasoning.encrypted_content"]
