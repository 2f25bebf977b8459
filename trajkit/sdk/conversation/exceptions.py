"""``ConversationRunError``: what `Conversation.run` raises when a run fails.

As in the SDK: the failure is first persisted (a ``ConversationErrorEvent``, status
``error``), then raised with the conversation id, its folder and the original error chained
(``__cause__``), so a script can report where to look and continue the conversation later.
"""

from __future__ import annotations

import uuid

from trajkit.events import ConversationErrorEvent

__all__ = ["ConversationRunError"]


class ConversationRunError(RuntimeError):
    """A run stopped on an error; the conversation is saved with status ``error``."""

    def __init__(
        self,
        conversation_id: uuid.UUID,
        original_exception: BaseException,
        persistence_dir: str | None = None,
        message: str | None = None,
        conversation_error: ConversationErrorEvent | None = None,
    ) -> None:
        self.conversation_id = conversation_id
        self.original_exception = original_exception
        self.persistence_dir = persistence_dir
        self.conversation_error = conversation_error
        text = f"conversation {conversation_id} failed: {original_exception}"
        if persistence_dir:
            text += f" (its events are in {persistence_dir})"
        super().__init__(message or text)
