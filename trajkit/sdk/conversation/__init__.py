"""Conversations: `Conversation` (local, persisted), its state, callbacks and errors.

The module paths are the SDK's (``conversation.state``, ``conversation.types``,
``conversation.exceptions``, ``conversation.visualizer``), so SDK scripts run with the
package renamed.
"""

from trajkit.sdk.conversation.base import BaseConversation, ConversationStateProtocol
from trajkit.sdk.conversation.exceptions import ConversationRunError
from trajkit.sdk.conversation.local import Conversation, ConversationCallback
from trajkit.sdk.conversation.state import ConversationExecutionStatus, ConversationState
from trajkit.sdk.conversation.types import ConversationCallbackType, ConversationID
from trajkit.sdk.conversation.visualizer import (
    ConversationVisualizerBase,
    DefaultConversationVisualizer,
)
from trajkit.sdk.metrics import ConversationStats

LocalConversation = Conversation
"""The SDK's name for a conversation run in this process (the only kind trajkit has)."""

__all__ = [
    "BaseConversation",
    "Conversation",
    "ConversationCallback",
    "ConversationCallbackType",
    "ConversationExecutionStatus",
    "ConversationID",
    "ConversationRunError",
    "ConversationState",
    "ConversationStateProtocol",
    "ConversationStats",
    "ConversationVisualizerBase",
    "DefaultConversationVisualizer",
    "LocalConversation",
]
