"""Confirmation mode: every action waits; the script approves the first and rejects the next."""

import os

from _common import make_llm

from trajkit.sdk import Agent, Conversation, Tool
from trajkit.sdk.conversation.state import ConversationExecutionStatus
from trajkit.sdk.security.confirmation_policy import AlwaysConfirm
from trajkit.tools.terminal import TerminalTool

conversation = Conversation(
    agent=Agent(llm=make_llm(), tools=[Tool(name=TerminalTool.name)]),
    workspace=os.getcwd(),
    visualizer=None,
)
conversation.set_confirmation_policy(AlwaysConfirm())
conversation.send_message("Create ok.txt, then delete everything.")
conversation.run()
assert conversation.state.execution_status == ConversationExecutionStatus.WAITING_FOR_CONFIRMATION
conversation.run()  # running again approves the pending action
conversation.reject_pending_actions("Not that one.")
conversation.run()
print(f"Status: {conversation.state.execution_status.value}")
