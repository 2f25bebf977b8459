"""Custom visualizer: print one short line per event instead of the default panels."""

import os

from _common import make_llm

from trajkit.sdk import Agent, Conversation
from trajkit.sdk.conversation.visualizer import ConversationVisualizerBase
from trajkit.sdk.event import Event


class MinimalVisualizer(ConversationVisualizerBase):
    def on_event(self, event: Event) -> None:
        print(f"[EVENT] {type(event).__name__}: {event.model_dump_json()[:60]}...")


conversation = Conversation(
    agent=Agent(llm=make_llm(), tools=[]), workspace=os.getcwd(), visualizer=MinimalVisualizer()
)
conversation.send_message("Say hello.")
conversation.run()
print("Task completed!")
