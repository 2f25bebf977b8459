"""MCP: the tools of a stdio MCP server (MCP_SERVER_COMMAND, JSON list) become agent tools."""

import json
import os

from _common import make_llm

from trajkit.sdk import Agent, Conversation

command = json.loads(os.environ["MCP_SERVER_COMMAND"])
mcp_config = {"mcpServers": {"demo": {"command": command[0], "args": command[1:]}}}
conversation = Conversation(
    agent=Agent(llm=make_llm(), tools=[], mcp_config=mcp_config),
    workspace=os.getcwd(),
    visualizer=None,
)
print(f"MCP tools: {sorted(n for n in conversation.tools if n not in ('finish', 'think'))}")
conversation.send_message("Add 2 and 3 with the add tool.")
conversation.run()
print(f"Status: {conversation.state.execution_status.value}")
