"""`HookManager`: the hooks of one conversation, run at each hook point."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from trajkit.sdk.hooks.config import HookConfig
from trajkit.sdk.hooks.executor import HookExecutor, HookResult
from trajkit.sdk.hooks.types import HookEvent, HookEventType

if TYPE_CHECKING:
    from trajkit.sdk.llm import LLM
    from trajkit.sdk.metrics import ConversationStats

__all__ = ["HookManager"]


class HookManager:
    """Runs the configured hooks of each hook point and sums up their verdicts.

    Without ``config``, the hooks come from ``<working_dir>/.openhands/hooks.json`` (or the
    user's ``~/.openhands/hooks.json``), as `HookConfig.load` finds them.
    """

    def __init__(
        self,
        config: HookConfig | None = None,
        working_dir: str | None = None,
        session_id: str | None = None,
        llm: LLM | None = None,
        llm_getter: Callable[[], LLM | None] | None = None,
        persistence_dir: str | None = None,
        conversation_stats: ConversationStats | None = None,
        **_: object,
    ) -> None:
        self.config = config if config is not None else HookConfig.load(working_dir=working_dir)
        self.executor = HookExecutor(
            working_dir,
            llm=llm,
            llm_getter=llm_getter,
            persistence_dir=persistence_dir,
            conversation_stats=conversation_stats,
        )
        self.working_dir = working_dir
        self.session_id = session_id

    def _event(self, event_type: HookEventType, **fields: Any) -> HookEvent:
        return HookEvent(
            event_type=event_type,
            session_id=self.session_id,
            working_dir=self.working_dir,
            **fields,
        )

    def _run(
        self,
        event_type: HookEventType,
        tool_name: str | None = None,
        *,
        stop_on_block: bool,
        **fields: Any,
    ) -> list[HookResult]:
        hooks = self.config.get_hooks_for_event(event_type, tool_name)
        if not hooks:
            return []
        event = self._event(event_type, tool_name=tool_name, **fields)
        return self.executor.execute_all(hooks, event, stop_on_block=stop_on_block)

    def has_hooks(self, event_type: HookEventType) -> bool:
        return self.config.has_hooks_for_event(event_type)

    def run_pre_tool_use(
        self, tool_name: str, tool_input: dict[str, Any]
    ) -> tuple[bool, list[HookResult]]:
        """(may the tool run, results); the first hook that blocks ends the list."""
        results = self._run(
            HookEventType.PRE_TOOL_USE, tool_name, stop_on_block=True, tool_input=tool_input
        )
        return all(r.should_continue for r in results), results

    def run_post_tool_use(
        self, tool_name: str, tool_input: dict[str, Any], tool_response: dict[str, Any]
    ) -> list[HookResult]:
        return self._run(
            HookEventType.POST_TOOL_USE, tool_name, stop_on_block=False,
            tool_input=tool_input, tool_response=tool_response,
        )  # fmt: skip

    def run_user_prompt_submit(self, message: str) -> tuple[bool, str | None, list[HookResult]]:
        """(may the message go on, context the hooks add, results)."""
        results = self._run(HookEventType.USER_PROMPT_SUBMIT, stop_on_block=True, message=message)
        return all(r.should_continue for r in results), _context(results), results

    def run_session_start(self) -> list[HookResult]:
        return self._run(HookEventType.SESSION_START, stop_on_block=False)

    def run_session_end(self) -> list[HookResult]:
        """The SessionEnd hooks; background hooks still running are stopped after them."""
        results = self._run(HookEventType.SESSION_END, stop_on_block=False)
        self.executor.cleanup_all()
        return results

    def run_stop(self, reason: str | None = None) -> tuple[bool, list[HookResult]]:
        """(may the agent stop, results)."""
        metadata = {"reason": reason} if reason else {}
        results = self._run(HookEventType.STOP, stop_on_block=True, metadata=metadata)
        return all(r.should_continue for r in results), results

    def cleanup_async_processes(self) -> None:
        self.executor.cleanup_all()

    @staticmethod
    def get_blocking_reason(results: list[HookResult]) -> str | None:
        """Why the first blocking hook blocked: its reason, else its stderr."""
        for result in results:
            if result.blocked:
                return result.reason or result.stderr.strip() or "Blocked by hook"
        return None


def _context(results: list[HookResult]) -> str | None:
    parts = [r.additional_context for r in results if r.additional_context]
    return "\n".join(parts) if parts else None
