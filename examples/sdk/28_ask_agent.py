"""Ask the agent a side question: the answer comes from the context and is not recorded."""

import os

from _common import make_llm

from trajkit.sdk import Agent, Conversation

conversation = Conversation(
    agent=Agent(llm=make_llm(), tools=[]), workspace=os.getcwd(), visualizer=None
)
conversation.send_message("Remember the number 7.")
conversation.run()
before = len(conversation.state.events)
print(f"Answer: {conversation.ask_agent('Which number?')}")
print(f"Events added by the question: {len(conversation.state.events) - before}")
print(f"Title: {conversation.generate_title()}")
