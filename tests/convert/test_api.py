"""The public names of trajkit.convert, and the API-choice rule."""

from __future__ import annotations

import trajkit.convert as convert
from trajkit.convert import uses_responses_api


def test_exported_names() -> None:
    assert sorted(convert.__all__) == sorted(
        [
            "CorpusItem",
            "DanglingCall",
            "active_branch",
            "ConversionOptions",
            "FormatOptions",
            "condensed_view",
            "convert_conversation",
            "convert_corpus",
            "convert_events",
            "events_to_messages",
            "find_dangling",
            "fix_dangling",
            "full_view",
            "messages_to_chat",
            "messages_to_responses",
            "tools_to_chat",
            "tools_to_responses",
            "uses_responses_api",
        ]
    )
    for name in convert.__all__:
        assert getattr(convert, name) is not None


def test_uses_responses_api_rules() -> None:
    assert uses_responses_api("openai/gpt-4o") is False
    assert uses_responses_api("openai/gpt-5-mini") is True
    assert uses_responses_api(" OpenAI/GPT-6 ") is True
    assert uses_responses_api("codex-mini-latest") is True
    assert uses_responses_api("openai/gpt-4o", api_mode="responses") is True
    assert uses_responses_api("openai/gpt-5", api_mode="chat") is False
    overrides = {"supports_responses_api": False}
    assert uses_responses_api("openai/gpt-5", capability_overrides=overrides) is False
    assert uses_responses_api("x", supported_endpoints=["/v1/responses"]) is True
    assert uses_responses_api("gpt-5", supported_endpoints=["/v1/chat/completions"]) is False
    assert uses_responses_api("alias", model_canonical_name="openai/gpt-5.1") is True
