"""Send a message while the agent works: it is picked up at the next step."""

import os
import threading
import time

from _common import make_llm

from trajkit.sdk import Agent, Conversation, Tool
from trajkit.tools.terminal import TerminalTool

conversation = Conversation(
    agent=Agent(llm=make_llm(), tools=[Tool(name=TerminalTool.name)]),
    workspace=os.getcwd(),
    visualizer=None,
)
conversation.send_message("Run `sleep 1; echo first`.")
runner = threading.Thread(target=conversation.run)
runner.start()
while not any(type(e).__name__ == "ActionEvent" for e in conversation.state.events):
    time.sleep(0.05)  # the agent is now running its command
conversation.send_message("Also, when you are done, say 'second'.")
runner.join()
users = [e for e in conversation.state.events if type(e).__name__ == "MessageEvent"]
print(f"Messages: {len(users)}; status: {conversation.state.execution_status.value}")
