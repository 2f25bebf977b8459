"""Context condenser: a long run is summarised by a second LLM once the history passes max_size."""

import os

from _common import make_llm

from trajkit.sdk import Agent, Conversation, Tool
from trajkit.sdk.context.condenser import LLMSummarizingCondenser
from trajkit.tools.terminal import TerminalTool

condenser = LLMSummarizingCondenser(llm=make_llm(usage_id="condenser"), max_size=10, keep_first=2)
agent = Agent(llm=make_llm(), tools=[Tool(name=TerminalTool.name)], condenser=condenser)
conversation = Conversation(
    agent=agent, workspace=os.getcwd(), persistence_dir="./.conversations", visualizer=None
)
conversation.send_message("Run `echo step` a few times, then stop.")
conversation.run()
kinds = [type(e).__name__ for e in conversation.state.events]
print(f"Condensations: {kinds.count('Condensation')}")
print(f"Usage ids: {sorted(conversation.conversation_stats.usage_to_metrics)}")
