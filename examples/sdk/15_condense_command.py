"""Condense on demand: conversation.condense() summarises the history between two tasks."""

import os

from _common import make_llm

from trajkit.sdk import Agent, Conversation
from trajkit.sdk.context.condenser import LLMSummarizingCondenser

condenser = LLMSummarizingCondenser(llm=make_llm(usage_id="condenser"), max_size=100, keep_first=1)
conversation = Conversation(
    agent=Agent(llm=make_llm(), tools=[], condenser=condenser),
    workspace=os.getcwd(),
    visualizer=None,
)
conversation.send_message("Tell me about the planets.")
conversation.run()
conversation.condense()
conversation.send_message("And now about the moons?")
conversation.run()
kinds = [type(e).__name__ for e in conversation.state.events]
print(f"Condensation requested: {'CondensationRequest' in kinds}, done: {'Condensation' in kinds}")
