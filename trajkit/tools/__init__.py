"""Tools of the trajkit runtime: ``terminal``, ``file_editor``, ``task_tracker``, ``task``
(sub-agents), and ``preset`` (the SDK's default agent). Tools are found by name through
``trajkit.sdk.tool.registry``. The names below are the SDK's ``openhands.tools`` exports,
imported when first used.
"""

import importlib
from typing import Any

from trajkit._extras import RUNTIME_MODULES, require

require("runtime", *RUNTIME_MODULES, feature="trajkit.tools (the runtime's tools)")

_EXPORTS = {
    "DelegationVisualizer": "trajkit.tools.delegate",
    "FileEditorTool": "trajkit.tools.file_editor",
    "TaskToolSet": "trajkit.tools.task",
    "TaskTrackerTool": "trajkit.tools.task_tracker",
    "TerminalTool": "trajkit.tools.terminal",
    "get_default_agent": "trajkit.tools.preset.default",
    "get_default_tools": "trajkit.tools.preset.default",
    "register_builtins_agents": "trajkit.tools.preset.default",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'trajkit.tools' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
