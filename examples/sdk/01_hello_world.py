"""Hello world: an agent with a terminal writes a file in the current folder."""

import os

from _common import make_llm

from trajkit.sdk import Agent, Conversation, Tool
from trajkit.tools.terminal import TerminalTool

llm = make_llm()
agent = Agent(llm=llm, tools=[Tool(name=TerminalTool.name)])
conversation = Conversation(agent=agent, workspace=os.getcwd())
conversation.send_message("Write 3 facts about this folder into FACTS.txt.")
conversation.run()
print("All done!")
print(f"EXAMPLE_COST: {llm.metrics.accumulated_cost}")
