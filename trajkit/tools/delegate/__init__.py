"""Delegation helpers: `DelegationVisualizer` names each agent in a delegation's output."""

from trajkit.tools.delegate.visualizer import DelegationVisualizer

__all__ = ["DelegationVisualizer"]
