"""The trajkit runtime: an LLM, an agent with tools, and conversations persisted as the
OpenHands SDK persists them (``<persistence_dir>/<id hex>/base_state.json`` + ``events/``).

```python
from trajkit.sdk import LLM, Agent, Conversation, Tool
from trajkit.tools.terminal import TerminalTool

agent = Agent(llm=LLM(model="openai/gpt-4o", api_key=...), tools=[Tool(name=TerminalTool.name)])
conversation = Conversation(agent=agent, workspace=".", persistence_dir=".conversations")
conversation.send_message("List the files.")
conversation.run()
```
"""

from trajkit.events import Event, ImageContent, LLMConvertibleEvent, TextContent
from trajkit.sdk.agent import Agent
from trajkit.sdk.confirmation import AlwaysConfirm, ConfirmRisky, LLMSecurityAnalyzer, NeverConfirm
from trajkit.sdk.conversation import Conversation
from trajkit.sdk.llm import LLM, LLMError
from trajkit.sdk.logger import get_logger
from trajkit.sdk.secrets import Cipher, LookupSecret, StaticSecret
from trajkit.sdk.skills import AgentContext, KeywordTrigger, Skill, load_skills
from trajkit.sdk.state import ConversationExecutionStatus, ConversationState
from trajkit.sdk.tool import Action, Observation, Tool, ToolDefinition, ToolExecutor, register_tool

__all__ = [
    "LLM",
    "Action",
    "Agent",
    "AgentContext",
    "AlwaysConfirm",
    "Cipher",
    "ConfirmRisky",
    "Conversation",
    "ConversationExecutionStatus",
    "ConversationState",
    "Event",
    "ImageContent",
    "KeywordTrigger",
    "LLMConvertibleEvent",
    "LLMError",
    "LLMSecurityAnalyzer",
    "LookupSecret",
    "NeverConfirm",
    "Observation",
    "Skill",
    "StaticSecret",
    "TextContent",
    "Tool",
    "ToolDefinition",
    "ToolExecutor",
    "get_logger",
    "load_skills",
    "register_tool",
]
