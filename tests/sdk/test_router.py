"""``MultimodalRouter`` (issue 27, SDK example 19): a request with an image goes to the primary
LLM, text to the secondary; each LLM's metrics count its own calls (loopback server)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tests.sdk.helpers import make_llm


def test_images_go_to_the_primary_llm(llm_server, tmp_path):
    from trajkit.sdk import Agent, Conversation, ImageContent, Message, TextContent
    from trajkit.sdk.llm.router import MultimodalRouter

    primary = make_llm(llm_server, usage_id="primary", model="openai/gpt-4o")
    secondary = make_llm(llm_server, usage_id="secondary", model="openai/gpt-4o-mini")
    router = MultimodalRouter(
        usage_id="router", llms_for_routing={"primary": primary, "secondary": secondary}
    )
    assert (
        router.model == "multimodal_router"
        and str(router) == "MultimodalRouter(llms=['primary', 'secondary'])"
    )
    for text in ("hello", "a picture", "bye"):
        llm_server.enqueue_text(f"re: {text}")
    conv = Conversation(agent=Agent(llm=router, tools=[]), workspace=tmp_path, visualizer=None)
    conv.send_message("hello")
    conv.run()
    image = ImageContent(image_urls=["data:image/png;base64,iVBORw0KGgo="])
    conv.send_message(Message(role="user", content=[image, TextContent(text="a picture")]))
    conv.run()
    conv.send_message("bye")
    conv.run()
    assert [b["model"] for b in llm_server.bodies("chat")] == ["gpt-4o-mini", "gpt-4o", "gpt-4o"]
    assert router.active_llm is primary  # the image stays in the history
    assert primary.metrics.accumulated_token_usage.prompt_tokens == 200
    assert secondary.metrics.accumulated_token_usage.prompt_tokens == 100
    conv.close()
    with pytest.raises(ValidationError, match="'secondary'"):
        MultimodalRouter(llms_for_routing={"primary": primary})
