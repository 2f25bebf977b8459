"""The ``terminal`` tool: a persistent bash session in the workspace."""

from trajkit.events import TerminalAction, TerminalObservation
from trajkit.tools.terminal.definition import TerminalTool
from trajkit.tools.terminal.impl import TerminalExecutor
from trajkit.tools.terminal.session import CommandResult, TerminalSession

__all__ = [
    "CommandResult",
    "TerminalAction",
    "TerminalExecutor",
    "TerminalObservation",
    "TerminalSession",
    "TerminalTool",
]
