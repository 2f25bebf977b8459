"""``BaseConversation``: what an agent and its tools may ask of the conversation running them.

The SDK's ``conversation.base`` path. `trajkit.sdk.conversation.local.Conversation` is the one
implementation. The agent (`trajkit.sdk.agent`) and the tools (`trajkit.sdk.tool`) are typed
against this class, never against the implementation, so imports run one way: the
conversation imports its state, the state holds the agent, the agent knows only this class.

`ConversationStateProtocol` is the part of `ConversationState` the agent reads (the SDK has a
protocol of the same name for the same reason).
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from trajkit.events import ActionEvent, Event, Message
from trajkit.sdk.context.view import View
from trajkit.sdk.secret.secrets import SecretValue
from trajkit.sdk.security.analyzers import SecurityAnalyzerBase

if TYPE_CHECKING:
    from trajkit.sdk.tool import RuntimeTool

__all__ = ["BaseConversation", "ConversationStateProtocol"]

_M = TypeVar("_M")
_R = TypeVar("_R")


class ConversationStateProtocol(Protocol):
    """The state an agent step reads: the request's view and the security analyzer."""

    @property
    def id(self) -> uuid.UUID:
        """The conversation's id."""
        ...

    @property
    def view(self) -> View:
        """The events the next LLM request is made of."""
        ...

    @property
    def security_analyzer(self) -> SecurityAnalyzerBase | dict[str, Any] | None:
        """The analyzer that makes the LLM's ``security_risk`` count, if any."""
        ...

    @property
    def persistence_dir(self) -> str | None:
        """The conversation folder; None when the conversation is kept in memory."""
        ...

    @property
    def last_user_message_id(self) -> str | None:
        """The id of the last user message."""
        ...

    def rebuild_view(self) -> None:
        """Rebuild the view from the active branch with its properties enforced."""
        ...

    def pop_blocked_action(self, action_id: str) -> str | None:
        """Why a hook blocked this action (forgetting it), or None."""
        ...

    def pop_blocked_message(self, message_id: str) -> str | None:
        """Why a hook blocked this user message (forgetting it), or None."""
        ...


class BaseConversation(ABC):
    """A running conversation, as its agent and tools see it."""

    id: uuid.UUID
    """The conversation's id (its folder is the hex form)."""
    state: ConversationStateProtocol
    """The persisted state."""
    tools: dict[str, RuntimeTool]
    """The tools the agent may call, by name."""

    # -- what the user calls -----------------------------------------------------------
    @abstractmethod
    def send_message(self, message: str | Message, sender: str | None = None) -> None:
        """Add a user message."""

    @abstractmethod
    def run(self) -> None:
        """Step the agent until it finishes, pauses, fails or is stuck."""

    @abstractmethod
    def pause(self) -> None:
        """Stop the run after the current step."""

    @abstractmethod
    def interrupt(self) -> None:
        """Stop the run now."""

    @abstractmethod
    def reject_pending_actions(self, reason: str = "User rejected the action") -> None:
        """Answer every action waiting for confirmation with a rejection."""

    @abstractmethod
    def update_secrets(self, secrets: Mapping[str, SecretValue]) -> None:
        """Add or replace secrets."""

    @abstractmethod
    def condense(self) -> None:
        """Condense the history now."""

    @abstractmethod
    def ask_agent(self, question: str) -> str:
        """Answer a side question without recording anything."""

    @abstractmethod
    def close(self) -> None:
        """Stop the tools' processes and release the conversation."""

    # -- what the agent calls during a step --------------------------------------------
    @abstractmethod
    def emit(self, event: Event) -> Event:
        """Record ``event`` (persisted at once) and return it as recorded."""

    @abstractmethod
    def llm_messages(self) -> list[Message]:
        """The messages of the next LLM request."""

    def interrupted(self) -> bool:
        """Whether `interrupt` was called during this run (a tool's result is then dropped)."""
        return False

    @abstractmethod
    def call_llm(self, call: Callable[[], _R]) -> _R:
        """Run the step's model call, unless the conversation is interrupted first."""

    @abstractmethod
    def pending_actions(self) -> list[ActionEvent]:
        """Actions emitted but neither run nor rejected."""

    @abstractmethod
    def needs_confirmation(self, actions: Sequence[ActionEvent]) -> bool:
        """Whether the confirmation policy stops before any of ``actions``."""

    @abstractmethod
    def wait_for_confirmation(self) -> None:
        """Stop the run before the pending actions."""

    @abstractmethod
    def finish(self) -> None:
        """Mark the run finished."""

    @abstractmethod
    def mask_secrets(self, value: _M) -> _M:
        """``value`` with every secret value hidden."""
