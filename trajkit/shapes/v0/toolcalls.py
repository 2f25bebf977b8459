"""V0 tool-call actions and their results -> runs of `ActionEvent`s, each call answered.

`ToolCalls.emit_group(action)` writes, for one LLM response, every call it made (consecutive
`ActionEvent`s sharing `llm_response_id`, the response text and reasoning on the first only)
and then each call's result in call order: the paired V0 observation (an `ObservationEvent`, an
`AgentErrorEvent` for `error`, a `UserRejectObservation` for `user_rejected`), a synthesized
`FinishObservation` for `finish`, or a synthesized `AgentErrorEvent` for a call that never got a
result. Raw tool calls come from the stored model response (the `occurrence`-th call with that
id when non-native function calling repeated ids); a call id already used in the conversation is
made unique (`<id>_v0_<V0 id>`, original in the sidecar); pre-function-calling actions get
`v0-call-<id>` calls named after the CodeAct tool and arguments rebuilt from their payload.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from trajkit.shapes.v0.history import (
    DROPPED_ACTIONS,
    ToolCallInfo,
    call_arguments,
    display_text,
    response_reasoning,
    response_text,
    tool_call_info,
)
from trajkit.shapes.v0.ledger import Ledger
from trajkit.shapes.v0.payloads import (
    Fields,
    action_payload,
    observation_payload,
    rebuilt_arguments,
    security_risk,
    text_of,
)

__all__ = ["CODEACT_TOOL", "ERROR_SUFFIX", "ToolCalls"]

CODEACT_TOOL = {
    "run": "execute_bash",
    "run_ipython": "execute_ipython_cell",
    "read": "str_replace_editor",
    "edit": "str_replace_editor",
    "write": "str_replace_editor",
    "browse": "web_read",
    "browse_interactive": "browser",
    "think": "think",
    "finish": "finish",
    "delegate": "delegate_to_browsing_agent",
    "task_tracking": "task_tracker",
    "condensation_request": "request_condensation",
}
"""The CodeAct tool each V0 action type came from (names for pre-function-calling calls)."""

ERROR_SUFFIX = "\n[Error occurred in processing last action]"
"""What V0 appended to an error observation's text for the LLM."""

NOT_EXECUTED = (
    "The action has not been executed: the V0 trajectory records no result for this tool call."
)


class ToolCalls:
    """Emits tool-call actions and their results into a `Ledger`."""

    def __init__(
        self,
        log: Ledger,
        events: list[dict[str, Any]],
        *,
        answer: dict[int, int],
        inner: set[int],
        consumed: set[int],
        name: Callable[[str], str],
    ) -> None:
        self.log = log
        self.report = log.report
        self.events = events
        self.pos = {e["id"]: i for i, e in enumerate(events)}
        self.by_id = {e["id"]: e for e in events}
        self.answer = answer
        self.inner = inner
        self.consumed = consumed
        self.name = name
        self.used_call_ids: set[str] = set()
        self.call_occurrences: dict[tuple[str, str], int] = {}
        self.actions_out: dict[int, dict[str, Any]] = {}
        self.tools_called: set[str] = set()
        """V0 names of the tools called."""

    def emit_group(self, ev: dict[str, Any]) -> None:
        """Emit `ev` and the other calls of its LLM response, then each call's result."""
        group = [ev]
        info = tool_call_info(ev)
        if info is not None and info.response_id and info.total_calls > 1:
            group += self._siblings(ev, info)
        for n, action in enumerate(group):
            self.consumed.add(action["id"])
            self._emit_action(action, first=n == 0, response_id=info.response_id if info else None)
        for action in group:
            answer = self.answer.get(action["id"])
            if answer is not None and answer not in self.inner:
                self.consumed.add(answer)
                self._emit_result(action, self.by_id[answer])
            elif action["action"] == "finish":
                self._synth_finish(action)
            elif action["action"] == "condensation_request":
                self._synth_result(action, "Requesting a condensation of the conversation history.")
                self.log.emit(
                    action, {"kind": "CondensationRequest", "source": "environment"}, tag="request"
                )
            else:
                self._synth_error(action)

    def _siblings(self, ev: dict[str, Any], info: ToolCallInfo) -> list[dict[str, Any]]:
        """Later actions made by the same LLM response (V0 interleaved them with results)."""
        found: list[dict[str, Any]] = []
        start = self.pos[ev["id"]] + 1
        window = self.events[start : start + 4 * info.total_calls + 50]  # calls sit close together
        for other in window:
            if len(found) + 1 >= info.total_calls:
                break
            if not isinstance(other.get("action"), str) or other["id"] in self.consumed:
                continue
            other_info = tool_call_info(other)
            if other_info is not None and other_info.response_id == info.response_id:
                found.append(other)
            elif other.get("source") == "agent" and other["action"] not in DROPPED_ACTIONS:
                break
        if len(found) + 1 < info.total_calls:
            self.report.warn("an LLM response announced more tool calls than the trajectory holds")
        return found

    def _emit_action(self, ev: dict[str, Any], *, first: bool, response_id: str | None) -> None:
        args = Fields(ev.get("args"))
        kind = ev["action"]
        info = tool_call_info(ev, occurrence=self._occurrence(ev))
        fn_name = info.function_name if info else CODEACT_TOOL.get(kind, kind)
        if kind == "call_tool_mcp" and not info and isinstance(args.data.get("name"), str):
            fn_name = args.data["name"]
        raw_args, call_args = call_arguments(info.raw_call if info else None)
        payload = action_payload(kind, args, call_args, display=display_text(ev))
        if raw_args is None:
            raw_args = json.dumps(rebuilt_arguments(payload), ensure_ascii=False)
            what = (
                "pre-function-calling action" if info is None else "call missing from its response"
            )
            self.report.warn(f"tool-call arguments rebuilt from V0 args ({what})")
        self.tools_called.add(fn_name)
        name = self.name(fn_name)
        call_id = self._call_id(ev, info)
        rid = response_id or f"v0-response-{ev['id']}"
        if info is None:
            self.report.warn("tool call synthesized for an action without tool_call_metadata")
        d: dict[str, Any] = {
            "kind": "ActionEvent",
            "source": "agent",
            "thought": self._thought(ev, args, info) if first else [],
            "action": payload,
            "tool_name": name,
            "tool_call_id": call_id,
            "tool_call": {
                "id": call_id,
                "name": name,
                "arguments": raw_args,
                "origin": "completion",
            },
            "llm_response_id": rid,
            "security_risk": security_risk(args.data.get("security_risk")),
        }
        if first and info is not None:
            d.update(response_reasoning(info.message))
        if info is not None and info.response_id:
            self.log.remember_response(info)
        self.actions_out[ev["id"]] = self.log.emit(ev, d)
        self.log.mapped(ev, args)

    def _occurrence(self, ev: dict[str, Any]) -> int:
        """Position of this call among same-id calls of its response (non-native FC repeats)."""
        info = tool_call_info(ev)
        if info is None or not info.response_id:
            return 0
        key = (info.response_id, info.tool_call_id)
        n = self.call_occurrences.get(key, 0)
        self.call_occurrences[key] = n + 1
        return n

    def _thought(
        self, ev: dict[str, Any], args: Fields, info: ToolCallInfo | None
    ) -> list[dict[str, Any]]:
        if info is not None and info.message:
            text = response_text(info.message.get("content"))
        else:
            text = args.text("thought")
        return [{"type": "text", "text": text}] if text.strip() else []

    def _call_id(self, ev: dict[str, Any], info: ToolCallInfo | None) -> str:
        call_id = info.tool_call_id if info else f"v0-call-{ev['id']}"
        if call_id in self.used_call_ids:
            new = f"{call_id}_v0_{ev['id']}"
            self.report.warn("repeated tool-call id made unique (original kept in the sidecar)")
            self.log.note(ev, "original_tool_call_id", call_id)
            call_id = new
        self.used_call_ids.add(call_id)
        return call_id

    def _emit_result(self, action: dict[str, Any], obs: dict[str, Any]) -> None:
        call = self.actions_out[action["id"]]
        extras = Fields(obs.get("extras"))
        kind = obs.get("observation")
        content = text_of(obs.get("content"))
        base = {"tool_name": call["tool_name"], "tool_call_id": call["tool_call_id"]}
        if kind == "error":
            extras.get("error_id")
            d = {
                "kind": "AgentErrorEvent",
                "source": "agent",
                **base,
                "error": content + ERROR_SUFFIX,
            }
        elif kind == "user_rejected":
            d = {
                "kind": "UserRejectObservation",
                "source": "environment",
                **base,
                "rejection_reason": content,
                "action_id": call["id"],
            }
        else:
            payload = observation_payload(
                str(kind), content, extras, call.get("action"), tool_name=call["tool_name"]
            )
            d = {
                "kind": "ObservationEvent",
                "source": "environment",
                **base,
                "observation": payload,
                "action_id": call["id"],
            }
        self.log.emit(obs, d)
        self.log.mapped(obs, extras)

    def _synth_finish(self, action: dict[str, Any]) -> None:
        call = self.actions_out[action["id"]]
        message = (call.get("action") or {}).get("message", "")
        self._synth_result(action, message, kind="FinishObservation")

    def _synth_result(
        self, action: dict[str, Any], text: str, *, kind: str = "MCPToolObservation"
    ) -> None:
        call = self.actions_out[action["id"]]
        payload: dict[str, Any] = {"content": [{"type": "text", "text": text}], "kind": kind}
        if kind == "MCPToolObservation":
            payload["tool_name"] = call["tool_name"]
        d = {
            "kind": "ObservationEvent",
            "source": "environment",
            "tool_name": call["tool_name"],
            "tool_call_id": call["tool_call_id"],
            "observation": payload,
            "action_id": call["id"],
        }
        self.log.emit(action, d, tag="result")
        self.report.synthesize(kind)

    def _synth_error(self, action: dict[str, Any]) -> None:
        call = self.actions_out[action["id"]]
        d = {
            "kind": "AgentErrorEvent",
            "source": "agent",
            "tool_name": call["tool_name"],
            "tool_call_id": call["tool_call_id"],
            "error": NOT_EXECUTED,
        }
        self.log.emit(action, d, tag="result")
        self.report.synthesize("AgentErrorEvent for a call without result")
        self.report.warn(
            "a tool call without result was answered with a synthesized AgentErrorEvent"
        )
