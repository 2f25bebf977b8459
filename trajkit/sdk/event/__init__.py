"""The SDK's ``event`` path: the event classes of `trajkit.events`."""

from trajkit.events import (
    ActionEvent,
    AgentErrorEvent,
    Condensation,
    CondensationRequest,
    CondensationSummaryEvent,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    Event,
    LLMConvertibleEvent,
    MessageEvent,
    ObservationBaseEvent,
    ObservationEvent,
    PauseEvent,
    SystemPromptEvent,
    UserRejectObservation,
)

__all__ = [
    "ActionEvent",
    "AgentErrorEvent",
    "Condensation",
    "CondensationRequest",
    "CondensationSummaryEvent",
    "ConversationErrorEvent",
    "ConversationStateUpdateEvent",
    "Event",
    "LLMConvertibleEvent",
    "MessageEvent",
    "ObservationBaseEvent",
    "ObservationEvent",
    "PauseEvent",
    "SystemPromptEvent",
    "UserRejectObservation",
]
