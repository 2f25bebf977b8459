"""Ready-made agent configurations (the SDK's ``openhands.tools.preset``)."""

from trajkit.tools.preset.default import get_default_agent, get_default_condenser, get_default_tools

__all__ = ["get_default_agent", "get_default_condenser", "get_default_tools"]
