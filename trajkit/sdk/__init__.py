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

from trajkit._extras import RUNTIME_MODULES, require

require("runtime", *RUNTIME_MODULES, feature="trajkit.sdk (the runtime)")

from trajkit.events import (  # noqa: E402
    Event,
    ImageContent,
    LLMConvertibleEvent,
    Message,
    MessageEvent,
    RedactedThinkingBlock,
    TextContent,
    ThinkingBlock,
)
from trajkit.sdk.agent import Agent  # noqa: E402
from trajkit.sdk.confirmation import AlwaysConfirm, ConfirmRisky, LLMSecurityAnalyzer, NeverConfirm  # noqa: E402
from trajkit.sdk.conversation import (  # noqa: E402
    Conversation,
    ConversationCallbackType,
    ConversationRunError,
    LocalConversation,
)
from trajkit.sdk.llm import LLM, LLMError, LLMProfileStore, LLMRegistry, RegistryEvent  # noqa: E402
from trajkit.sdk.logger import get_logger  # noqa: E402
from trajkit.sdk.metrics import ConversationStats, TokenUsage  # noqa: E402
from trajkit.sdk.secrets import Cipher, LookupSecret, StaticSecret  # noqa: E402
from trajkit.sdk.skills import (  # noqa: E402
    AgentContext,
    KeywordTrigger,
    Skill,
    load_skills,
    load_skills_from_dir,
)
from trajkit.sdk.state import ConversationExecutionStatus, ConversationState, LocalWorkspace  # noqa: E402
from trajkit.sdk.tool import Action, Observation, Tool, ToolDefinition, ToolExecutor, register_tool  # noqa: E402

__all__ = [
    "LLM",
    "Action",
    "Agent",
    "AgentContext",
    "AlwaysConfirm",
    "Cipher",
    "ConfirmRisky",
    "Conversation",
    "ConversationCallbackType",
    "ConversationExecutionStatus",
    "ConversationRunError",
    "ConversationState",
    "ConversationStats",
    "Event",
    "ImageContent",
    "KeywordTrigger",
    "LLMConvertibleEvent",
    "LLMError",
    "LLMProfileStore",
    "LLMRegistry",
    "LLMSecurityAnalyzer",
    "LocalConversation",
    "LocalWorkspace",
    "LookupSecret",
    "Message",
    "MessageEvent",
    "NeverConfirm",
    "Observation",
    "RedactedThinkingBlock",
    "RegistryEvent",
    "Skill",
    "StaticSecret",
    "TextContent",
    "ThinkingBlock",
    "TokenUsage",
    "Tool",
    "ToolDefinition",
    "ToolExecutor",
    "get_logger",
    "load_skills",
    "load_skills_from_dir",
    "register_tool",
]
