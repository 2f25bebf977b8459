"""Callback and id types of conversations (the SDK's ``conversation.types`` names)."""

import uuid
from collections.abc import Callable

from trajkit.events import Event

ConversationCallbackType = Callable[[Event], None]
"""A function called with every event, after it is on disk."""
ConversationID = uuid.UUID
"""A conversation's id (its folder is the hex form)."""

__all__ = ["ConversationCallbackType", "ConversationID"]
