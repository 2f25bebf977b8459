"""``ConversationState``: what ``base_state.json`` holds, saved on every public field change.

The fields, their order and defaults are the SDK's ``ConversationState`` (v1-format section 2),
so the file loads in the SDK and in ``trajkit.events.state.BaseState``.

Autosave: assigning a public field (``state.execution_status = "paused"``) rewrites
``base_state.json`` at once through `trajkit.store.ConversationWriter.save_base_state`, which
replaces the file atomically (temp file, fsync, rename, fsync folder). Inside ``with state:``
the saves are batched into one at the end of the outermost block. Changing a list or dict in
place does not save by itself (as in the SDK): reassign it, e.g.
``state.agent_state = {**state.agent_state, "k": v}``. The LLM metrics in ``stats`` are live
objects and are written with every save.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, SerializeAsAny

from trajkit.errors import InputError, WriteFailed
from trajkit.events import (
    ActionEvent,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    Event,
    MessageEvent,
)
from trajkit.events.base import ROOT_PARENT
from trajkit.events.state import EXECUTION_STATUSES
from trajkit.recovery import head_after_crash, unanswered_calls
from trajkit.redact import SecretMasker, mask_secret_query
from trajkit.sdk.agent import Agent
from trajkit.sdk.context.view import View
from trajkit.sdk.conversation.fifo_lock import FIFOLock
from trajkit.sdk.llm import llm_secret_values
from trajkit.sdk.logger import get_logger
from trajkit.sdk.metrics import ConversationStats
from trajkit.sdk.secret.secrets import Cipher, SecretRegistry
from trajkit.sdk.security.analyzers import SecurityAnalyzerBase
from trajkit.sdk.security.confirmation_policy import ConfirmationPolicy, NeverConfirm
from trajkit.sdk.security.llm_analyzer import parse_security_analyzer
from trajkit.store.layout import BASE_STATE
from trajkit.store.persistence import read_events, read_state_object

if TYPE_CHECKING:
    from trajkit.store import ConversationWriter

__all__ = ["ConversationExecutionStatus", "ConversationState", "LocalWorkspace"]

logger = get_logger(__name__)


class ConversationExecutionStatus(str, Enum):  # noqa: UP042 (prints as the SDK's: Class.NAME)
    """Where a conversation's run stands (equal to its value; printed as
    ``ConversationExecutionStatus.PAUSED``, as the SDK's prints).

    The values are ``trajkit.events.state.EXECUTION_STATUSES``, the one list, in its order;
    only the member names are written here (mypy reads them from the class body). A status
    added to that list without a name here fails at import (too many values to unpack).
    """

    (
        IDLE,
        RUNNING,
        PAUSED,
        WAITING_FOR_CONFIRMATION,
        FINISHED,
        ERROR,
        STUCK,
        DELETING,
    ) = EXECUTION_STATUSES


class LocalWorkspace(BaseModel):
    """The folder the agent works in."""

    model_config = ConfigDict(extra="ignore", use_attribute_docstrings=True)

    working_dir: str
    """Absolute path of the workspace."""
    kind: Literal["LocalWorkspace"] = "LocalWorkspace"
    """Workspace class name."""


_MISSING = object()
_E = TypeVar("_E", bound=Event)


class ConversationState(BaseModel):
    """The persisted state of one conversation (everything but the events)."""

    model_config = ConfigDict(extra="ignore", use_attribute_docstrings=True)

    id: uuid.UUID
    """Conversation id (the folder name is its hex form)."""
    agent: Agent
    """The agent configuration (secrets masked on disk)."""
    workspace: LocalWorkspace
    """The workspace."""
    persistence_dir: str | None = None
    """The conversation folder ``<persistence_dir>/<id hex>``; None: kept in memory."""
    max_iterations: int = Field(default=500, gt=0)
    """Agent steps allowed per run."""
    stuck_detection: bool = True
    """Stop runs that repeat themselves."""
    execution_status: ConversationExecutionStatus = ConversationExecutionStatus.IDLE
    """idle, running, paused, waiting_for_confirmation, finished, error or stuck."""
    confirmation_policy: ConfirmationPolicy = Field(default_factory=NeverConfirm)
    """When actions need confirmation (NeverConfirm, AlwaysConfirm, ConfirmRisky)."""
    security_analyzer: Annotated[
        SerializeAsAny[SecurityAnalyzerBase] | dict[str, Any] | None,
        BeforeValidator(lambda v: parse_security_analyzer(v) or v),
    ] = None
    """Security analyzer (``LLMSecurityAnalyzer``, the local ones of ``security.analyzers``;
    other kinds are kept as given)."""
    activated_knowledge_skills: list[str] = Field(default_factory=list)
    """Knowledge skills already triggered."""
    activated_path_rules: list[str] = Field(default_factory=list)
    """Path rules already injected."""
    invoked_skills: list[str] = Field(default_factory=list)
    """Skills invoked through ``invoke_skill``."""
    blocked_actions: dict[str, str] = Field(default_factory=dict)
    """Action id to block reason."""
    blocked_messages: dict[str, str] = Field(default_factory=dict)
    """Message id to block reason."""
    last_user_message_id: str | None = None
    """Id of the last user message."""
    leaf_event_id: str | None = None
    """HEAD of the event tree: parent of the next event."""
    head_is_empty: bool = False
    """HEAD deliberately emptied."""
    stats: ConversationStats = Field(default_factory=ConversationStats)
    """LLM usage metrics by usage id."""
    secret_registry: SecretRegistry = Field(default_factory=SecretRegistry)
    """Secret sources (values encrypted with the cipher, else masked, on disk)."""
    tags: dict[str, str] = Field(default_factory=dict)
    """Tags."""
    agent_state: dict[str, Any] = Field(default_factory=dict)
    """Free-form runtime state for agents."""
    hook_config: dict[str, Any] | None = None
    """Hooks."""

    _writer: ConversationWriter | None = PrivateAttr(default=None)
    _autosave: bool = PrivateAttr(default=False)
    _depth: int = PrivateAttr(default=0)
    _dirty: bool = PrivateAttr(default=False)
    _lock: Any = PrivateAttr(
        default_factory=FIFOLock
    )  # fair: see trajkit.sdk.conversation.fifo_lock
    _events: list[Event] = PrivateAttr(default_factory=list)
    _iteration: int = PrivateAttr(default=0)
    _cipher: Cipher | None = PrivateAttr(default=None)
    # The view of the active branch (trajkit.sdk.context.view): brought up to date live as
    # events are appended; rebuilt with the properties enforced only by rebuild_view().
    # _view_leaf is the leaf it reflects; _ids indexes _events (first occurrence of an id).
    _view: View = PrivateAttr(default_factory=View)
    _view_leaf: str | None = PrivateAttr(default=None)
    _ids: dict[str, int] = PrivateAttr(default_factory=dict)
    _ids_log: list[Event] | None = PrivateAttr(default=None)
    _ids_done: int = PrivateAttr(default=0)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_") or name not in type(self).model_fields:
            super().__setattr__(name, value)
            return
        if name == "execution_status" and isinstance(value, str):
            value = ConversationExecutionStatus(value)
        old = getattr(self, name, _MISSING)
        super().__setattr__(name, value)
        if self._autosave and (old is _MISSING or old != value):
            self._changed()

    def __enter__(self) -> ConversationState:
        self._lock.acquire()
        self._depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._depth -= 1
            if self._depth == 0 and self._dirty:
                self._dirty = False
                self.save()
        finally:
            self._lock.release()

    def _changed(self) -> None:
        if self._depth > 0:
            self._dirty = True
        else:
            self.save()

    @classmethod
    def create(
        cls,
        *,
        id: uuid.UUID,  # noqa: A002 (the field's name)
        agent: Agent,
        workspace: LocalWorkspace,
        folder: Path | None,
        writer: ConversationWriter | None,
        max_iterations: int = 500,
        stuck_detection: bool = True,
        cipher: Cipher | None = None,
    ) -> ConversationState:
        """The state of conversation ``id``, saved through ``writer`` from here on.

        Restored when ``folder`` holds a ``base_state.json`` (the SDK's ``create``): the id
        must match, the agent must be compatible (`Agent.verify`), secret fields are decrypted
        with ``cipher``, the HEAD is moved over events written after the last save, the
        iteration count is rebuilt and a conversation left ``running`` comes back as
        ``error``. Otherwise new, adopting events already in ``folder`` as the SDK does.
        ``folder=None``: kept in memory only.
        """
        data = read_state_object(folder) if folder is not None else None
        where = str(folder) if folder is not None else None
        if data is None:
            state = cls(
                id=id,
                agent=agent,
                workspace=workspace,
                persistence_dir=where,
                max_iterations=max_iterations,
                stuck_detection=stuck_detection,
            )
        else:
            assert folder is not None
            agent.verify(_checked_state(folder / BASE_STATE, data, id))
            data.update(
                agent=agent,
                workspace=workspace,
                persistence_dir=where,
                max_iterations=max_iterations,
            )
            state = cls.model_validate(data, context={"cipher": cipher})
        state._events = read_events(folder) if folder is not None else []
        # bound to the folder writer (None: in memory); autosave on from here
        state._writer, state._cipher, state._autosave = writer, cipher, True
        if data is None:
            if writer is not None:
                # events/ before the first base-state save: a crash in between must not
                # leave a base_state.json without its events/ folder (validate rejects it)
                writer.create()
            return state
        with state:
            state._move_head_forward()
            state._iteration = _steps_since_user_message(state._events)
            if state.execution_status == ConversationExecutionStatus.RUNNING:
                state.execution_status = ConversationExecutionStatus.ERROR  # died in run()
        # Cold load: the view is rebuilt with its properties enforced (the files may come
        # from another version, or a crash), as the SDK does; from here on it is kept live.
        state.rebuild_view()
        return state

    def _move_head_forward(self) -> None:
        """After a crash between an event write and the base-state save, the HEAD lags: move
        it as `trajkit.recovery.head_after_crash` says (the rule `trajkit repair` applies).
        """
        move = head_after_crash(self._events, self.leaf_event_id)
        if move.reason is not None:
            logger.warning("conversation %s: %s; moving it to %s", self.id, move.reason, move.head)
            self.leaf_event_id = move.head

    # -- the event log ---------------------------------------------------------------
    def with_parent(self, event: Event) -> Event:
        """``event`` chained to the HEAD: its ``parent_id`` set when it has none (a new root
        after the HEAD was emptied).
        """
        if event.parent_id is not None:
            return event
        if self.leaf_event_id is not None:
            return event.model_copy(update={"parent_id": self.leaf_event_id})
        if self.head_is_empty and self._events:
            # a new root after navigate_to(None), not a legacy event chained to the last
            return event.model_copy(update={"parent_id": ROOT_PARENT})
        return event

    def append_event(self, event: Event) -> None:
        """Add an event (already written) to the log and move the HEAD to it; a state update
        leaves the HEAD where it is, a user message becomes the last user message.
        """
        with self._lock:
            self._events.append(event)
            if not isinstance(event, ConversationStateUpdateEvent):
                self.leaf_event_id = event.id
                self.head_is_empty = False
            if isinstance(event, MessageEvent) and event.source == "user":
                self.last_user_message_id = event.id

    def has_event(self, event_id: str) -> bool:
        """Whether the log holds an event with this id."""
        with self._lock:
            return event_id in self._index()

    def event_by_id(self, event_id: str) -> Event | None:
        """The event of the log with this id, or None."""
        with self._lock:
            i = self._index().get(event_id)
            return None if i is None else self._events[i]

    # -- what hooks blocked (the SDK's methods; saved with the state) ------------------
    def block_action(self, action_id: str, reason: str) -> None:
        self.blocked_actions = {**self.blocked_actions, action_id: reason}

    def pop_blocked_action(self, action_id: str) -> str | None:
        """Why a hook blocked this action (forgetting it), or None when none did."""
        if action_id not in self.blocked_actions:
            return None
        rest = dict(self.blocked_actions)
        reason = rest.pop(action_id)
        self.blocked_actions = rest
        return reason

    def block_message(self, message_id: str, reason: str) -> None:
        self.blocked_messages = {**self.blocked_messages, message_id: reason}

    def pop_blocked_message(self, message_id: str) -> str | None:
        """Why a hook blocked this user message (forgetting it), or None when none did."""
        if message_id not in self.blocked_messages:
            return None
        rest = dict(self.blocked_messages)
        reason = rest.pop(message_id)
        self.blocked_messages = rest
        return reason

    def first_event(self, kind: type[_E]) -> _E | None:
        """The first event of the log that is a ``kind``, or None."""
        with self._lock:
            return next((e for e in self._events if isinstance(e, kind)), None)

    @staticmethod
    def get_unmatched_actions(events: Sequence[Event]) -> list[ActionEvent]:
        """The executable actions of ``events`` that no observation, rejection or error answers
        yet (those waiting for confirmation), in order.
        """
        return [e for e in unanswered_calls(events) if e.action is not None]

    def active_branch(self) -> list[Event]:
        """The events from the root to the HEAD (`trajkit.convert.active_branch`)."""
        from trajkit.convert import active_branch

        with self._lock:
            return active_branch(
                self._events, leaf_event_id=self.leaf_event_id, head_is_empty=self.head_is_empty
            )

    # -- runs ------------------------------------------------------------------------
    def begin_run(self) -> None:
        """A run starts: the iteration count goes back to zero."""
        self._iteration = 0

    def count_step(self) -> None:
        """One more agent step in this run."""
        self._iteration += 1

    def save(self) -> None:
        """Write ``base_state.json`` now (atomically)."""
        if self._writer is None:
            return
        with self._lock:
            try:
                self._writer.save_base_state(self.to_json())
            except OSError as exc:  # a full disk: base_state.json keeps its last whole version
                where = exc.filename or self._writer.folder / BASE_STATE
                raise WriteFailed(where, (exc.strerror or str(exc)).lower()) from None

    def to_json(self) -> str:
        """``base_state.json`` content: secret fields encrypted with the cipher, else masked;
        then every registered secret value and LLM credential found anywhere else (an MCP
        ``env`` value under a plain name, a URL) is hidden by value, and secret-looking URL
        query parameters (``base_url?api-key=...``) are masked (`trajkit.redact`).
        """
        text = self.model_dump_json(exclude_none=True, context={"cipher": self._cipher})
        return mask_secret_query(SecretMasker(self.secret_values()).text(text))

    def secret_values(self) -> list[str]:
        """What is hidden by value wherever the conversation writes or prints: the registered
        secrets' known values and the agent LLM's credentials.
        """
        return [*self.secret_registry.known_values(), *llm_secret_values(self.agent.llm)]

    # -- runtime views (not persisted) -----------------------------------------------
    @property
    def events(self) -> list[Event]:
        """Every event of the conversation, in log order (read-only view)."""
        return list(self._events)

    @property
    def view(self) -> View:
        """The view the next LLM request is made of (`trajkit.sdk.context.view`).

        Kept live, as the SDK's ``ConversationState.view``: when the HEAD has moved forward
        along the branch the view reflects, only the new events are appended (no property is
        enforced); when it has moved anywhere else, the view is rebuilt (enforced). Read it
        again after `rebuild_view`.
        """
        with self._lock:
            leaf = self.active_leaf()
            if leaf == self._view_leaf:
                return self._view
            tail = self._tail_after(self._view_leaf, leaf)
            if tail is None:  # another branch: rebuild once
                self._rebuild(leaf)
            else:
                for event in tail:
                    self._view.append_event(event)
                self._view_leaf = leaf
            return self._view

    def rebuild_view(self) -> None:
        """Rebuild the view from the active branch with the four view properties enforced
        (`trajkit.convert.condensed_view`): on restore, fork, navigation and recovery.
        """
        with self._lock:
            self._rebuild(self.active_leaf())

    def enforced_view_snapshot(self) -> View:
        """A separate copy of the view with the properties enforced on it (what the SDK's
        ``ask_agent`` sends); the conversation's own view is not changed. It never waits for a
        running step (which holds the state lock while its tools work): then it is the view
        that step sent, and an action still waiting for its result is left out, as the SDK's
        view leaves out a tool call without its result.
        """
        if self._lock.acquire(blocking=False):
            try:
                events = list(self.view.events)
            finally:
                self._lock.release()
        else:
            events = list(self._view.events)  # a copy of a list is atomic
        answered = {
            getattr(e, "tool_call_id", None) for e in events if not isinstance(e, ActionEvent)
        }
        return View.from_events(
            [e for e in events if not isinstance(e, ActionEvent) or e.tool_call_id in answered]
        )

    def active_leaf(self) -> str | None:
        """The HEAD: ``leaf_event_id``; none when ``head_is_empty``; else (a conversation
        written before the event tree) the last event that is not a state update or error.
        """
        if self.leaf_event_id is not None:
            return self.leaf_event_id
        if self.head_is_empty:
            return None
        for event in reversed(self._events):
            if not isinstance(event, ConversationStateUpdateEvent | ConversationErrorEvent):
                return event.id
        return None

    def _rebuild(self, leaf: str | None) -> None:
        self._view = View.from_events(self.active_branch())
        self._view_leaf = leaf

    def _tail_after(self, known: str | None, leaf: str | None) -> list[Event] | None:
        """The events from just after ``known`` to ``leaf``, oldest first, when ``known`` is
        on the path from ``leaf`` to the root (``None``: the root); else None.
        """
        ids = self._index()
        tail: list[Event] = []
        current = leaf
        while current is not None and current != known:
            i = ids.get(current)
            if i is None or len(tail) > len(self._events):  # unknown id or a loop
                return None
            event = self._events[i]
            tail.append(event)
            parent = event.parent_id
            if parent == ROOT_PARENT:
                current = None
            elif parent is not None:
                current = parent
            else:  # written before the event tree: the previous event is the parent
                current = self._events[i - 1].id if i > 0 else None
        if current != known:
            return None
        tail.reverse()
        return tail

    def _index(self) -> dict[str, int]:
        if self._ids_log is not self._events or self._ids_done > len(self._events):
            self._ids, self._ids_log, self._ids_done = {}, self._events, 0  # a new log
        for i in range(self._ids_done, len(self._events)):
            self._ids.setdefault(self._events[i].id, i)
        self._ids_done = len(self._events)
        return self._ids

    @property
    def iteration(self) -> int:
        """Agent steps taken in the current (or last) run."""
        return self._iteration

    @property
    def agent_status(self) -> ConversationExecutionStatus:
        """Old name of ``execution_status``."""
        return self.execution_status


def _checked_state(path: Path, data: dict[str, Any], expected: uuid.UUID) -> dict[str, Any]:
    """The persisted agent of a ``base_state.json`` whose id is ``expected``."""
    try:
        persisted_id = uuid.UUID(str(data.get("id")))
    except ValueError:
        raise InputError(path, "/id", f"expected a UUID, got {data.get('id')!r}") from None
    if persisted_id != expected:
        raise InputError(
            path,
            "/id",
            f"conversation id mismatch: file says {persisted_id}, asked for {expected}",
        )
    agent = data.get("agent")
    return agent if isinstance(agent, dict) else {}


def _steps_since_user_message(events: Sequence[Event]) -> int:
    """Agent steps (LLM responses) after the last user message: the iteration count."""
    responses: set[str] = set()
    for event in reversed(events):
        if isinstance(event, MessageEvent) and event.source == "user":
            break
        if isinstance(event, ActionEvent | MessageEvent) and event.source == "agent":
            responses.add(event.llm_response_id or event.id)
    return len(responses)
