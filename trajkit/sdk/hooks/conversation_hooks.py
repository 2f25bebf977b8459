"""Hooks wired into a conversation: which event runs which hook point, and what a verdict does.

`Conversation` hands each event to `HookEventProcessor.on_event` before it is persisted:

- an ``ActionEvent`` runs the PreToolUse hooks; a block is kept in ``state.blocked_actions``
  and the agent answers the call with a ``UserRejectObservation`` (``rejection_source: hook``)
  instead of running the tool;
- an ``ObservationEvent`` runs the PostToolUse hooks with its action;
- a user ``MessageEvent`` runs the UserPromptSubmit hooks; context they add is appended to the
  message's ``extended_content`` (a new event), and a block is kept in ``state.blocked_messages``
  so the agent ends the run without answering.

SessionStart hooks run when the conversation starts (their context becomes an ``environment``
message after the system prompt), SessionEnd hooks when it is closed, Stop hooks when the agent
finishes: a deny sends it back to work with the hooks' feedback as an ``environment`` message.
Every hook that ran is recorded as a ``HookExecutionEvent`` before the event that caused it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from trajkit.events import (
    ActionEvent,
    Event,
    HookExecutionEvent,
    Message,
    MessageEvent,
    ObservationEvent,
    TextContent,
)
from trajkit.sdk.hooks.config import HookDefinition
from trajkit.sdk.hooks.executor import HookResult
from trajkit.sdk.hooks.manager import HookManager
from trajkit.sdk.hooks.types import HookEventType

if TYPE_CHECKING:
    from trajkit.sdk.conversation.state import ConversationState

__all__ = ["STOP_FEEDBACK_PREFIX", "HookEventProcessor"]

STOP_FEEDBACK_PREFIX = "[Stop hook feedback]"
_MAX_LOG_CHARS = 50_000
_CUT = "\n<TRUNCATED>"


class HookEventProcessor:
    """Runs a conversation's hooks at its events; ``emit`` records what they did."""

    def __init__(
        self, manager: HookManager, state: ConversationState, emit: Callable[[Event], Any]
    ) -> None:
        self.manager = manager
        self.state = state
        self.emit = emit
        self._session_context: list[str] = []

    def on_event(self, event: Event) -> Event:
        """Run the hooks ``event`` triggers; the event to record in its place."""
        if isinstance(event, ActionEvent) and event.action is not None:
            self._pre_tool_use(event)
        elif isinstance(event, ObservationEvent):
            self._post_tool_use(event)
        elif isinstance(event, MessageEvent) and event.source == "user":
            return self._user_prompt_submit(event)
        return event

    def _record(
        self,
        point: HookEventType,
        hooks: list[HookDefinition],
        results: list[HookResult],
        **context: Any,
    ) -> None:
        for hook, result in zip(hooks, results, strict=False):
            self.emit(
                HookExecutionEvent(
                    hook_event_type=point.value,
                    hook_command=hook.display_command,
                    success=result.success,
                    blocked=result.blocked,
                    exit_code=result.exit_code,
                    stdout=_cut(result.stdout) or "",
                    stderr=_cut(result.stderr) or "",
                    reason=_cut(result.reason),
                    additional_context=_cut(result.additional_context),
                    error=_cut(result.error),
                    **context,
                )
            )

    def _hooks(self, point: HookEventType, tool_name: str | None = None) -> list[HookDefinition]:
        return self.manager.config.get_hooks_for_event(point, tool_name)

    def _pre_tool_use(self, event: ActionEvent) -> None:
        assert event.action is not None
        tool_input = event.action.model_dump(mode="json")
        allowed, results = self.manager.run_pre_tool_use(event.tool_name, tool_input)
        self._record(
            HookEventType.PRE_TOOL_USE, self._hooks(HookEventType.PRE_TOOL_USE, event.tool_name),
            results, tool_name=event.tool_name, action_id=event.id,
            hook_input={"tool_name": event.tool_name, "tool_input": tool_input},
        )  # fmt: skip
        if not allowed:
            self.state.block_action(
                event.id, self.manager.get_blocking_reason(results) or "Blocked by hook"
            )

    def _post_tool_use(self, event: ObservationEvent) -> None:
        if not self.manager.has_hooks(HookEventType.POST_TOOL_USE):
            return
        action = self.state.event_by_id(event.action_id)
        if not isinstance(action, ActionEvent) or action.action is None:
            return
        tool_input = action.action.model_dump(mode="json")
        tool_response = event.observation.model_dump(mode="json")
        results = self.manager.run_post_tool_use(event.tool_name, tool_input, tool_response)
        self._record(
            HookEventType.POST_TOOL_USE, self._hooks(HookEventType.POST_TOOL_USE, event.tool_name),
            results, tool_name=event.tool_name, action_id=action.id,
            hook_input={"tool_name": event.tool_name, "tool_input": tool_input, "tool_response": tool_response},
        )  # fmt: skip

    def _user_prompt_submit(self, event: MessageEvent) -> MessageEvent:
        if not self.manager.has_hooks(HookEventType.USER_PROMPT_SUBMIT):
            return event
        text = "".join(c.text for c in event.llm_message.content if isinstance(c, TextContent))
        allowed, context, results = self.manager.run_user_prompt_submit(text)
        self._record(
            HookEventType.USER_PROMPT_SUBMIT, self._hooks(HookEventType.USER_PROMPT_SUBMIT),
            results, message_id=event.id, hook_input={"message": text},
        )  # fmt: skip
        if context:  # a new message event, as the SDK records it
            data = event.model_dump(exclude={"id", "timestamp", "parent_id"})
            data["extended_content"] = [*event.extended_content, TextContent(text=context)]
            event = MessageEvent.model_validate(data)
        if not allowed:
            self.state.block_message(
                event.id, self.manager.get_blocking_reason(results) or "Blocked by hook"
            )
        return event

    def run_session_start(self) -> None:
        """The SessionStart hooks; their context waits for `inject_session_context`."""
        results = self.manager.run_session_start()
        self._record(HookEventType.SESSION_START, self._hooks(HookEventType.SESSION_START), results)
        self._session_context += [r.additional_context for r in results if r.additional_context]

    def inject_session_context(self) -> None:
        """The SessionStart hooks' context as one ``environment`` message (after the prompt)."""
        if self._session_context:
            text, self._session_context = "\n".join(self._session_context), []
            self.emit(_environment_message(text))

    def run_session_end(self) -> None:
        results = self.manager.run_session_end()
        self._record(HookEventType.SESSION_END, self._hooks(HookEventType.SESSION_END), results)

    def allows_stop(self) -> bool:
        """Run the Stop hooks; on a deny, record their feedback for the agent and say False."""
        if not self.manager.has_hooks(HookEventType.STOP):
            return True
        allowed, results = self.manager.run_stop(reason="agent_finished")
        self._record(
            HookEventType.STOP, self._hooks(HookEventType.STOP), results,
            hook_input={"reason": "agent_finished"},
        )  # fmt: skip
        if allowed:
            return True
        parts = [r.additional_context for r in results if r.additional_context]
        feedback = "\n".join(parts) if parts else self.manager.get_blocking_reason(results)
        if feedback:
            self.emit(_environment_message(f"{STOP_FEEDBACK_PREFIX} {feedback}"))
        return False


def _environment_message(text: str) -> MessageEvent:
    return MessageEvent(
        source="environment", llm_message=Message(role="user", content=[TextContent(text=text)])
    )


def _cut(value: str | None) -> str | None:
    if value is None or len(value) <= _MAX_LOG_CHARS:
        return value
    return value[: _MAX_LOG_CHARS - len(_CUT)] + _CUT
