"""The tools every agent has unless told otherwise (``include_default_tools``): ``finish`` and
``think``; ``switch_llm`` when named there (``SwitchLLMTool``). They act on nothing outside the
conversation; tools that do live in `trajkit.tools`.
"""

from trajkit.sdk.tool.builtins.finish import FinishTool
from trajkit.sdk.tool.builtins.switch_llm import SwitchLLMTool
from trajkit.sdk.tool.builtins.think import ThinkTool

__all__ = [
    "BUILT_IN_TOOLS",
    "BUILTIN_TOOL_NAMES",
    "DEFAULT_TOOL_NAMES",
    "FinishTool",
    "SwitchLLMTool",
    "ThinkTool",
]

BUILT_IN_TOOLS = [FinishTool, ThinkTool]
"""The classes ``include_default_tools`` gives by default, in the SDK's order."""
DEFAULT_TOOL_NAMES = {tool.__name__: tool.name for tool in BUILT_IN_TOOLS}
"""``include_default_tools`` entries and the tool names they give."""
BUILTIN_TOOL_NAMES = {**DEFAULT_TOOL_NAMES, SwitchLLMTool.__name__: SwitchLLMTool.name}
"""Every name ``include_default_tools`` accepts and the tool name it gives."""
