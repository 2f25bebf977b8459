"""LLM metrics: cost and tokens per LLM and combined, after a run."""

import os

from _common import make_llm

from trajkit.sdk import Agent, Conversation

llm = make_llm()
conversation = Conversation(agent=Agent(llm=llm, tools=[]), workspace=os.getcwd(), visualizer=None)
conversation.send_message("Say hi.")
conversation.run()
combined = conversation.conversation_stats.get_combined_metrics()
usage = combined.accumulated_token_usage
assert usage is not None
print(f"Prompt tokens: {usage.prompt_tokens}, completion tokens: {usage.completion_tokens}")
print(f"Usage ids: {sorted(conversation.conversation_stats.usage_to_metrics)}")
print(f"EXAMPLE_COST: {combined.accumulated_cost}")
