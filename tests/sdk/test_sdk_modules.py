"""Public names at the SDK's module paths (issue 27) that need no module of their own: the
conversation's LLM registry, ``content_to_str``, the exports the SDK examples import."""

from __future__ import annotations

import json
import os

import pytest

from tests.sdk.helpers import make_agent, make_llm


def test_an_llm_added_to_the_conversation_registry_counts_in_its_stats(llm_server, tmp_path):
    from trajkit.sdk.conversation.conversation_stats import ConversationStats

    from trajkit.sdk import Conversation, Message, TextContent

    llm_server.enqueue_text("hi", prompt_tokens=11)
    llm_server.enqueue_text("more", prompt_tokens=7)
    conv = Conversation(agent=make_agent(llm_server), persistence_dir=tmp_path / "c")
    conv.send_message("hello")
    conv.run()
    assert conv.llm_registry.list_usage_ids() == ["agent"]
    assert conv.llm_registry.get("agent") is conv.agent.llm
    second = make_llm(llm_server, usage_id="demo-secondary")
    conv.llm_registry.add(second)
    second.completion(messages=[Message(role="user", content=[TextContent(text="more")])])
    stats = conv.conversation_stats
    assert isinstance(stats, ConversationStats)
    assert list(stats.usage_to_metrics) == ["agent", "demo-secondary"]
    assert stats.usage_to_metrics["demo-secondary"].accumulated_token_usage.prompt_tokens == 7
    assert stats.get_combined_metrics().accumulated_token_usage.prompt_tokens == 18
    conv.state.save()
    saved = json.loads(next((tmp_path / "c").glob("*/base_state.json")).read_text())
    assert set(saved["stats"]["usage_to_metrics"]) == {"agent", "demo-secondary"}
    conv.close()


def test_content_to_str_and_exports():
    from trajkit.sdk import LLMSummarizingCondenser
    from trajkit.sdk.context.condenser import LLMSummarizingCondenser as AtPath
    from trajkit.sdk.llm import ImageContent, TextContent, content_to_str

    assert LLMSummarizingCondenser is AtPath
    items = [TextContent(text="a"), ImageContent(image_urls=["data:x", "http://y"])]
    assert content_to_str(items) == ["a", "[Image: 2 URLs]"]


def test_switch_llm_tool_moves_the_conversation_to_a_saved_profile(
    llm_server, tmp_path, monkeypatch
):
    from trajkit.sdk import Agent, Conversation
    from trajkit.sdk.llm import LLMProfileStore

    monkeypatch.setenv("HOME", str(tmp_path))  # the default store, which the tool lists (SDK)
    store = LLMProfileStore()
    store.save(
        "small",
        make_llm(llm_server, model="openai/gpt-4o-mini", usage_id="small"),
        include_secrets=True,
    )
    llm_server.enqueue_tool_call("switch_llm", {"profile_name": "small", "reason": "cheaper"})
    llm_server.enqueue_text("switched")
    agent = Agent(
        llm=make_llm(llm_server), tools=[], include_default_tools=["FinishTool", "SwitchLLMTool"]
    )
    conv = Conversation(
        agent=agent, workspace=tmp_path, visualizer=None, profile_store_dir=store.base_dir
    )
    conv.send_message("switch")
    conv.run()
    first, second = llm_server.bodies("chat")
    tool = next(t["function"] for t in first["tools"] if t["function"]["name"] == "switch_llm")
    assert "- small" in tool["description"] and set(tool["parameters"]["properties"]) >= {
        "profile_name",
        "reason",
    }
    assert (first["model"], second["model"]) == ("gpt-4o", "gpt-4o-mini")
    obs = [e for e in conv.state.events if e.kind == "ObservationEvent"][0].observation
    assert obs.extra_fields()["active_model"] == "openai/gpt-4o-mini"
    conv.close()


def test_client_tools_are_offered_recorded_and_acknowledged(llm_server, tmp_path):
    from trajkit.sdk.event.llm_convertible.action import ActionEvent

    from trajkit.sdk import Conversation
    from trajkit.sdk.tool import ClientToolSpec

    spec = ClientToolSpec(
        name="show_notification",
        description="Shows a banner.",
        parameters={"type": "object", "properties": {"message": {"type": "string"},
                    "level": {"type": "string", "enum": ["info", "error"]}}, "required": ["message"]},
    )  # fmt: skip
    seen = []
    llm_server.enqueue_tool_call(
        "show_notification", {"message": "hi", "level": "info", "security_risk": "LOW"}
    )
    llm_server.enqueue_text("done")
    conv = Conversation(
        agent=make_agent(llm_server), workspace=tmp_path, persistence_dir=tmp_path / "c", visualizer=None,
        client_tools=[spec], callbacks=[lambda e: seen.append(e) if isinstance(e, ActionEvent) else None],
    )  # fmt: skip
    conv.send_message("notify")
    conv.run()
    first, second = llm_server.bodies("chat")
    offered = next(
        t["function"] for t in first["tools"] if t["function"]["name"] == "show_notification"
    )
    assert offered["parameters"]["properties"]["level"]["enum"] == ["info", "error"]
    # offered after the agent's own tools, before the built-ins (the SDK's order)
    names = [t["function"]["name"] for t in first["tools"]]
    assert names == ["terminal", "file_editor", "show_notification", "finish", "think"]
    # the arguments then kind, as the SDK's action dumps
    assert list(seen[0].action.model_dump()) == ["message", "level", "kind"]
    assert seen[0].action.kind == "ClientAction_show_notification"
    assert "Tool call dispatched to client." in json.dumps(second["messages"][-1])
    conv.close()
    # the spec is kept with the agent's tools; the conversation continues with it given again
    saved = json.loads(next((tmp_path / "c").glob("*/base_state.json")).read_text())
    assert saved["agent"]["tools"][-1]["params"]["spec"]["name"] == "show_notification"
    again = Conversation(
        agent=make_agent(llm_server), workspace=tmp_path, persistence_dir=tmp_path / "c",
        conversation_id=conv.id, visualizer=None, client_tools=[spec],
    )  # fmt: skip
    assert "show_notification" in again.tools
    again.close()
    with pytest.raises(ValueError, match="object JSON Schema"):
        ClientToolSpec(name="x", description="x", parameters={"type": "string"})


RESTORE_CHILD = """
import json, sys, uuid
from pydantic import SecretStr
from trajkit.sdk import LLM, Agent, Conversation, Tool

base_url, persist, workspace, cid = sys.argv[1:5]
llm = LLM(model="openai/gpt-4o", api_key=SecretStr("k"), base_url=base_url, usage_id="agent")
agent = Agent(llm=llm, tools=[Tool(name="terminal"), Tool(name="file_editor")])
conv = Conversation(agent=agent, workspace=workspace, persistence_dir=persist,
                    conversation_id=uuid.UUID(cid), visualizer=None)  # no client_tools=
conv.send_message("notify again")
conv.run()
print(json.dumps([e.action.kind for e in conv.state.events if e.kind == "ActionEvent"]))
conv.close()
"""


def test_a_restored_conversation_offers_its_client_tools_from_base_state(llm_server, tmp_path):
    """The SDK rebuilds client tools from ``base_state.json`` on a restore; so does trajkit, in
    a fresh process (nothing registered yet) and without ``client_tools=`` given again.
    """
    import subprocess
    import sys

    from tests.support.fixtures import REPO
    from trajkit.sdk import Conversation
    from trajkit.sdk.tool import ClientToolSpec

    level = {"type": "string", "enum": ["info", "error"]}
    spec = ClientToolSpec(name="show_banner", description="Shows a banner.", parameters={
        "type": "object", "properties": {"message": {"type": "string"}, "level": level}})  # fmt: skip
    llm_server.enqueue_tool_call("show_banner", {"message": "hi", "security_risk": "LOW"})
    llm_server.enqueue_text("done")
    conv = Conversation(agent=make_agent(llm_server), workspace=tmp_path, visualizer=None,
                        persistence_dir=tmp_path / "c", client_tools=[spec])  # fmt: skip
    conv.send_message("notify")
    conv.run()
    conv.close()
    saved = next((tmp_path / "c").glob("*/base_state.json")).read_bytes()
    llm_server.enqueue_tool_call("show_banner", {"message": "again", "level": "error"})
    llm_server.enqueue_text("done again")
    child = subprocess.run(
        [sys.executable, "-c", RESTORE_CHILD, llm_server.base_url, str(tmp_path / "c"),
         str(tmp_path), str(conv.id)],
        capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert child.returncode == 0, child.stderr  # before: "tools were removed mid-conversation"
    kinds = json.loads(child.stdout.splitlines()[-1])
    assert kinds == ["ClientAction_show_banner", "ClientAction_show_banner"]
    restored = llm_server.bodies("chat")[2]  # the first request of the restored conversation
    offered = {t["function"]["name"]: t["function"] for t in restored["tools"]}
    assert offered["show_banner"]["parameters"]["properties"]["level"]["enum"] == ["info", "error"]
    assert "Tool call dispatched to client." in json.dumps(
        llm_server.bodies("chat")[3]["messages"][-1]
    )
    after = json.loads(next((tmp_path / "c").glob("*/base_state.json")).read_text())
    assert after["agent"]["tools"] == json.loads(saved)["agent"]["tools"]  # kept, not doubled


def test_only_a_spec_of_the_tools_own_name_is_a_client_tool():
    from trajkit.sdk.tool.client_tool import saved_client_tools

    spec = {"name": "a", "description": "d", "parameters": {"type": "object"}}
    tools = [{"name": "a", "params": {"spec": spec}}, {"name": "b", "params": {"spec": spec}},
             {"name": "c", "params": {"spec": {"name": "c"}}}, {"name": "terminal", "params": {}}]  # fmt: skip
    assert [s.name for s in saved_client_tools({"agent": {"tools": tools}})] == ["a"]
    assert saved_client_tools(None) == [] and saved_client_tools({"agent": "x"}) == []


def test_goal_loop_follows_up_until_the_judge_is_satisfied(llm_server, tmp_path):
    from trajkit.sdk import Conversation
    from trajkit.sdk.conversation.goal import run_goal

    llm_server.enqueue_text("I think it is done.")
    llm_server.enqueue_text('{"score": 0.2, "complete": false, "missing": "no test was run"}')
    llm_server.enqueue_text("Ran the tests: 3 passed.")
    llm_server.enqueue_text('Verdict: {"score": 1.0, "complete": true, "missing": ""}')
    conv = Conversation(agent=make_agent(llm_server), workspace=tmp_path, visualizer=None)
    judge = make_llm(llm_server, usage_id="judge")
    outcome = run_goal(conv, "Make the tests pass.", judge, max_iterations=3)
    assert (outcome.status, outcome.iterations, outcome.verdict.complete) == ("complete", 2, True)
    bodies = llm_server.bodies("chat")
    judge_request = json.dumps(bodies[1]["messages"][1])
    assert "Make the tests pass." in judge_request and "I think it is done." in judge_request
    assert "no test was run" in json.dumps(bodies[2]["messages"][-1])  # the follow-up
    conv.close()


def test_agent_settings_round_trip_and_build_the_agent(llm_server):
    from trajkit.sdk import OpenHandsAgentSettings, Tool
    from trajkit.sdk.settings import LLMSummarizingCondenserSettings

    settings = OpenHandsAgentSettings(
        llm=make_llm(llm_server), tools=[Tool(name="terminal"), Tool(name="file_editor")],
        condenser=LLMSummarizingCondenserSettings(max_size=50),
    )  # fmt: skip
    payload = settings.model_dump(mode="json")
    assert payload["schema_version"] == 9 and payload["llm"]["api_key"] != "sk-test-secret-value"
    restored = OpenHandsAgentSettings.model_validate(payload)
    assert restored.condenser.max_size == 50 and [t.name for t in restored.tools] == [
        "terminal",
        "file_editor",
    ]
    agent = settings.create_agent()
    assert [t.name for t in agent.tools] == ["terminal", "file_editor"]
    assert agent.condenser.max_size == 50 and agent.condenser.llm.usage_id == "condenser"
    bare = OpenHandsAgentSettings(llm=settings.llm, tools=[Tool(name="terminal")],
                                  condenser=LLMSummarizingCondenserSettings(enabled=False)).create_agent()  # fmt: skip
    assert bare.condenser is None and bare.include_default_tools == ["FinishTool", "ThinkTool"]
