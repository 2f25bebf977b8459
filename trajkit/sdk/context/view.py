"""``View``: the events the next LLM request is made of, kept as openhands-sdk 1.58.2 keeps it.

A conversation holds one ``View`` of its active branch (``conversation.state.view``), built in
one of two ways, as the SDK's ``ConversationState.view`` and ``rebuild_view``:

- **live** (`View.append_event`, every event a running conversation records): a
  ``Condensation`` forgets its ids and inserts its summary at ``summary_offset``, a
  ``CondensationRequest`` marks a request the condenser has to answer, an LLM-convertible
  event is appended, anything else (pauses, errors, state updates) is skipped. Nothing is
  checked or dropped: what the model was sent is what it is sent again, plus the new events.
- **enforced** (`View.from_events`): the same walk over the whole branch, then the four view
  properties (`trajkit.convert.condensed_view`: one result per tool-call id, whole batches,
  matched calls, whole thinking loops). The SDK does this, and so does trajkit, only where
  the history was not built live: a restored conversation (cold load), a fork, a move of the
  HEAD to another branch (`Conversation.navigate_to`), and the recovery from a provider that
  rejected the history as malformed.

The two differ where a property would drop something from a live history. The case seen in
practice: a provider that repeats a tool-call id across turns. Live, both results are sent (the
SDK does the same); after a restore, the second is dropped, which is also what ``trajkit
convert --view condensed`` gives for the folder (the SDK's offline conversion agrees).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

from trajkit.convert.view import apply_condensation, condensed_view
from trajkit.events import Condensation, CondensationRequest, Event, LLMConvertibleEvent

__all__ = ["View"]


class View:
    """LLM-convertible events in request order, and whether a condensation is pending."""

    def __init__(
        self,
        events: Sequence[LLMConvertibleEvent] = (),
        *,
        unhandled_condensation_request: bool = False,
    ) -> None:
        self.events: list[LLMConvertibleEvent] = list(events)
        self.unhandled_condensation_request = unhandled_condensation_request
        """A ``CondensationRequest`` has no ``Condensation`` after it yet."""

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[LLMConvertibleEvent]:
        return iter(self.events)

    @overload
    def __getitem__(self, key: int) -> LLMConvertibleEvent: ...

    @overload
    def __getitem__(self, key: slice) -> list[LLMConvertibleEvent]: ...

    def __getitem__(self, key: int | slice) -> LLMConvertibleEvent | list[LLMConvertibleEvent]:
        return self.events[key]

    def __repr__(self) -> str:
        return (
            f"View({len(self.events)} events, "
            f"unhandled_condensation_request={self.unhandled_condensation_request})"
        )

    def append_event(self, event: Event) -> None:
        """Add one event of the branch, live (no property is enforced)."""
        if isinstance(event, Condensation):
            self.events = apply_condensation(event, self.events)
            self.unhandled_condensation_request = False
        elif isinstance(event, CondensationRequest):
            self.unhandled_condensation_request = True
        elif isinstance(event, LLMConvertibleEvent):
            self.events.append(event)

    @staticmethod
    def from_events(events: Sequence[Event]) -> View:
        """The enforced view of ``events`` (a branch, oldest first)."""
        pending = False  # what `append_event` over `events` would leave: the last of the two
        for event in reversed(events):
            if isinstance(event, Condensation | CondensationRequest):
                pending = isinstance(event, CondensationRequest)
                break
        return View(condensed_view(events), unhandled_condensation_request=pending)

    def copy(self) -> View:
        """An independent copy (the events themselves are shared; they are immutable)."""
        return View(self.events, unhandled_condensation_request=self.unhandled_condensation_request)
