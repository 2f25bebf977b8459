"""Hooks: commands (or LLM judges) that run at points of a conversation and may block them.

``Conversation(hook_config=HookConfig(...))`` runs them: PreToolUse before a tool (a deny
rejects the call), PostToolUse after it, UserPromptSubmit on a user message (may add context
or block it), SessionStart/SessionEnd, and Stop when the agent finishes (a deny sends it back
to work). Each run is recorded as a ``HookExecutionEvent``. Module paths are the SDK's
(``hooks.config``, ``hooks.types``, ``hooks.executor``, ``hooks.manager``,
``hooks.conversation_hooks``).
"""

from trajkit.sdk.hooks.config import (
    HOOK_EVENT_FIELDS,
    HookConfig,
    HookDefinition,
    HookMatcher,
    HookType,
)
from trajkit.sdk.hooks.conversation_hooks import HookEventProcessor
from trajkit.sdk.hooks.executor import HookExecutor, HookResult
from trajkit.sdk.hooks.manager import HookManager
from trajkit.sdk.hooks.types import HookDecision, HookEvent, HookEventType

__all__ = [
    "HOOK_EVENT_FIELDS",
    "HookConfig",
    "HookDecision",
    "HookDefinition",
    "HookEvent",
    "HookEventProcessor",
    "HookEventType",
    "HookExecutor",
    "HookManager",
    "HookMatcher",
    "HookResult",
    "HookType",
]
