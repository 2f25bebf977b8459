"""Pause and resume: a run in a thread is paused from the main thread, then continued."""

import os
import threading
import time

from _common import make_llm

from trajkit.sdk import Agent, Conversation, Tool
from trajkit.sdk.conversation.state import ConversationExecutionStatus
from trajkit.tools.terminal import TerminalTool

agent = Agent(llm=make_llm(), tools=[Tool(name=TerminalTool.name)])
conversation = Conversation(agent=agent, workspace=os.getcwd(), visualizer=None)
conversation.send_message("Count to three, one command at a time.")

runner = threading.Thread(target=conversation.run)
runner.start()
while not any(type(e).__name__ == "ActionEvent" for e in conversation.state.events):
    time.sleep(0.05)
conversation.pause()  # takes effect once the current step is done
runner.join()
print(f"Status after pause: {conversation.state.execution_status.value}")
assert conversation.state.execution_status == ConversationExecutionStatus.PAUSED

conversation.run()  # a paused conversation continues where it stopped
print(f"Status after resume: {conversation.state.execution_status.value}")
