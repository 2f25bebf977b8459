"""Public names at the SDK's module paths (issue 27) that need no module of their own: the
conversation's LLM registry, ``content_to_str``, the exports the SDK examples import."""

from __future__ import annotations

import json

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
