"""``grep`` (defined with ``glob`` in `trajkit.tools.glob`)."""

from trajkit.tools.glob import GrepAction, GrepTool

__all__ = ["GrepAction", "GrepTool"]
