"""Delegation: `DelegationVisualizer` names each agent in a delegation's output; the
``delegate`` tool (`DelegateAction`, `DelegateExecutor`) spawns named sub-agents and hands
them tasks.
"""

from trajkit.tools.delegate.definition import (
    ConfirmationHandler,
    DelegateAction,
    DelegateExecutor,
    DelegateObservation,
    DelegateTool,
)
from trajkit.tools.delegate.visualizer import DelegationVisualizer

__all__ = [
    "ConfirmationHandler",
    "DelegateAction",
    "DelegateExecutor",
    "DelegateObservation",
    "DelegateTool",
    "DelegationVisualizer",
]
