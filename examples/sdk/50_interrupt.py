"""Interrupt: stop a run from another thread; it ends paused and can be continued."""

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
conversation.send_message("Run `echo working` three times.")
runner = threading.Thread(target=conversation.run)
runner.start()
while not any(type(e).__name__ == "ActionEvent" for e in conversation.state.events):
    time.sleep(0.05)
conversation.interrupt()
runner.join()
print(f"Status after interrupt: {conversation.state.execution_status.value}")
