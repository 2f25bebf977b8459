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

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType

from trajkit._extras import RUNTIME_MODULES, require

require("runtime", *RUNTIME_MODULES, feature="trajkit.sdk (the runtime)")

MOVED_MODULES = {
    "trajkit.sdk.builtins": "trajkit.sdk.tool.builtins",
    "trajkit.sdk.condenser": "trajkit.sdk.context.condenser",
    "trajkit.sdk.confirmation": "trajkit.sdk.security",
    "trajkit.sdk.conversation.conversation_stats": "trajkit.sdk.metrics",
    "trajkit.sdk.event.hook_execution": "trajkit.events.conversation",
    "trajkit.sdk.event.llm_convertible": "trajkit.events",
    "trajkit.sdk.event.llm_convertible.action": "trajkit.events.tool_events",
    "trajkit.sdk.fifo_lock": "trajkit.sdk.conversation.fifo_lock",
    "trajkit.sdk.llm.profiles": "trajkit.sdk.llm",
    "trajkit.sdk.llm.registry": "trajkit.sdk.llm.llm_registry",
    "trajkit.sdk.secrets": "trajkit.sdk.secret.secrets",
    "trajkit.sdk.skills": "trajkit.sdk.context.skills",
    "trajkit.sdk.state": "trajkit.sdk.conversation.state",
    "trajkit.sdk.stuck": "trajkit.sdk.conversation.stuck_detector",
}
"""Module paths without code of their own and the module that holds it: earlier trajkit paths
(their code is at the SDK's path now) and SDK paths whose code trajkit keeps with related code.
The name imports and gives that module itself (one table, no alias files)."""


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves an old path of `MOVED_MODULES` to the module at its new path."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED_MODULES:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def exec_module(self, module: ModuleType) -> None:
        # the import system returns what sys.modules holds once this returns
        sys.modules[module.__name__] = importlib.import_module(MOVED_MODULES[module.__name__])


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())

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
from trajkit.sdk.context.condenser import LLMSummarizingCondenser  # noqa: E402
from trajkit.sdk.context.skills import (  # noqa: E402
    AgentContext,
    KeywordTrigger,
    Skill,
    load_skills,
    load_skills_from_dir,
)
from trajkit.sdk.conversation import (  # noqa: E402
    BaseConversation,
    Conversation,
    ConversationCallbackType,
    ConversationRunError,
    LocalConversation,
)
from trajkit.sdk.conversation.state import (  # noqa: E402
    ConversationExecutionStatus,
    ConversationState,
    LocalWorkspace,
)
from trajkit.sdk.llm import LLM, LLMError, LLMProfileStore, LLMRegistry, RegistryEvent  # noqa: E402
from trajkit.sdk.logger import get_logger  # noqa: E402
from trajkit.sdk.metrics import ConversationStats, TokenUsage  # noqa: E402
from trajkit.sdk.secret.secrets import Cipher, LookupSecret, StaticSecret  # noqa: E402
from trajkit.sdk.security import AlwaysConfirm, ConfirmRisky, LLMSecurityAnalyzer, NeverConfirm  # noqa: E402
from trajkit.sdk.settings import OpenHandsAgentSettings  # noqa: E402
from trajkit.sdk.subagent import agent_definition_to_factory, register_agent  # noqa: E402
from trajkit.sdk.tool import Action, Observation, Tool, ToolDefinition, ToolExecutor, register_tool  # noqa: E402

__all__ = [
    "LLM",
    "Action",
    "Agent",
    "AgentContext",
    "AlwaysConfirm",
    "BaseConversation",
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
    "LLMSummarizingCondenser",
    "LocalConversation",
    "LocalWorkspace",
    "LookupSecret",
    "Message",
    "MessageEvent",
    "NeverConfirm",
    "Observation",
    "OpenHandsAgentSettings",
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
    "agent_definition_to_factory",
    "get_logger",
    "load_skills",
    "load_skills_from_dir",
    "register_agent",
    "register_tool",
]
