"""Custom secrets: the agent uses $MY_TOKEN by name; its value never reaches disk or the model."""

import os

from _common import make_llm

from trajkit.sdk import Agent, Conversation, Tool
from trajkit.tools.terminal import TerminalTool

conversation = Conversation(
    agent=Agent(llm=make_llm(), tools=[Tool(name=TerminalTool.name)]),
    workspace=os.getcwd(),
    persistence_dir="./.conversations",
    visualizer=None,
)
conversation.update_secrets({"MY_TOKEN": "token-value-42"})
conversation.send_message("Check that MY_TOKEN is set (print its length only).")
conversation.run()
print(f"Secrets known: {sorted(conversation.state.secret_registry.secret_sources)}")
