"""The ``terminal`` tool: a persistent bash session in the workspace."""

from trajkit.tools.terminal.definition import TerminalTool
from trajkit.tools.terminal.session import CommandResult, TerminalSession

__all__ = ["CommandResult", "TerminalSession", "TerminalTool"]
