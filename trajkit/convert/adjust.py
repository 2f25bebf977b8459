"""Message-list options applied before serialization: dangling calls, reasoning, system, images.

Dangling tool calls: an assistant tool call must be answered by one tool message, among the tool
messages that directly follow it, before any other message. A call left without an answer (a
crash, a max-iterations stop, an interrupt) is *dangling*; a tool message answering no open call
is an *orphan*. ``find_dangling`` reports both; ``fix_dangling`` then

- ``"report"``: changes nothing (the SDK's own projection; may be rejected by the API);
- ``"drop"``: removes the dangling calls (and an assistant message left with nothing to say) and
  the orphans;
- ``"synthesize"``: adds an error tool message for each dangling call, right after the results
  that follow its assistant message, and removes the orphans.

The rule is one incremental step, ``DanglingFixer``: given the call ids answered and called
anywhere (``call_ids``), it takes one message at a time; ``fix_dangling`` is ``list()`` over it
and ``convert.stream`` feeds it a conversation it never holds. ``message_options`` is the other
options (reasoning, system, images) as one function of one message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from trajkit.convert.options import ConversionOptions, DanglingPolicy
from trajkit.events import ImageContent, Message, TextContent

__all__ = [
    "IMAGE_PLACEHOLDER",
    "SYNTHETIC_RESULT",
    "DanglingCall",
    "DanglingFixer",
    "DanglingPolicy",
    "call_ids",
    "find_dangling",
    "fix_dangling",
    "message_options",
    "synthetic_result",
]


SYNTHETIC_RESULT = (
    "Error: no result was recorded for this tool call; the conversation stopped or was "
    "interrupted before the tool finished."
)
"""Text of the tool message ``fix_dangling(..., "synthesize")`` adds."""

IMAGE_PLACEHOLDER = "[image]"
"""Text that replaces each image URL with ``images="placeholder"``."""


@dataclass(frozen=True)
class DanglingCall:
    """A tool call without its result, or a result without its call."""

    tool_call_id: str
    """The call id."""
    name: str
    """The tool name."""
    message_index: int
    """Index of the assistant message (or of the orphan tool message) in the input list."""
    orphan: bool = False
    """True for a tool result that answers no open call."""

    def describe(self) -> str:
        """One line for a report."""
        what = (
            "tool result without a matching call" if self.orphan else "tool call without a result"
        )
        return f"{what}: {self.name} (id {self.tool_call_id}, message {self.message_index})"


def call_ids(messages: Iterable[Message]) -> tuple[set[str], set[str]]:
    """``(answered, called)``: the call ids tool messages answer and assistant messages make.

    They decide what dangles the way the SDK's view pairs calls and results (its tool-call
    matching compares the sets of ids): a call whose id is answered somewhere, or a result
    whose id was called somewhere, is not reported even when the pair is not adjacent. Models
    that reuse ids across turns (`functions.bash:0` on every turn) then convert as the SDK
    sends them, with nothing dropped.
    """
    answered: set[str] = set()
    called: set[str] = set()
    for m in messages:
        if m.role == "tool" and m.tool_call_id:
            answered.add(m.tool_call_id)
        elif m.role == "assistant" and m.tool_calls:
            for tc in m.tool_calls:
                called.add(tc.id)
    return answered, called


def find_dangling(messages: Sequence[Message]) -> list[DanglingCall]:
    """Dangling calls and orphan results, in message order."""
    return fix_dangling(messages, "report")[1]


def fix_dangling(
    messages: Sequence[Message], policy: DanglingPolicy
) -> tuple[list[Message], list[DanglingCall]]:
    """Apply ``policy`` to the dangling calls; returns the messages and what was found."""
    out: list[Message] = []
    fixer = DanglingFixer(policy, *call_ids(messages), out.append)
    for m in messages:
        fixer.add(m)
    fixer.finish()
    return out, fixer.found


class DanglingFixer:
    """``fix_dangling`` one message at a time: ``add`` each, then ``finish``; messages go to
    ``emit`` when final (a synthesized result after the results that follow its call).

    ``answered`` and ``called`` are ``call_ids`` of all the messages; the caller may fill the
    sets after building the fixer, before the first message that needs them.
    """

    def __init__(
        self,
        policy: DanglingPolicy,
        answered: set[str],
        called: set[str],
        emit: Callable[[Message], object],
    ) -> None:
        self._policy = policy
        self._answered = answered
        self._called = called
        self._emit = emit
        self.found: list[DanglingCall] = []
        """Dangling calls and orphans seen so far, in message order."""
        self._pending: dict[str, tuple[str, int]] = {}  # calls of the open assistant message
        self._dangling: list[DanglingCall] = []  # of the open assistant message, reported later
        self._synth: list[Message] = []
        self._i = 0

    def add(self, m: Message) -> None:
        i = self._i
        self._i += 1
        if m.role == "tool":
            cid = m.tool_call_id
            if cid is not None and self._pending.pop(cid, None) is None and cid not in self._called:
                self.found.append(DanglingCall(cid, m.name or "", i, orphan=True))
                if self._policy != "report":
                    return
            self._emit(m)
            return
        self._close()
        if m.role == "assistant" and m.tool_calls:
            pending = self._pending = {}
            for tc in m.tool_calls:
                pending[tc.id] = (tc.name, i)
            answered = self._answered
            for cid, (name, idx) in pending.items():
                if cid not in answered:
                    self._dangling.append(DanglingCall(cid, name, idx))
            if self._dangling and self._policy == "drop":
                kept = _without_calls(m, {d.tool_call_id for d in self._dangling})
                if kept is not None:
                    self._emit(kept)
                return
            if self._policy == "synthesize":
                self._synth = [synthetic_result(d) for d in self._dangling]
        self._emit(m)

    def finish(self) -> None:
        """Hand on what is still held (the end of the messages)."""
        self._close()

    def _close(self) -> None:
        if self._pending:
            self._pending = {}
        if self._dangling:
            self.found.extend(self._dangling)
            self._dangling = []
        if self._synth:
            for s in self._synth:
                self._emit(s)
            self._synth = []


def synthetic_result(call: DanglingCall) -> Message:
    """The tool message ``--dangling synthesize`` answers an unanswered call with."""
    return Message(
        role="tool",
        content=[TextContent(text=SYNTHETIC_RESULT)],
        tool_call_id=call.tool_call_id,
        name=call.name,
    )


def _without_calls(m: Message, ids: set[str]) -> Message | None:
    calls = [tc for tc in m.tool_calls or () if tc.id not in ids]
    has_text = any(isinstance(c, TextContent) and c.text.strip() for c in m.content)
    if not calls and not has_text:
        return None
    return m.model_copy(update={"tool_calls": calls or None})


def message_options(options: ConversionOptions) -> Callable[[Message], Message | None] | None:
    """What ``options`` do to one message (None: left out), or None when they keep every
    message as it is: without ``reasoning`` no reasoning content, thinking blocks or Responses
    reasoning item; without ``system`` no system message; ``images="placeholder"`` replaces
    each image URL by an ``IMAGE_PLACEHOLDER`` text.
    """
    reasoning, system, placeholder = (
        options.reasoning,
        options.system,
        options.images == "placeholder",
    )
    if reasoning and system and not placeholder:
        return None

    def adjust(m: Message) -> Message | None:
        if not system and m.role == "system":
            return None
        if not reasoning and (
            m.reasoning_content or m.thinking_blocks or m.responses_reasoning_item
        ):
            m = m.model_copy(
                update={
                    "reasoning_content": None,
                    "thinking_blocks": [],
                    "responses_reasoning_item": None,
                }
            )
        if placeholder and any(isinstance(c, ImageContent) for c in m.content):
            content: list[TextContent | ImageContent] = []
            for c in m.content:
                if isinstance(c, ImageContent):
                    content.extend(TextContent(text=IMAGE_PLACEHOLDER) for _ in c.image_urls)
                else:
                    content.append(c)
            m = m.model_copy(update={"content": content})
        return m

    return adjust
