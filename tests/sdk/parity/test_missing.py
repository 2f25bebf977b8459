"""Issue 18, "Missing": SDK features trajkit lacked, each run as the SDK script and compared
with openhands-sdk 1.58.2's recording (or, where nothing is recorded, checked directly)."""

from __future__ import annotations

from tests.sdk.parity.conftest import Compare


def test_visualizers_default_none_and_custom(compare: Compare) -> None:
    got, _ = compare("visualizers")
    result = got["result"]
    assert result["default_shows_answer"] and result["default_shows_thought"]
    assert not result["none_prints"]
    assert result["custom_kinds"] == [
        "SystemPromptEvent",
        "MessageEvent",
        "ActionEvent",
        "ObservationEvent",
        "MessageEvent",
    ]


def test_stats_tags_iteration_limit_stuck_detector_sender(compare: Compare) -> None:
    got, want = compare("stats_and_tags")
    assert got["result"]["tags"] == {"team": "parity", "run1": "x"}
    assert (
        got["conversations"][0]["base_state"]["tags"]
        == want["conversations"][0]["base_state"]["tags"]
    )
    assert got["conversations"][0]["base_state"]["max_iterations"] == 7


def test_fork_copies_history_into_its_own_folder(compare: Compare) -> None:
    got, want = compare("fork")
    assert got["result"]["fork_events"] == 5 and got["result"]["source_events"] == 3
    mine = [c["event_kinds"] for c in got["conversations"]]
    assert mine == [
        ["SystemPromptEvent", "MessageEvent", "MessageEvent"],
        ["SystemPromptEvent", "MessageEvent", "MessageEvent", "MessageEvent", "MessageEvent"],
    ]
    # the fork's first events are the source's, same ids
    source, fork = got["conversations"]
    assert [e["id"] for e in fork["events"][:3]] == [e["id"] for e in source["events"]]
    assert source["folder"] != fork["folder"]


def test_ask_agent_answers_without_recording(compare: Compare) -> None:
    got, _ = compare("ask_agent")
    assert got["result"]["events_added"] == 0
    assert got["result"]["usage_ids"] == ["agent", "ask-agent-llm"]


def test_generate_title_and_fallback(compare: Compare) -> None:
    got, _ = compare("generate_title")
    assert got["result"] == {
        "title": "Parity Title",
        "fallback": "Please explain ho...",
        "events": 3,
    }


def test_llm_reset_metrics_token_count_and_caching(compare: Compare) -> None:
    got, _ = compare("llm_methods")
    assert got["result"]["cost_after_reset"] == 0.0
    assert got["result"]["token_count_positive"]
    assert (got["result"]["caching_gpt4o"], got["result"]["caching_claude"]) == (False, True)


def test_num_retries_zero_is_one_attempt(tmp_path) -> None:
    import pytest

    from tests.support.llm_server import ScriptedLLMServer
    from trajkit.sdk import LLM, Message, TextContent
    from trajkit.sdk.llm.exceptions import LLMServiceUnavailableError

    with ScriptedLLMServer() as server:
        server.enqueue_error(503, times=3)
        llm = LLM(model="openai/gpt-4o", api_key="k", base_url=server.base_url, num_retries=0)
        with pytest.raises(LLMServiceUnavailableError):
            llm.completion([Message(role="user", content=[TextContent(text="hi")])])
        assert len(server.requests) == 1


def test_llm_registry_as_in_the_sdk_example() -> None:
    import pytest

    from trajkit.sdk import LLM, LLMRegistry

    registry = LLMRegistry()
    seen: list[str] = []
    registry.subscribe(lambda event: seen.append(event.llm.usage_id))
    llm = LLM(model="openai/gpt-4o", usage_id="agent")
    registry.add(llm)
    assert registry.get("agent") is llm
    assert registry.list_usage_ids() == ["agent"] and seen == ["agent"]
    with pytest.raises(ValueError, match="already registered"):
        registry.add(LLM(model="openai/gpt-4o-mini", usage_id="agent"))
    with pytest.raises(KeyError, match="registered: agent"):
        registry.get("other")


def test_fallback_llm_answers_when_the_primary_is_down(compare: Compare) -> None:
    got, _ = compare("llm_fallback")
    assert got["result"]["models"] == ["gpt-4o", "gpt-4o-mini"]
    assert got["result"]["usage_ids"] == ["agent"]  # the fallback's cost is the primary's
    assert got["result"]["primary_calls_recorded"] == 1
    assert got["result"]["profiles"] == ["backup.json"]


def test_profile_names_cannot_leave_the_store(tmp_path) -> None:
    import pytest

    from trajkit.sdk import LLM, LLMProfileStore

    store = LLMProfileStore(tmp_path / "p")
    with pytest.raises(ValueError, match="plain name"):
        store.save("../escape", LLM(model="openai/gpt-4o"))
    store.save("ok", LLM(model="openai/gpt-4o", api_key="sk-secret-x"))
    saved = (tmp_path / "p" / "ok.json").read_text()
    assert "sk-secret-x" not in saved  # masked unless include_secrets=True
    assert ((tmp_path / "p" / "ok.json").stat().st_mode & 0o777) == 0o600
    assert store.load("ok").model == "openai/gpt-4o"


def test_interrupt_stops_a_model_call_in_flight(tmp_path) -> None:
    import threading

    from tests.sdk.parity.harness import renamed_scenarios
    from tests.support.llm_server import ScriptedLLMServer

    scenarios = renamed_scenarios()
    with ScriptedLLMServer() as server:
        server.enqueue_text("too late", delay=4.0)
        server.enqueue_text("after the interrupt")
        conversation = scenarios._conversation(server, tmp_path)
        conversation.send_message("Take your time.")
        runner = threading.Thread(target=conversation.run)
        runner.start()
        server.wait_for_requests(1, timeout=120)  # litellm's first import is slow under load
        conversation.interrupt()
        runner.join(120)
        assert not runner.is_alive()
        assert conversation.state.execution_status.value == "paused"
        kinds = [e.kind for e in conversation.state.events]
        assert kinds[-1] == "InterruptEvent" and "too late" not in str(conversation.state.events)
        conversation.run()  # continues: a new call
        assert conversation.state.execution_status.value == "finished"
    assert conversation.state.events[-1].llm_message.content[0].text in (
        "too late",
        "after the interrupt",
    )


def test_interrupt_without_a_run_is_a_pause(tmp_path) -> None:
    from tests.sdk.parity.harness import renamed_scenarios
    from tests.support.llm_server import ScriptedLLMServer

    scenarios = renamed_scenarios()
    with ScriptedLLMServer() as server:
        conversation = scenarios._conversation(server, tmp_path)
        conversation.send_message("Hi.")
        conversation.interrupt()
    assert conversation.state.execution_status.value == "paused"
    assert conversation.state.events[-1].kind == "PauseEvent"
