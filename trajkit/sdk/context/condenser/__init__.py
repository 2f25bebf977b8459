"""``LLMSummarizingCondenser``: keep a long history within bounds by summarising its middle.

Behaviour of openhands-sdk 1.58.2's condenser of the same name (checked against recordings in
``tests/sdk/parity``):

- It runs at the start of an agent step, on the view the step would send
  (`trajkit.sdk.context.view`, ``state.view``). It condenses when the view holds more than
  ``max_size`` events, when its tokens (the agent LLM's count, tools included) pass
  ``max_tokens`` (or the agent LLM's context window, ``effective_max_input_tokens``: its
  ``max_input_tokens`` or the model's, the smaller), or when a
  ``CondensationRequest`` (``conversation.condense()``, a context-window overflow, a history
  the provider refused) has no ``Condensation`` after it.
- What is forgotten: from ``keep_first`` (never the system prompt) up to the point that
  leaves at the tail the fewest events any reason asks for: ``max_size // 2 - keep_first -
  1`` for size, ``len(view) // 2 - keep_first - 1`` for a request, and for tokens as many as
  can stay once the prefix after ``keep_first`` that weighs more than ``tokens - limit // 2``
  is gone. Both ends move forward to the next safe cut (`safe_cuts`: no action batch split,
  no call separated from its result, no thinking tool loop cut).
- The forgotten events are summarised by the condenser's own LLM (its own ``usage_id``, so
  its cost is listed apart in ``conversation_stats``) and recorded as a ``Condensation``
  (forgotten ids, summary, ``summary_offset`` = where the kept prefix ends). The step ends
  there; the next step sends the condensed view, which is what ``trajkit convert --view
  condensed`` rebuilds from the files, and what a restored conversation continues from.
- No safe range, too little to forget (under ``minimum_progress`` of the view) or a failed
  summarising call: for the size rule alone, no condensation this step; for a request or
  the token limit, a hard reset: everything after the system prompt is summarised, each
  event's text cut shorter after each failure (``hard_context_reset_*``), and
  `NoCondensationAvailable` when every attempt failed.

The summarising prompt is trajkit's own wording.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trajkit.events import (
    ActionEvent,
    Condensation,
    LLMConvertibleEvent,
    Message,
    SystemPromptEvent,
    TextContent,
)
from trajkit.events.tool_events import ObservationBaseEvent
from trajkit.sdk.context.view import View
from trajkit.sdk.llm import LLM, LLMError

__all__ = [
    "CONDENSERS",
    "Condenser",
    "LLMSummarizingCondenser",
    "NoCondensationAvailable",
    "NoCondensationAvailableException",
    "NoOpCondenser",
    "PipelineCondenser",
    "safe_cuts",
    "view_tokens",
]

SUMMARY_INSTRUCTIONS = """You maintain the memory of a software agent whose history has grown \
too long. You receive the part of the history that will be removed. Write a summary the agent \
can continue from: the user's goal and constraints, what was done and found (files, commands, \
results, errors), decisions taken, and what is left to do. Keep names, paths and numbers \
exactly; leave out chatter. Answer with the summary only."""
EVENT_CHARS = 4000
"""Each forgotten event is cut to this many characters in the summarising request."""


class NoCondensationAvailable(Exception):
    """No condensation can be made: no safe range to forget, or the summary failed."""


NoCondensationAvailableException = NoCondensationAvailable
"""The SDK's name."""


def safe_cuts(view: Sequence[LLMConvertibleEvent]) -> list[int]:
    """Indices ``i`` where the view may be cut (``view[:i]`` / ``view[i:]``), in order: not
    inside a batch of actions from one response, not between an action and its result (a
    call id is open from its first action to its next result), not inside a tool loop that
    started with thinking blocks (the SDK's manipulation indices).
    """
    cuts = set(range(len(view) + 1))
    pending: set[str] = set()
    in_loop = False
    for i, e in enumerate(view):
        if (
            i > 0
            and isinstance(e, ActionEvent)
            and isinstance(view[i - 1], ActionEvent)
            and view[i - 1].llm_response_id == e.llm_response_id  # type: ignore[attr-defined]
        ):
            cuts.discard(i)
        if isinstance(e, ActionEvent):
            pending.add(e.tool_call_id)
        elif isinstance(e, ObservationBaseEvent):
            pending.discard(e.tool_call_id)
        if pending:
            cuts.discard(i + 1)
        if isinstance(e, ActionEvent) and e.thinking_blocks:
            in_loop = True
        elif isinstance(e, ActionEvent | ObservationBaseEvent):
            if in_loop:
                cuts.discard(i)
        else:
            in_loop = False
    return sorted(cuts)


def _next_cut(cuts: Sequence[int], i: int) -> int | None:
    """The first cut at or after ``i``; None when there is none."""
    return next((c for c in cuts if c >= i), None)


def _system_index(events: Sequence[LLMConvertibleEvent]) -> int | None:
    return next((i for i, e in enumerate(events) if isinstance(e, SystemPromptEvent)), None)


def view_tokens(events: Sequence[LLMConvertibleEvent], llm: LLM) -> int:
    """Tokens the events take as ``llm``'s request, with the tools of the view's system
    prompt (the SDK's count for token-based condensing).
    """
    from trajkit.convert import events_to_messages

    tools = next((e.tools for e in events if isinstance(e, SystemPromptEvent)), None)
    return llm.get_token_count(events_to_messages(list(events)), tools=tools or None)


def describe_event(event: LLMConvertibleEvent, limit: int = EVENT_CHARS) -> str:
    """One forgotten event as plain text for the summarising request, cut to ``limit``."""
    message = event.to_llm_message()
    parts = [f"[{event.kind} from {event.source}]"]
    for c in message.content:
        if isinstance(c, TextContent) and c.text:
            parts.append(c.text)
    for call in message.tool_calls or []:
        parts.append(f"calls {call.name}({call.arguments})")
    text = "\n".join(parts)
    return text if len(text) <= limit else text[:limit] + " [...]"


class LLMSummarizingCondenser(BaseModel):
    """Summarise the middle of the history with an LLM when it grows past ``max_size``."""

    model_config = ConfigDict(extra="ignore", use_attribute_docstrings=True)

    llm: LLM
    """The summarising LLM (give it its own ``usage_id``)."""
    max_size: int = Field(default=240, gt=0)
    """Events in the view above which it condenses."""
    max_tokens: int | None = Field(default=None, gt=0)
    """Tokens of the view (the agent LLM's count, tools included) above which it condenses;
    the agent LLM's context window (``effective_max_input_tokens``) caps it."""
    keep_first: int = Field(default=2, ge=0)
    """Events at the start that are never forgotten."""
    minimum_progress: float = Field(default=0.1, gt=0.0, lt=1.0)
    """Smallest share of the view worth condensing."""
    hard_context_reset_max_retries: int = Field(default=5, gt=0)
    """Attempts at summarising everything when a needed condensation finds no safe cut."""
    hard_context_reset_context_scaling: float = Field(default=0.8, gt=0.0, lt=1.0)
    """Shrink factor of each event's text between those attempts."""
    kind: Literal["LLMSummarizingCondenser"] = "LLMSummarizingCondenser"
    """Condenser class name."""

    @model_validator(mode="after")
    def _room_to_condense(self) -> LLMSummarizingCondenser:
        if self.max_size // 2 - self.keep_first - 1 <= 0:
            raise ValueError(
                f"keep_first ({self.keep_first}) must be less than max_size // 2 - 1 "
                f"({self.max_size // 2 - 1}) to leave room for condensation"
            )
        return self

    def handles_condensation_requests(self) -> bool:
        """Whether ``conversation.condense()`` can use it (always)."""
        return True

    def llms(self) -> list[LLM]:
        """Its summarising LLM."""
        return [self.llm]

    def condense(self, view: View, agent_llm: LLM | None = None) -> Condensation | None:
        """The condensation this step needs, or None (see the module docstring).

        Raises:
            NoCondensationAvailable: a condensation is needed (requested, or the tokens are
                over the limit) and not even summarising everything worked.
        """
        events = view.events
        requested = view.unhandled_condensation_request
        over_size = len(events) > self.max_size
        limit = self._token_limit(agent_llm)
        tokens = None
        if limit is not None and agent_llm is not None:
            tokens = view_tokens(events, agent_llm)
        over_tokens = tokens is not None and limit is not None and tokens > limit
        if not (requested or over_size or over_tokens):
            return None
        tails = []
        if requested:
            tails.append(len(events) // 2 - self.keep_first - 1)
        if over_size:
            tails.append(self.max_size // 2 - self.keep_first - 1)
        if over_tokens:
            assert agent_llm is not None and tokens is not None and limit is not None
            tails.append(self._tail_for_tokens(events, agent_llm, tokens - limit // 2, tokens))
        try:
            forgotten, offset = self._forgotten(events, min(tails))
            return self._summarise(forgotten, offset)
        except NoCondensationAvailable:
            if not (requested or over_tokens):  # only the size rule: try again later
                return None
            return self._hard_reset(events)

    def _token_limit(self, agent_llm: LLM | None) -> int | None:
        limits = [self.max_tokens, agent_llm.effective_max_input_tokens if agent_llm else None]
        present = [n for n in limits if n is not None]
        return min(present) if present else None

    def _tail_for_tokens(
        self, events: Sequence[LLMConvertibleEvent], llm: LLM, reduction: int, total: int
    ) -> int:
        """How many events at the end can stay when the part after ``keep_first`` loses at
        least ``reduction`` tokens (the shortest prefix of it that weighs more goes); ``total``
        is what all of ``events`` weigh (``view_tokens``, counted by the caller).
        """
        base, rest = list(events[: self.keep_first]), list(events[self.keep_first :])
        if not rest or reduction <= 0:
            return len(rest)
        base_tokens = view_tokens(base, llm) if base else 0

        def weight(n: int) -> int:
            return view_tokens([*base, *rest[:n]], llm) - base_tokens

        if total - base_tokens <= reduction:  # weight(len(rest)): all of rest is not enough
            return 0
        low, high = 1, len(rest)
        while low < high:  # the shortest prefix weighing more than the reduction
            mid = (low + high) // 2
            if weight(mid) > reduction:
                high = mid
            else:
                low = mid + 1
        return len(rest) - low

    def _forgotten(
        self, events: Sequence[LLMConvertibleEvent], keep_tail: int
    ) -> tuple[list[LLMConvertibleEvent], int]:
        prefix = self.keep_first
        system = _system_index(events)
        if system is not None:
            prefix = max(prefix, system + 1)  # the system prompt is never forgotten
        cuts = safe_cuts(events)
        start = _next_cut(cuts, prefix)
        end = _next_cut(cuts, len(events) - keep_tail)
        if start is None or end is None:
            raise NoCondensationAvailable("no safe cut in the range to forget")
        forgotten = list(events[start:end])
        if not forgotten:
            raise NoCondensationAvailable("nothing to forget between the safe cuts")
        if len(forgotten) < len(events) * self.minimum_progress:
            raise NoCondensationAvailable("too little to forget to be worth a summary")
        return forgotten, start

    def _hard_reset(self, events: Sequence[LLMConvertibleEvent]) -> Condensation:
        """Summarise everything after the system prompt, cutting each event's text shorter
        after each failed attempt (``hard_context_reset_*``).
        """
        system = _system_index(events)
        start = system + 1 if system is not None else 0
        forgotten = list(events[start:])
        if not forgotten:
            raise NoCondensationAvailable("nothing after the system prompt to summarise")
        limit = EVENT_CHARS
        last: Exception | None = None
        longest: int | None = None  # the longest event's text, counted at the first failure
        for _ in range(self.hard_context_reset_max_retries):
            try:
                return self._summarise(forgotten, start, limit)
            except NoCondensationAvailable as e:
                last = e
                if longest is None:
                    longest = max(len(describe_event(ev, EVENT_CHARS)) for ev in forgotten)
                limit = max(1, int(min(limit, longest) * self.hard_context_reset_context_scaling))
        raise NoCondensationAvailable(f"summarising the whole history failed: {last}")

    def _summarise(
        self, forgotten: list[LLMConvertibleEvent], offset: int, limit: int = EVENT_CHARS
    ) -> Condensation:
        """The summarising call; its failure is `NoCondensationAvailable` (SDK)."""
        events = "\n\n".join(describe_event(e, limit) for e in forgotten)
        messages = [
            Message(role="system", content=[TextContent(text=SUMMARY_INSTRUCTIONS)]),
            Message(role="user", content=[TextContent(text=f"History to summarise:\n\n{events}")]),
        ]
        try:
            response = self.llm.call(messages)
        except LLMError as e:
            raise NoCondensationAvailable(f"the summarising call failed: {e}") from e
        return Condensation(
            forgotten_event_ids=[e.id for e in forgotten],
            summary=response.message.text or None,  # a model answer: one text part at most
            summary_offset=offset,
            llm_response_id=response.id,
        )


class NoOpCondenser(BaseModel):
    """Leaves the view as it is (the SDK's ``NoOpCondenser``, mostly for tests)."""

    model_config = ConfigDict(extra="ignore")

    kind: Literal["NoOpCondenser"] = "NoOpCondenser"
    """Condenser class name."""

    def handles_condensation_requests(self) -> bool:
        """Never: ``conversation.condense()`` refuses it."""
        return False

    def condense(self, view: View, agent_llm: LLM | None = None) -> Condensation | None:
        """Nothing to do."""
        del view, agent_llm
        return None

    def llms(self) -> list[LLM]:
        return []


class PipelineCondenser(BaseModel):
    """Condensers tried in order; the first that condenses wins (the SDK's
    ``PipelineCondenser``: trajkit's condensers leave the view whole or condense it).
    """

    model_config = ConfigDict(extra="ignore")

    condensers: list[LLMSummarizingCondenser | NoOpCondenser | PipelineCondenser]
    """The condensers, in order."""
    kind: Literal["PipelineCondenser"] = "PipelineCondenser"
    """Condenser class name."""

    def handles_condensation_requests(self) -> bool:
        """When one of its condensers does."""
        return any(c.handles_condensation_requests() for c in self.condensers)

    def condense(self, view: View, agent_llm: LLM | None = None) -> Condensation | None:
        """The first condensation one of the condensers makes, or None."""
        for condenser in self.condensers:
            result = condenser.condense(view, agent_llm=agent_llm)
            if result is not None:
                return result
        return None

    def llms(self) -> list[LLM]:
        """The summarising LLMs of its condensers."""
        return [llm for c in self.condensers for llm in c.llms()]


Condenser = LLMSummarizingCondenser | NoOpCondenser | PipelineCondenser
"""The condensers trajkit runs."""
CONDENSERS = (LLMSummarizingCondenser, NoOpCondenser, PipelineCondenser)
