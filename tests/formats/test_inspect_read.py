"""Inspect AI logs (`.eval`, `.json`) read as one conversation per sample."""

from __future__ import annotations

import json

import pytest
from inspect_ai.log import read_eval_log

from tests.formats._shared import needs_formats
from tests.support import fixtures as fx
from trajkit.convert import convert_conversation
from trajkit.events import ActionEvent, ObservationEvent
from trajkit.shapes import shape_refs


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    return "".join((p.get("text") if isinstance(p, dict) else getattr(p, "text", "")) or ""
                   for p in content)  # type: ignore[attr-defined]  # fmt: skip


@needs_formats
@pytest.mark.parametrize("name", fx.INSPECT_FILES)
def test_one_conversation_per_sample_with_the_samples_messages(name: str) -> None:
    log = read_eval_log(str(fx.FORMATS / name))  # Inspect's own reader: the oracle
    refs = list(shape_refs(fx.FORMATS / name) or [])
    assert [r.key for r in refs] == [f"{s.id}_epoch_{s.epoch}" for s in log.samples or []]
    for ref, sample in zip(refs, log.samples or [], strict=True):
        chat = convert_conversation(ref)["messages"]
        called = {
            c.id for m in sample.messages if m.role == "assistant" for c in m.tool_calls or []
        }
        roles: list[str] = []  # a result of no call is a user message; users in a row join
        for m in sample.messages:
            role = "user" if m.role == "tool" and m.tool_call_id not in called else m.role
            if not (role == "user" and roles[-1:] == ["user"]):
                roles.append(role)
        assert [m["role"] for m in chat] == roles
        texts = [_text(m.content) for m in sample.messages if m.role in ("system", "assistant")]
        assert [_text(m.get("content") or "") for m in chat
                if m["role"] in ("system", "assistant")] == texts  # fmt: skip


@needs_formats
def test_tool_calls_results_errors_and_attachments() -> None:
    conv = next(iter(shape_refs(fx.FORMATS / fx.INSPECT_FILES[0]) or [])).open_conversation()
    events = list(conv.iter_events())
    calls = [e for e in events if isinstance(e, ActionEvent)]
    assert [c.tool_name for c in calls][:2] == ["web_browser_go", "web_browser_click"]
    assert all(isinstance(e, ObservationEvent) for e in events if e.kind == "ObservationEvent")
    state = conv.base_state()
    assert state is not None and state.agent.llm.model == "openai/gpt-4o-mini"
    usage = state.stats.usage_to_metrics["agent"]  # type: ignore[union-attr]
    assert sum(u.prompt_tokens for u in usage.token_usages) == 15235  # = the sample's model_usage
    errors = convert_conversation(next(iter(shape_refs(fx.FORMATS / fx.INSPECT_FILES[1]) or [])))
    text = json.dumps(errors["messages"])
    assert (
        text.count("[result of tool call") == 11
        and "The tool output limit of 10 MiB was exceeded." in text
    )
    images = convert_conversation(next(iter(shape_refs(fx.FORMATS / fx.INSPECT_FILES[2]) or [])))
    urls = [p["image_url"]["url"] for m in images["messages"] if isinstance(m["content"], list)
            for p in m["content"] if p["type"] == "image_url"]  # fmt: skip
    assert urls and urls[0].startswith("data:image/")  # the attachment, resolved
