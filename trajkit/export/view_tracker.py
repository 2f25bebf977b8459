"""`ViewTracker`: the events the model's view may still show, as a conversation's events come.

Shared by the conversation row (`event_rows`) and the training profiles (`profiles`), so a long
conversation is never held whole: an LLM event a condensation forgot is let go as the SDK's own
view forgets it, and the view is made from the entries of every event and the events kept
(`convert.conversation.prepare_messages(entries=)`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trajkit.convert.view import CONDENSATION, LLM, UNKNOWN, ViewEntry, entry_of
from trajkit.events.base import ROOT_PARENT

if TYPE_CHECKING:
    from trajkit.events import Event, Message

__all__ = ["ViewTracker"]

_UPDATE = "SystemPromptUpdateEvent"  # convert.newer: applied over every event


class ViewTracker:
    """The events the model's view may still show, as they come (module docstring).

    `entries` has one `ViewEntry` per event; `kept` maps positions to the LLM events no
    condensation forgot (every event with `keep_all`: `events`). A condensation's forgetting is
    applied only while the log is one line (parent links) and before `leaf` (None: no leaf
    ends it), so the kept events make the same view as the whole log at any later point.
    """

    def __init__(self, *, keep_all: bool = False, leaf: str | None = None) -> None:
        self.keep_all = keep_all
        self.entries: list[ViewEntry] = []
        self.kept: dict[int, Event] = {}
        self.events: list[Event] = []
        """Every event, with `keep_all`."""
        self.messages: dict[int, Message] = {}
        """`event.to_llm_message()` by `id(event)`, of events held (their owner fills it)."""
        self._newer = False
        self._linear = True
        self._leaf = leaf
        self._past_leaf = False
        self._by_id: dict[str, int] = {}

    @property
    def complete(self) -> bool:
        """False when a newer SDK's kind needs every event and some were not kept."""
        return self.keep_all or not self._newer

    def add(self, event: Event) -> ViewEntry:
        """Take the next event; returns its entry."""
        pos = len(self.entries)
        entry = entry_of(event, pos)
        self.entries.append(entry)
        if self.keep_all:
            self.events.append(event)
        elif entry.flags & LLM:
            self.kept[pos] = event
            self._by_id.setdefault(event.id, pos)
        elif entry.flags & UNKNOWN and entry.kind == _UPDATE:
            self._newer = True
        self._follow(entry)
        return entry

    def _follow(self, entry: ViewEntry) -> None:
        """Let go of what a condensation forgot, while the log is one line up to the leaf."""
        prev = self.entries[-2].id if len(self.entries) > 1 else None
        first = prev is None and entry.parent_id in (None, ROOT_PARENT)
        if not first and entry.parent_id is not None and entry.parent_id != prev:
            self._linear = False
        if (
            entry.flags & CONDENSATION
            and self._linear
            and not self._past_leaf
            and not self.keep_all
            and entry.condensation is not None
        ):
            for event_id in entry.condensation.forgotten_event_ids:
                pos = self._by_id.pop(event_id, None)
                event = self.kept.pop(pos, None) if pos is not None else None
                if event is not None:
                    self.messages.pop(id(event), None)
        if entry.id == self._leaf:
            self._past_leaf = True  # a later condensation does not change the leaf's view
