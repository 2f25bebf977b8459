"""Conversation operations beside the run: fork, side questions and titles (the SDK's
``fork()``, ``ask_agent()`` and ``generate_title()``).

- `fork_conversation`: a new conversation id whose folder (beside the source's) starts
  with a copy of every event (same ids, so the fork's history reads as the source's), the
  same HEAD, activated skills and agent state; status ``idle``; its LLM costs start at zero
  unless ``reset_metrics=False``. The source is not touched. ``from_event_id`` copies only
  the branch up to that event and moves the fork's HEAD there.
- `ask_agent`: one call to a copy of the agent's LLM (``usage_id="ask-agent-llm"``, listed in
  the stats) with the conversation's next request (its view with the properties enforced,
  `ConversationState.enforced_view_snapshot`) plus the question; nothing is added to the
  history and the status is unchanged.
- `generate_title`: a short title from the first user message by an LLM (the agent's unless
  one is given), or the message itself cut to ``max_length`` when the call fails.

The prompts are trajkit's own wording.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajkit.events import Event, Message, MessageEvent, TextContent
from trajkit.sdk.llm import LLM, LLMError
from trajkit.sdk.llm.options import call_context
from trajkit.sdk.logger import get_logger

if TYPE_CHECKING:  # the conversation calls these functions: named for the type checker only
    from trajkit.sdk.conversation.local import Conversation

__all__ = ["ASK_AGENT_USAGE_ID", "ask_agent", "fork_conversation", "generate_title"]

logger = get_logger("trajkit.sdk.conversation")

ASK_AGENT_USAGE_ID = "ask-agent-llm"
ASK_TEMPLATE = (
    "Answer this side question from what you know of the conversation so far. Do not call "
    "tools and do not continue the task; just answer.\n\nQuestion: {question}"
)
TITLE_INSTRUCTIONS = (
    "You name conversations. Give a short title of at most {max_length} characters that says "
    "what the user wants. Answer with the title only, no quotes."
)


def fork_conversation(
    source: Conversation,
    *,
    conversation_id: uuid.UUID | str | None = None,
    agent: Any = None,
    tags: dict[str, str] | None = None,
    reset_metrics: bool = True,
    from_event_id: str | None = None,
    visualizer: Any = None,
) -> Conversation:
    """A copy of ``source`` under a new id (see the module docstring)."""
    src = source.state
    with src:
        events: list[Event] = src.events
        leaf = src.leaf_event_id
        if from_event_id is not None:
            ids = {e.id for e in events}
            if from_event_id not in ids:
                raise ValueError(f"unknown from_event_id {from_event_id!r}")
            events = _path_to_root(events, from_event_id)
            leaf = from_event_id
        base_agent = agent if agent is not None else source.agent
        fork_agent = type(base_agent).model_validate(
            base_agent.model_dump(context={"expose_secrets": True})
        )
        folder = Path(src.persistence_dir) if src.persistence_dir is not None else None
        fork = type(source)(
            agent=fork_agent,
            workspace=source.workspace.working_dir,
            persistence_dir=folder.parent if folder is not None else None,
            conversation_id=conversation_id or uuid.uuid4(),
            max_iteration_per_run=source.max_iteration_per_run,
            stuck_detection=src.stuck_detection,
            visualizer=visualizer,
            tags=tags,
            cipher=source._cipher,
        )
        state = fork.state
        with state:
            for event in events:
                if fork._writer is not None:
                    fork._writer.append(fork._for_disk(event))
                state.append_event(event)
            state.leaf_event_id = leaf
            state.head_is_empty = src.head_is_empty if from_event_id is None else False
            state.last_user_message_id = src.last_user_message_id
            state.activated_knowledge_skills = list(src.activated_knowledge_skills)
            state.activated_path_rules = list(src.activated_path_rules)
            state.agent_state = dict(src.agent_state)
            state.secret_registry = src.secret_registry.model_copy(deep=True)
            if not reset_metrics:
                for llm in fork.agent.llms():
                    old = src.stats.usage_to_metrics.get(llm.usage_id)
                    if old is not None:
                        llm.restore_metrics(old.model_copy(deep=True))
                        state.stats.usage_to_metrics[llm.usage_id] = llm.metrics
            state.rebuild_view()  # copied events: enforced, as on a cold load (SDK)
    return fork


def _path_to_root(events: list[Event], leaf: str) -> list[Event]:
    from trajkit.convert import active_branch

    return active_branch(events, leaf_event_id=leaf, head_is_empty=False)


def ask_agent(conversation: Conversation, question: str) -> str:
    """The model's answer to ``question`` in the conversation's context; nothing is recorded.

    Raises:
        trajkit.sdk.llm.LLMError: the call failed.
        ValueError: the model answered without text.
    """
    from trajkit.convert import events_to_messages

    conversation._ensure_started()
    state = conversation.state
    llm = conversation._side_llms.get(ASK_AGENT_USAGE_ID)
    if llm is None:
        llm = conversation.agent.llm.model_copy(update={"usage_id": ASK_AGENT_USAGE_ID})
        conversation._side_llms[ASK_AGENT_USAGE_ID] = llm
        # listed in the live stats; written with the next save, as the SDK does
        state.stats.usage_to_metrics[ASK_AGENT_USAGE_ID] = llm.metrics
    with state:  # the view with its properties enforced, as the SDK's ask_agent sends
        messages = events_to_messages(state.enforced_view_snapshot().events)
    messages.append(
        Message(role="user", content=[TextContent(text=ASK_TEMPLATE.format(question=question))])
    )
    with call_context(str(conversation.id)):
        response = llm.call(messages, list(conversation.tools.values()))
    text = response.message.text  # a model answer has one text part at most
    if not text:
        raise ValueError("the model answered the question without text")
    return text


def first_user_text(events: list[Event]) -> str | None:
    """Text of the first user message, or None."""
    for e in events:
        if isinstance(e, MessageEvent) and e.source == "user":
            text = "".join(c.text for c in e.llm_message.content if isinstance(c, TextContent))
            if text.strip():
                return text
    return None


def fallback_title(message: str, max_length: int) -> str:
    """The message itself, cut to ``max_length`` with ``...``."""
    title = message.strip()
    return title if len(title) <= max_length else title[: max_length - 3] + "..."


def generate_title(conversation: Conversation, llm: LLM | None = None, max_length: int = 50) -> str:
    """A title for the conversation (see the module docstring).

    Raises:
        ValueError: the conversation has no user message.
    """
    message = first_user_text(conversation._branch())
    if message is None:
        raise ValueError("no user message to make a title from")
    model = llm or conversation.agent.llm
    messages = [
        Message(
            role="system",
            content=[TextContent(text=TITLE_INSTRUCTIONS.format(max_length=max_length))],
        ),
        Message(role="user", content=[TextContent(text=f"First message:\n{message[:1000]}")]),
    ]
    try:
        with call_context(str(conversation.id)):
            title = model.call(messages).message.text.strip().strip("\"'")
    except LLMError as e:
        logger.warning("title generation failed, using the message: %s", e)
        title = ""
    return fallback_title(title or message, max_length)
