"""Image input: a user message with an image and a question about it."""

import os

from _common import make_llm

from trajkit.sdk import Agent, Conversation, ImageContent, Message, TextContent

PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8Bw"
    "HwAFAAH/iZk9HQAAAABJRU5ErkJggg=="
)
conversation = Conversation(
    agent=Agent(llm=make_llm(), tools=[]), workspace=os.getcwd(), visualizer=None
)
conversation.send_message(
    Message(
        role="user",
        content=[TextContent(text="What colour is this image?"), ImageContent(image_urls=[PIXEL])],
    )
)
conversation.run()
print(f"Status: {conversation.state.execution_status.value}")
