"""The SDK's ``conversation.state`` path for `ConversationState` and its status enum."""

from trajkit.sdk.state import ConversationExecutionStatus, ConversationState

__all__ = ["ConversationExecutionStatus", "ConversationState"]
