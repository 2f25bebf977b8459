"""``Conversation``: runs an agent, persists every event at once, restores from disk.

Where: ``<persistence_dir>/<conversation_id.hex>/``, holding ``base_state.json`` and
``events/event-NNNNN-<id>.json`` exactly as the OpenHands SDK lays them out, so either can read
the other's conversations (`trajkit.store.persistence` says which folder; the state opens it,
`ConversationState.create`). Without a ``persistence_dir`` the conversation is kept in memory
and nothing is written, as in the SDK (the task list too; the terminal's full outputs are not
saved).

Crash safety: each event is written as its own file, atomically (temp, fsync, rename, fsync
folder) under the SDK's ``events/.eventlog.lock``, *before* callbacks see it. The base state
(HEAD, status, metrics) is rewritten atomically after each event outside a run, and once per
agent step during a run (the SDK batches the same way), so a step costs one base-state write,
not one per event. A SIGKILL at any point leaves every completed event on disk and a whole
``base_state.json``. On restore:

- the HEAD is moved forward over events written after the last base-state save;
- an action that has no result (the process died while the tool ran) gets an
  ``AgentErrorEvent`` saying so, so the model never sees an unanswered call; a conversation
  persisted as ``running`` comes back as ``error`` and `Conversation.run` continues it;
- the agent class must match and tools may be added but not removed (SDK rule);
- the LLM's metrics are restored from ``stats``, so the accumulated cost keeps counting.

Everything else the state holds is restored too (v1-format §2):

- MCP servers of ``agent.mcp_config`` are started with the conversation (`trajkit.sdk.mcp`);
  one that fails is logged as a warning (nothing recorded, as the SDK) and the run goes on;
- secrets (``secrets=``, `Conversation.update_secrets`) reach the terminal for commands that
  name them and are hidden in every observation; on disk they are encrypted with ``cipher=``
  (a `trajkit.sdk.secret.secrets.Cipher`) or masked and then lost on restore;
- knowledge skills of ``agent.agent_context`` attach to the user message that triggers them,
  once (``activated_knowledge_skills``);
- a confirmation policy (`set_confirmation_policy`) stops before actions with status
  ``waiting_for_confirmation``; ``run()`` executes them, `reject_pending_actions` rejects them;
- stuck detection (`trajkit.sdk.conversation.stuck_detector`) sets status ``stuck``; the iteration count is
  rebuilt from the events.

What is written is what the SDK writes for the same script: status changes live in
``base_state.json`` only (no ``ConversationStateUpdateEvent`` files or callbacks; those are
the agent-server's), and the system prompt is emitted lazily, with the first message or run,
so secrets registered before then are announced to the model by name (never by value). A run
that fails on an error persists it (``ConversationErrorEvent``, status ``error``) and raises
`ConversationRunError` with the cause chained (`trajkit.sdk.llm.exceptions` names the LLM
failures as the SDK does).

Refused: a ``conversation_id`` that is not a UUID (it names the folder), a relative
``persistence_dir`` that climbs out of the current directory, a conversation folder that is a
link leading outside ``persistence_dir``, and a ``base_state.json`` or ``events/`` linking
outside the conversation folder (nothing is read or written through it). One live writer
process: the object holds the conversation's writer lock (`trajkit.store.writer_lock`) until
`close` or until it is garbage-collected; a second ``Conversation`` on the same id, in another
process or this one, fails with ``ConversationLockedError`` naming the pid.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import threading
import uuid
import weakref
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, wait
from pathlib import Path
from typing import Any, TypeVar

from trajkit.errors import UnsafePath, WriteFailed
from trajkit.events import (
    ActionEvent,
    CondensationRequest,
    ConversationErrorEvent,
    ErrorClassification,
    Event,
    FinishAction,
    HookExecutionEvent,
    InterruptEvent,
    Message,
    MessageEvent,
    PauseEvent,
    SystemPromptEvent,
    TextContent,
    ThinkAction,
    UserRejectObservation,
)
from trajkit.recovery import (
    RESTART_ERROR,
    interrupted_call_result,
    unanswered_calls,
)
from trajkit.redact import SecretMasker
from trajkit.sdk.agent import Agent
from trajkit.sdk.context.condenser import LLMSummarizingCondenser
from trajkit.sdk.conversation.base import BaseConversation
from trajkit.sdk.conversation.exceptions import ConversationRunError
from trajkit.sdk.conversation.extras import (
    ASK_AGENT_USAGE_ID,
    ask_agent,
    fork_conversation,
    generate_title,
)
from trajkit.sdk.conversation.state import (
    ConversationExecutionStatus,
    ConversationState,
    LocalWorkspace,
)
from trajkit.sdk.conversation.stuck_detector import (
    StuckDetector,
    StuckThresholds,
    detect_stuck,
    parse_stuck_thresholds,
)
from trajkit.sdk.conversation.visualizer import (
    ConversationVisualizerBase,
    DefaultConversationVisualizer,
)
from trajkit.sdk.hooks import HookConfig, HookEventProcessor
from trajkit.sdk.llm import (
    LLM,
    LLMError,
    LLMProfileStore,
    LLMRegistry,
    RegistryEvent,
)
from trajkit.sdk.llm._litellm import import_litellm
from trajkit.sdk.llm.options import call_context
from trajkit.sdk.llm.streaming import TokenCallbackType, token_callbacks
from trajkit.sdk.logger import get_logger, register_log_secrets
from trajkit.sdk.mcp import MCPTimeouts, MCPToolset
from trajkit.sdk.metrics import ConversationStats, Metrics
from trajkit.sdk.secret.secrets import Cipher, SecretValue, mask_data, secrets_prompt
from trajkit.sdk.security.analyzers import SecurityAnalyzerBase
from trajkit.sdk.security.confirmation_policy import (
    AlwaysConfirm,
    ConfirmRisky,
    NeverConfirm,
    parse_confirmation_policy,
)
from trajkit.sdk.tool import ClientToolSpec, RuntimeTool, ToolContext
from trajkit.sdk.tool.client_tool import client_tool_specs, saved_client_tools
from trajkit.store import ConversationWriter
from trajkit.store.persistence import conversation_folder, persistence_base, read_state_object
from trajkit.store.writer_lock import WriterLock, acquire_writer_lock

__all__ = ["RESTART_ERROR", "Conversation", "ConversationCallback"]

logger = get_logger(__name__)

ConversationCallback = Callable[[Event], None]
Status = ConversationExecutionStatus

DEFAULT_WORKSPACE = "workspace/project"
"""The SDK's default workspace (relative to the current directory)."""
_M = TypeVar("_M")
_R = TypeVar("_R")


class StepInterrupted(Exception):
    """`Conversation.interrupt` stopped the wait for a model call."""


class Conversation(BaseConversation):
    """An agent working in a workspace, persisted event by event."""

    state: ConversationState
    """The persisted state (``base_state.json``) and the event log."""

    def __init__(
        self,
        agent: Agent,
        callbacks: Sequence[ConversationCallback] | None = None,
        workspace: str | os.PathLike[str] | LocalWorkspace = DEFAULT_WORKSPACE,
        persistence_dir: str | os.PathLike[str] | None = None,
        conversation_id: uuid.UUID | str | None = None,
        max_iterations: int | None = None,
        stuck_detection: bool = True,
        *,
        max_iteration_per_run: int | None = None,
        secrets: Mapping[str, SecretValue] | None = None,
        cipher: Cipher | None = None,
        stuck_detection_thresholds: StuckThresholds | Mapping[str, int] | None = None,
        mcp_timeouts: MCPTimeouts | None = None,
        tags: Mapping[str, str] | None = None,
        visualizer: type[ConversationVisualizerBase]
        | ConversationVisualizerBase
        | None = DefaultConversationVisualizer,
        profile_store_dir: str | os.PathLike[str] | None = None,
        hook_config: HookConfig | None = None,
        token_callbacks: Sequence[TokenCallbackType] = (),
        client_tools: Sequence[ClientToolSpec] = (),
        **_: object,
    ) -> None:
        # Keyword arguments the SDK accepts for features trajkit does not have (plugins,
        # observability, token streaming) are ignored, as the SDK ignores unknown ones.
        # litellm takes seconds to import: pay it here, as the SDK pays it at import, so that a
        # script's timer (an interrupt after N seconds) starts after it, not before the call
        import_litellm()
        max_iterations = max_iteration_per_run or max_iterations or 500
        working_dir = _working_dir(workspace)
        cid = _conversation_id(conversation_id, persistence_dir)
        # No persistence_dir (or an empty one): kept in memory, nothing written (SDK)
        folder = (
            conversation_folder(persistence_base(persistence_dir), cid) if persistence_dir else None
        )
        agent = _with_client_tools(agent, client_tools, folder)
        # One live writer per conversation, for as long as this object lives (store.writer_lock)
        self._writer_lock = acquire_writer_lock(folder) if folder is not None else None
        self._profile_store_dir = profile_store_dir
        self._hook_config = hook_config
        self._token_callbacks = list(token_callbacks)
        self._hooks: HookEventProcessor | None = None
        try:
            self.agent = agent
            self.id = cid
            self.workspace = LocalWorkspace(working_dir=working_dir)
            """Where the agent works (the SDK's ``conversation.workspace``)."""
            self.max_iteration_per_run = max_iterations
            self._callbacks = list(callbacks or [])
            self._writer = ConversationWriter(folder) if folder is not None else None
            self._run_lock = threading.Lock()
            self._pause = threading.Event()
            self._pause_recorded = False
            self._interrupt = threading.Event()
            self._side_llms: dict[str, LLM] = {}
            self._llm_registry: LLMRegistry | None = None
            self._cipher = cipher
            self._stuck_thresholds = parse_stuck_thresholds(stuck_detection_thresholds)
            self.state = ConversationState.create(
                id=cid,
                agent=agent,
                workspace=self.workspace,
                folder=folder,
                writer=self._writer,
                max_iterations=max_iterations,
                stuck_detection=stuck_detection,
                cipher=cipher,
            )
            self._bind_metrics()
            self.stuck_detector: StuckDetector | None = (
                StuckDetector(self._branch, self._stuck_thresholds or StuckThresholds())
                if self.state.stuck_detection
                else None
            )
            """The SDK's ``conversation.stuck_detector`` (None when stuck detection is off)."""
            if secrets:
                self.state.secret_registry.update_secrets(secrets)
            if tags:
                self.state.tags = {**self.state.tags, **_checked_tags(tags)}
            self.state.save()
            self._visualizer = _make_visualizer(visualizer)
            if self._visualizer is not None:
                self._visualizer.initialize(self.state)
            ctx = ToolContext(
                working_dir=working_dir,
                conversation_dir=str(folder) if folder is not None else None,
                secrets=self.state.secret_registry,
            )
            self.tools: dict[str, RuntimeTool] = agent.resolve_tools(ctx)
            self._mcp = MCPToolset(agent.mcp_config, timeouts=mcp_timeouts).start()
            for mcp_tool in self._mcp.tools:
                if agent.keeps_tool(mcp_tool.name):
                    self.tools.setdefault(mcp_tool.name, mcp_tool)
            agent.bind_tools(self.tools)
            self._recall_responses()
            self._finalizer = weakref.finalize(
                self, _close_tools, list(self.tools.values()), self._mcp, self._writer_lock
            )
            self._tool_context = ctx
            self._started = False
            if self.state.execution_status != Status.WAITING_FOR_CONFIRMATION:
                self._answer_interrupted_calls()
        except BaseException:
            if self._writer_lock is not None:
                self._writer_lock.release()
            raise

    def _recall_responses(self) -> None:
        """A restored conversation's structured output (``response_schema``): each recorded
        call's response fields, so ``parse_response(event.action)`` works after a restore too.
        """
        tools = {n: t for n, t in self.tools.items() if t.response_schema is not None}
        for event in self.state.events if tools else ():
            tool = (
                tools.get(getattr(event, "tool_name", "")) if event.kind == "ActionEvent" else None
            )
            if tool is not None:
                tool.recall_response(event)

    def _ensure_started(self) -> None:
        """Before the first message or run (the SDK initialises its agent lazily): emit the
        system prompt if the conversation has none, so secrets registered until then are named
        in its dynamic context, and report MCP servers that failed to start.
        """
        if self._started:
            return
        with self.state:
            if self._started:
                return
            self._started = True
            self._start_hooks()
            for llm in self.agent.llms():
                self._track_llm(llm)
            if self.state.first_event(SystemPromptEvent) is None:
                prompt = self.agent.system_prompt_event(self.tools, self._tool_context)
                dynamic = secrets_prompt(self.state.secret_registry)
                if dynamic and prompt.dynamic_context is None:
                    update = {"dynamic_context": TextContent(text=dynamic)}
                    prompt = prompt.model_copy(update=update)
                self.emit(prompt)
            if self._hooks is not None:
                self._hooks.inject_session_context()
            for error in self._mcp.errors:  # logged, not recorded, as the SDK does
                servers = ", ".join(sorted(self._mcp.servers))
                logger.warning(
                    "%s; the conversation goes on without the tools of %s", error, servers
                )

    def _start_hooks(self) -> None:
        """Wire the hooks (`trajkit.sdk.hooks.conversation_hooks`) and run SessionStart's;
        agent hooks' conversations are persisted beside this one.
        """
        if self._hook_config is None:
            return
        from trajkit.sdk.hooks import HookManager

        self.state.hook_config = self._hook_config.model_dump(mode="json", exclude_none=True)
        folder = self.state.persistence_dir
        manager = HookManager(
            self._hook_config,
            working_dir=self.workspace.working_dir,
            session_id=str(self.id),
            llm_getter=lambda: self.agent.llm,
            persistence_dir=str(Path(folder).parent) if folder else None,
            conversation_stats=self.state.stats,
        )
        self._hooks = HookEventProcessor(manager, self.state, self.emit)
        self._hooks.run_session_start()

    # -- construction ----------------------------------------------------------------
    def _bind_metrics(self) -> None:
        for llm in self.agent.llms():
            if llm.usage_id in self.state.stats.usage_to_metrics:  # a fresh one: at the start
                self._track_llm(llm)

    def _track_llm(self, llm: LLM) -> None:
        """Count ``llm``'s usage in the stats, continuing what they hold under its usage id.
        An LLM sharing another usage id's metrics (a ``model_copy``, as the default agent's
        condenser is made) counts apart, from zero, as in the SDK's registry.
        """
        held = self.state.stats.usage_to_metrics.items()
        if any(m is llm.metrics for usage_id, m in held if usage_id != llm.usage_id):
            llm.reset_metrics()
        recorded = self.state.stats.usage_to_metrics.get(llm.usage_id)
        if isinstance(recorded, Metrics) and recorded is not llm.metrics:
            llm.restore_metrics(recorded)
        self.state.stats.usage_to_metrics[llm.usage_id] = llm.metrics

    def _answer_interrupted_calls(self) -> None:
        for action in unanswered_calls(self._branch()):  # trajkit.recovery, as repair does
            self.emit(interrupted_call_result(action.tool_name, action.tool_call_id))

    # -- events ----------------------------------------------------------------------
    def emit(self, event: Event) -> Event:
        """Persist ``event`` (its own file, at once), move the HEAD, then run the callbacks."""
        # One lock (the state's, re-entrant) for appends and state changes: run() holds it for
        # a whole step, so another thread's emit (pause) waits for the step, never deadlocks.
        st = self.state
        with st:
            if self._hooks is not None and not isinstance(event, HookExecutionEvent):
                event = self._hooks.on_event(event)  # its hooks are recorded before it
            event = st.with_parent(event)
            if self._visualizer is not None:  # first, as the SDK: the screen sees every event
                try:
                    self._visualizer.on_event(self.mask_secrets(event))
                except Exception:
                    logger.exception("visualizer failed on %s", event.kind)
            if self._writer is not None:  # None: kept in memory
                try:
                    self._writer.append(self._for_disk(event))
                except OSError as exc:  # a full disk: the event is not recorded, say so plainly
                    where = exc.filename or self._writer.events_dir
                    raise WriteFailed(where, _reason(exc)) from None
            st.append_event(event)
            for callback in self._callbacks:
                try:
                    callback(event)
                except Exception:
                    logger.exception("conversation callback failed on %s", event.kind)
        return event

    def _for_disk(self, event: Event) -> Event:
        """``event`` as written: secret values it holds (a model reply or tool call that typed
        one, a user message quoting one, command output echoing the API key) are hidden, in
        every form `trajkit.redact.SecretMasker` finds (JSON-escaped, as a key, URL-encoded,
        base64), so no value reaches disk in clear. The running conversation keeps the event
        as it is; a restored one sees the hidden form.
        """
        masker = self._masker()
        if not masker:
            return event
        from trajkit.events import dump_event, parse_event

        text = dump_event(event)
        masked = masker.text(text)  # the dump is JSON: escaped forms are decoded and masked
        return event if masked == text else parse_event(masked)

    def _masker(self) -> SecretMasker:
        """Masks the registered secret values and the LLM's configured credentials by value."""
        values = self.state.secret_values()
        register_log_secrets(values)
        return SecretMasker(values)

    def _branch(self) -> list[Event]:
        return self.state.active_branch()

    def llm_messages(self) -> list[Message]:
        """The messages of the next LLM request: the live view of the active branch
        (``state.view``, `trajkit.sdk.context.view`).
        """
        from trajkit.convert import events_to_messages

        return events_to_messages(self.state.view.events)

    @property
    def conversation_stats(self) -> ConversationStats:
        """LLM usage by usage id (the persisted ``state.stats``)."""
        return self.state.stats

    @property
    def llm_registry(self) -> LLMRegistry:
        """The conversation's LLMs by usage id (the SDK's ``conversation.llm_registry``): the
        agent's, and each one added later, whose usage then counts in `conversation_stats`
        (and is saved with it).
        """
        if self._llm_registry is None:
            registry = LLMRegistry()
            for llm in self.agent.llms():
                if llm.usage_id not in registry.usage_to_llm:
                    registry.add(llm)
            registry.subscribe(self._count_llm)
            self._llm_registry = registry
        return self._llm_registry

    def _count_llm(self, event: RegistryEvent) -> None:
        with self.state as st:
            recorded = st.stats.usage_to_metrics.get(event.llm.usage_id)
            if isinstance(recorded, Metrics) and recorded is not event.llm.metrics:
                event.llm.restore_metrics(recorded)
            st.stats.usage_to_metrics[event.llm.usage_id] = event.llm.metrics

    # -- user API --------------------------------------------------------------------
    def send_message(self, message: str | Message, sender: str | None = None) -> None:
        """Add a user message; a finished (or stuck) conversation becomes idle again.

        Safe while `run` works in another thread: the message waits for the step in progress
        (the state lock is first come first served, `trajkit.sdk.conversation.fifo_lock`) and the same
        run answers it at its next step, as in the SDK. Knowledge skills whose keyword the
        message contains are attached to it (once per conversation) and recorded in
        ``state.activated_knowledge_skills``. ``sender`` names who sent it (recorded on the
        event, e.g. a delegating agent).
        """
        self._ensure_started()
        if isinstance(message, str):
            message = Message(role="user", content=[TextContent(text=message)])
        with self.state as st:
            if st.execution_status in (Status.FINISHED, Status.STUCK):
                st.execution_status = Status.IDLE  # a new message reopens it (SDK)
            extended: list[TextContent] = []
            activated: list[str] = []
            if self.agent.agent_context is not None:
                extended, activated = self.agent.agent_context.user_message_extension(
                    message, skip=st.activated_knowledge_skills
                )
            self.emit(
                MessageEvent(
                    source="user",
                    llm_message=message,
                    activated_skills=activated,
                    extended_content=extended,
                    sender=sender,
                )
            )
            if activated:
                st.activated_knowledge_skills = [*st.activated_knowledge_skills, *activated]

    def run(self) -> None:
        """Step the agent until it finishes, is paused, fails, is stuck or hits max_iterations.

        Raises:
            ConversationRunError: a step failed (the LLM after its retries, or a bug); the
                error is persisted first and the conversation left with status ``error``.
        """
        self._ensure_started()
        with self._run_lock:
            st = self.state
            if st.execution_status == Status.FINISHED:
                return
            self._pause.clear()
            self._interrupt.clear()
            self._pause_recorded = False
            with st:
                st.execution_status = Status.RUNNING
                st.begin_run()
            with call_context(str(self.id)), token_callbacks(self._token_callbacks):
                self._run_loop()

    async def arun(self) -> None:
        """`run` for asyncio code (the SDK's ``arun``): the run goes on in a worker thread
        while the event loop stays free. Cancelling the awaiting task interrupts it, as the
        SDK's cancelled ``arun``: the model call in flight is abandoned, the status becomes
        ``paused`` with an ``InterruptEvent``, and the task ends without raising
        ``CancelledError``; ``interrupt()`` from anywhere does the same.

        Raises:
            ConversationRunError: as `run`.
        """
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()
        future = loop.run_in_executor(None, context.run, self.run)
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            self.interrupt()
            await future  # the run records the interrupt and stops

    def _run_loop(self) -> None:
        st = self.state
        while True:
            # One hold of the state lock from the checks to the end of the step (as the
            # SDK): a message or pause from another thread lands between two steps, never
            # between a check and the step it allows.
            with st:
                if not self._step_allowed() or not self._step_once():
                    return
                st.count_step()

    def _step_allowed(self) -> bool:
        st = self.state
        if self._interrupt.is_set():
            self._record_interrupt()
            return False
        if self._pause.is_set():
            self._apply_pause()
            return False
        if st.execution_status == Status.IDLE:
            # a message arrived after the last step had finished: this run answers it (SDK)
            st.execution_status = Status.RUNNING
        if st.execution_status == Status.FINISHED and self._hooks and not self._hooks.allows_stop():
            st.execution_status = Status.RUNNING  # a Stop hook sent the agent back to work
        if st.execution_status != Status.RUNNING:
            return False
        if st.stuck_detection and self._stuck():  # before each step, as the SDK checks
            st.execution_status = Status.STUCK
            return False
        if st.iteration >= st.max_iterations:
            self._fail("MaxIterationsReached", f"reached max_iterations ({st.max_iterations})")
            return False
        return True

    def _step_once(self) -> bool:
        """One agent step; False when `interrupt` stopped it. Its events are each written at
        once and the base state (HEAD, metrics) once when the step ends, as the SDK does (a
        crash in between is repaired on restore, `_move_head_forward`); events/ is fsynced
        once for the step (group commit), before that save.
        """
        try:
            with self._writer.group_commit() if self._writer else contextlib.nullcontext():
                self.agent.step(self)
        except StepInterrupted:
            self._record_interrupt()
            return False
        except LLMError as e:
            raise self._run_error(e, type(e).__name__, str(e), _classify(e)) from e
        except WriteFailed:
            raise  # the disk refused a write: nothing more can be recorded
        except Exception as e:
            logger.exception("agent step failed")
            raise self._run_error(e, type(e).__name__, f"{type(e).__name__}: {e}") from e
        return True

    def fork(
        self,
        *,
        conversation_id: uuid.UUID | str | None = None,
        agent: Agent | None = None,
        tags: Mapping[str, str] | None = None,
        reset_metrics: bool = True,
        from_event_id: str | None = None,
        **_: object,
    ) -> Conversation:
        """A copy under a new id, persisted as its own folder beside this one (SDK
        ``fork()``; see `trajkit.sdk.conversation.extras`).
        """
        return fork_conversation(
            self,
            conversation_id=conversation_id,
            agent=agent,
            tags=dict(tags) if tags else None,
            reset_metrics=reset_metrics,
            from_event_id=from_event_id,
            visualizer=type(self._visualizer) if self._visualizer is not None else None,
        )

    def ask_agent(self, question: str) -> str:
        """Answer ``question`` from the conversation's context without recording anything."""
        return ask_agent(self, question)

    def generate_title(self, llm: LLM | None = None, max_length: int = 50) -> str:
        """A short title from the first user message (an LLM's, else the message cut)."""
        return generate_title(self, llm, max_length)

    def switch_llm(self, llm: LLM) -> None:
        """Give the agent ``llm`` from the next step on (the SDK's ``switch_llm``), persisted
        in ``base_state.json``. Usage already recorded under ``llm.usage_id`` keeps counting
        on it; a condenser that used the agent's LLM configuration follows the switch (its
        own usage id and metrics kept).
        """
        with self.state as st:
            self._track_llm(llm)
            update: dict[str, Any] = {"llm": llm}
            condenser = self.agent.condenser
            if isinstance(condenser, LLMSummarizingCondenser) and _same_llm(
                condenser.llm, self.agent.llm
            ):
                follower = llm.copy_for(condenser.llm.usage_id)
                follower.restore_metrics(condenser.llm.metrics)
                update["condenser"] = condenser.model_copy(update={"llm": follower})
            self.agent = self.agent.model_copy(update=update)
            st.agent = self.agent
            for model in self.agent.llms():
                self._track_llm(model)
            self._side_llms.pop(ASK_AGENT_USAGE_ID, None)  # made again from the new LLM

    def switch_profile(self, profile_name: str) -> None:
        """`switch_llm` to an LLM profile saved with `trajkit.sdk.llm.LLMProfileStore` (in
        ``profile_store_dir``, by default ``~/.openhands/profiles``), under the usage id
        ``profile:<name>``, as the SDK's ``switch_profile``.

        Raises:
            FileNotFoundError: no profile of that name.
        """
        usage_id = f"profile:{profile_name}"
        llm = self._side_llms.get(usage_id)
        if llm is None:
            where = self._profile_store_dir
            loaded = LLMProfileStore(Path(where) if where is not None else None).load(profile_name)
            llm = loaded.model_copy(update={"usage_id": usage_id})
            self._side_llms[usage_id] = llm
        self.switch_llm(llm)

    def execute_tool(self, tool_name: str, action: Any) -> Any:
        """Run one tool directly, outside the agent loop (the SDK's ``execute_tool``): no
        confirmation, no event recorded; the agent is started first (the system prompt
        emitted) as before a run. Returns the tool's own observation.

        Raises:
            KeyError: the conversation has no tool of that name.
        """
        self._ensure_started()
        tool = self.tools.get(tool_name)
        if tool is None:
            raise KeyError(f"Tool '{tool_name}' not found. Available tools: {list(self.tools)}")
        return tool.run(action, self)

    def navigate_to(self, event_id: str | None) -> None:
        """Move the HEAD to ``event_id`` (``None``: the empty tree), as the SDK's
        ``navigate_to``: the next request is made of the branch ending there, and the next
        event starts a sibling branch; nothing is deleted. The view is rebuilt (enforced).

        Raises:
            ValueError: ``event_id`` is not an event of this conversation.
        """
        with self.state as st:
            if event_id is not None and not st.has_event(event_id):
                raise ValueError(f"unknown event_id {event_id!r}")
            st.leaf_event_id = event_id
            st.head_is_empty = event_id is None
            st.rebuild_view()

    def condense(self) -> None:
        """Condense the history now (waits for a running step), as the SDK's ``condense()``.

        Raises:
            ValueError: the agent has no condenser that handles requests.
        """
        if not self.agent.handles_condensation_requests():
            what = (
                "has no condenser"
                if self.agent.condenser is None
                else f"has a condenser that does not condense on request "
                f"({type(self.agent.condenser).__name__})"
            )
            raise ValueError(
                f"cannot condense: the agent {what}; give it one, e.g. "
                "Agent(llm=llm, condenser=LLMSummarizingCondenser(llm=llm.model_copy("
                'update={"usage_id": "condenser"}), max_size=120, keep_first=4))'
            )
        self._ensure_started()
        with call_context(str(self.id)), self.state:
            self.emit(CondensationRequest())
            self.agent.step(self)

    def pause(self) -> None:
        """Stop the run after the current step (safe to call from another thread).

        The ``PauseEvent`` is made once the state lock is held, so its timestamp never
        precedes the events of a step that was running when ``pause`` was called.
        """
        self._pause.set()
        self._apply_pause()

    def interrupt(self) -> None:
        """Stop now (safe from another thread or a signal handler), unlike `pause`, which
        lets the step finish: a model call in flight is abandoned (its answer, when it comes,
        is discarded; its cost still counts), the run ends with status ``paused`` and an
        ``InterruptEvent``, as the SDK's interrupted ``arun``. A running terminal command's
        process group is killed at once (its observation says so). Without a run in progress
        this is `pause`, as in the SDK.
        """
        self._interrupt.set()
        self._pause.set()
        for tool in list(self.tools.values()):
            stop = getattr(tool, "interrupt", None)
            if callable(stop):
                with contextlib.suppress(Exception):  # best effort, from any thread
                    stop()
        if not self._run_lock.locked():
            self.pause()

    def interrupted(self) -> bool:
        return self._interrupt.is_set()

    def call_llm(self, call: Callable[[], _R]) -> _R:
        """Run ``call`` (the step's model call) in a worker thread and wait for it, unless
        `interrupt` comes first (then `StepInterrupted`). The thread gets this thread's
        context, so the call keeps the conversation's prompt-cache key.
        """
        if self._interrupt.is_set():
            raise StepInterrupted
        context = contextvars.copy_context()
        answer: Future[_R] = Future()

        def work() -> None:
            try:
                answer.set_result(context.run(call))
            except BaseException as e:  # noqa: BLE001 (re-raised in the waiting thread)
                answer.set_exception(e)

        threading.Thread(target=work, name="trajkit-llm-call", daemon=True).start()
        while not wait([answer], timeout=0.05).done:
            if self._interrupt.is_set():
                raise StepInterrupted
        return answer.result()

    def _record_interrupt(self) -> None:
        with self.state:
            self._pause_recorded = True
            self.state.execution_status = Status.PAUSED
            self.emit(InterruptEvent())

    def _apply_pause(self) -> None:
        """Record a requested pause once: whichever of `pause` and the run loop gets the
        state lock first writes the ``PauseEvent`` and the status.
        """
        with self.state:
            if self._pause_recorded or self.state.execution_status not in (
                Status.IDLE,
                Status.RUNNING,
            ):
                return
            self._pause_recorded = True
            self.state.execution_status = Status.PAUSED
            self.emit(PauseEvent())

    def finish(self) -> None:
        """Mark the run finished (the agent calls this)."""
        self.state.execution_status = Status.FINISHED

    # -- secrets ---------------------------------------------------------------------
    def update_secrets(self, secrets: Mapping[str, SecretValue]) -> None:
        """Add or replace secrets (plain strings become StaticSecrets) and save at once.

        Secrets added before the first message or run are named in the system prompt (as
        in the SDK); later ones reach the terminal all the same but are not announced.
        """
        self.state.secret_registry.update_secrets(secrets)
        self.state.save()

    def mask_secrets(self, value: _M) -> _M:
        """``value`` (text or a pydantic payload) with every secret value hidden."""
        values = self.state.secret_registry.known_values()
        if not values:
            return value
        if isinstance(value, str):
            return mask_data(value, values)  # type: ignore[no-any-return]
        dump = getattr(value, "model_dump", None)
        if dump is None:
            return value
        masked = mask_data(dump(mode="json"), values)
        return type(value).model_validate(masked)  # type: ignore[attr-defined, no-any-return]

    # -- confirmation ----------------------------------------------------------------
    def set_confirmation_policy(
        self, policy: NeverConfirm | AlwaysConfirm | ConfirmRisky | Mapping[str, Any] | str
    ) -> None:
        """Choose when actions wait for the user (persisted)."""
        self.state.confirmation_policy = parse_confirmation_policy(policy)

    def set_security_analyzer(self, analyzer: SecurityAnalyzerBase | None) -> None:
        """Use the LLM's predicted ``security_risk`` for ConfirmRisky (persisted)."""
        self.state.security_analyzer = analyzer

    def needs_confirmation(self, actions: Sequence[ActionEvent]) -> bool:
        """Whether the policy stops before any of ``actions`` (``finish`` and ``think`` change
        nothing, so they never wait).
        """
        policy = self.state.confirmation_policy
        return any(
            policy.should_confirm(a.security_risk)
            for a in actions
            if not isinstance(a.action, FinishAction | ThinkAction)
        )

    def wait_for_confirmation(self) -> None:
        """Stop the run before the pending actions (the agent calls this)."""
        self.state.execution_status = Status.WAITING_FOR_CONFIRMATION

    def pending_actions(self) -> list[ActionEvent]:
        """Actions emitted but neither run nor rejected (waiting for confirmation)."""
        return ConversationState.get_unmatched_actions(self._branch())

    def reject_pending_actions(self, reason: str = "User rejected the action") -> None:
        """Answer every pending action with a UserRejectObservation; the conversation idles."""
        with self.state:
            for action in self.pending_actions():
                self.emit(
                    UserRejectObservation(
                        tool_name=action.tool_name,
                        tool_call_id=action.tool_call_id,
                        action_id=action.id,
                        rejection_reason=reason,
                    )
                )
            if self.state.execution_status == Status.WAITING_FOR_CONFIRMATION:
                self.state.execution_status = Status.IDLE

    def close(self) -> None:
        """Run the SessionEnd hooks, then stop the tools' processes (the terminal's bash)."""
        hooks, self._hooks = self._hooks, None
        if hooks is not None:
            hooks.run_session_end()
        self._finalizer()

    def __enter__(self) -> Conversation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------
    def _fail(
        self, code: str, detail: str, classification: ErrorClassification | None = None
    ) -> ConversationErrorEvent:
        logger.error("conversation %s stopped: %s", self.id, detail)
        with self.state:
            self.state.execution_status = Status.ERROR
            event = self.emit(
                ConversationErrorEvent(
                    source="environment",
                    code=code,
                    detail=self.mask_secrets(detail),
                    classification=classification,
                )
            )
        assert isinstance(event, ConversationErrorEvent)
        return event

    def _run_error(
        self,
        error: BaseException,
        code: str,
        detail: str,
        classification: ErrorClassification | None = None,
    ) -> ConversationRunError:
        """Persist a failed step (error event, status ``error``) and the error to raise."""
        event = self._fail(code, detail, classification)
        masker = self._masker()
        if masker:
            _mask_chain(error, masker)
        text = str(error)
        return ConversationRunError(
            self.id,
            error,
            persistence_dir=self.state.persistence_dir,
            # the message and the chained errors are logged and printed (a traceback shows
            # them all): credentials in a provider's error body are hidden as in the files
            message=f"conversation {self.id} failed: {text}"
            + (
                f" (its events are in {self.state.persistence_dir})"
                if self.state.persistence_dir
                else ""
            ),
            conversation_error=event,
        )

    def _stuck(self) -> bool:
        """The agent repeats itself (see `trajkit.sdk.conversation.stuck_detector`)."""
        verdict = detect_stuck(self._branch(), self._stuck_thresholds)
        if verdict is not None:
            logger.warning("conversation %s is stuck: %s", self.id, verdict.detail)
        return verdict is not None


def _same_llm(a: LLM, b: LLM) -> bool:
    """The same configuration, secrets included, whatever the usage id."""
    context = {"expose_secrets": True}
    dump_a = a.model_dump(mode="json", context=context, exclude={"usage_id"})
    return bool(dump_a == b.model_dump(mode="json", context=context, exclude={"usage_id"}))


def _make_visualizer(
    value: type[ConversationVisualizerBase] | ConversationVisualizerBase | None,
) -> ConversationVisualizerBase | None:
    if value is None or isinstance(value, ConversationVisualizerBase):
        return value
    if isinstance(value, type) and issubclass(value, ConversationVisualizerBase):
        return value()
    raise TypeError(
        f"visualizer must be a ConversationVisualizerBase subclass or instance, or None; "
        f"got {value!r}"
    )


def _mask_chain(error: BaseException, masker: SecretMasker) -> None:
    """Hide secret values in ``error`` and every exception chained to it, in place: their
    arguments and string or JSON-like attributes (litellm keeps the body in ``message``).
    """
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        current.args = tuple(masker.data(a) for a in current.args)
        for name, value in list(getattr(current, "__dict__", {}).items()):
            if isinstance(value, str | dict | list):
                with contextlib.suppress(Exception):  # a read-only attribute stays as it is
                    setattr(current, name, masker.data(value))
        current = current.__cause__ or current.__context__


def _close_tools(
    tools: list[RuntimeTool],
    mcp: MCPToolset | None = None,
    lock: WriterLock | None = None,
) -> None:
    for tool in tools:
        with contextlib.suppress(Exception):  # closing is best effort
            tool.close()
    if mcp is not None:
        with contextlib.suppress(Exception):
            mcp.close()
    if lock is not None:
        lock.release()  # the next writer may open the conversation


def _classify(e: LLMError) -> ErrorClassification:
    kinds = {
        "LLMAuthenticationError": ("auth", False, "settings"),
        "LLMRateLimitError": ("rate_limit", True, "retry"),
        "LLMTimeoutError": ("transient", True, "retry"),
        "LLMServiceUnavailableError": ("transient", True, "retry"),
        "LLMBadRequestError": ("config", False, "settings"),
        "LLMContentPolicyViolationError": ("config", False, "settings"),
        # recoverable by condensing: the SDK calls them agent outcomes
        "LLMContextWindowExceedError": ("agent_action", True, "retry"),
        "LLMMalformedConversationHistoryError": ("agent_action", True, "retry"),
    }
    kind, retryable, action = kinds.get(type(e).__name__, ("unknown", False, "none"))
    return ErrorClassification(kind=kind, retryable=retryable, user_action=action)


def _checked_tags(tags: Mapping[str, str]) -> dict[str, str]:
    """Tags as the SDK accepts them: lowercase alphanumeric keys, values up to 256 chars."""
    out: dict[str, str] = {}
    for key, value in tags.items():
        if not key or not key.isascii() or not key.isalnum() or key != key.lower():
            raise ValueError(f"tag key {key!r} must be lowercase letters and digits")
        if not isinstance(value, str) or len(value) > 256:
            raise ValueError(f"tag {key!r}: the value must be a string of at most 256 characters")
        out[key] = value
    return out


def _working_dir(workspace: Any) -> str:
    if workspace is None:
        path = Path(DEFAULT_WORKSPACE)
    elif isinstance(workspace, LocalWorkspace) or hasattr(workspace, "working_dir"):
        path = Path(workspace.working_dir)
    else:
        path = Path(workspace)
    path = path.expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return str(path)


def _with_client_tools(
    agent: Agent, client_tools: Sequence[ClientToolSpec], folder: Path | None
) -> Agent:
    """``agent`` with the client tools joined to its tools (persisted with it, as the SDK's).
    None given: those the saved ``base_state.json`` kept, so a restored conversation offers
    them again, in a fresh process too (as the SDK's resume recovers them).
    """
    specs = list(client_tools)
    if not specs and folder is not None:
        specs = saved_client_tools(read_state_object(folder))
    if not specs:
        return agent
    have = {t.name for t in agent.tools}
    added = [t for t in client_tool_specs(specs) if t.name not in have]
    return agent.model_copy(update={"tools": [*agent.tools, *added]}) if added else agent


def _conversation_id(value: uuid.UUID | str | None, persistence_dir: Any) -> uuid.UUID:
    if value is None:
        return uuid.uuid4()
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise UnsafePath(
            os.fspath(persistence_dir or "."),
            "",
            f"conversation_id {str(value)!r} is not a UUID; it names the conversation folder "
            "(<persistence_dir>/<uuid hex>), so only UUIDs are accepted",
        ) from None


def _reason(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()
