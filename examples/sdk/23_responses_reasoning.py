"""Responses API with reasoning: a gpt-5-style model's reasoning summary is kept on the events."""

import os

from _common import make_llm

from trajkit.sdk import Agent, Conversation

llm = make_llm(reasoning_summary="auto")
conversation = Conversation(agent=Agent(llm=llm, tools=[]), workspace=os.getcwd(), visualizer=None)
conversation.send_message("Think, then answer: 2 + 2?")
conversation.run()
print(f"Uses the Responses API: {llm.uses_responses_api()}")
print(f"Status: {conversation.state.execution_status.value}")
