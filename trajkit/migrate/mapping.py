"""V0 events -> V1 events, for one conversation, in memory.

Rules (spec v0-format §9):
- Results are paired with their calls by `cause`; when `cause` is missing, by tool-call id among
  the still-unanswered earlier actions. Tool-call ids are never used alone (they repeat).
- The calls of one LLM response (same `model_response.id`, `total_calls_in_response` > 1) become
  consecutive `ActionEvent`s sharing `llm_response_id`, followed by their results in call order:
  V1's grouping, so a chat conversion gives one assistant turn with every call, each answered.
  A result that arrived after an unrelated event (e.g. a user message sent while a browser
  action ran) is pulled up next to its call; the unrelated event follows it.
- Each `ActionEvent` keeps the V0 tool-call id and the raw JSON-string arguments taken from the
  stored model response; the first call of a response gets the response's text as `thought` and
  its reasoning. Tool names are kept (`execute_bash`) or renamed to V1 names (`terminal`,
  `file_editor`, `task_tracker`) with `tool_names="v1"`, in calls, results and the tool list.
  A tool-call id already used earlier in the conversation is made unique (`<id>_v0_<V0 id>`).
- Pre-function-calling actions (no `tool_call_metadata`) get a synthesized call
  (`v0-call-<id>`, CodeAct tool name, arguments rebuilt from `args`).
- `finish` gets a synthesized `FinishObservation`; a call with no result at all gets a
  synthesized `AgentErrorEvent` saying it was not executed.
- `message` -> `MessageEvent`; `system` -> `SystemPromptEvent` (the V0 tool specs kept whole as
  `MCPToolDefinition`-style definitions: name, description and JSON schema); `recall`
  observations are folded into the user message they answer (`extended_content`,
  `activated_skills`); `condensation` -> `Condensation` with every V1 id made from the forgotten
  V0 ids; `condensation_request` -> `CondensationRequest`; `error` answering a call ->
  `AgentErrorEvent`, an untied `error` -> environment `MessageEvent` (V0 showed it as a user
  message); `user_rejected` -> `UserRejectObservation`; `agent_state_changed` ->
  `ConversationStateUpdateEvent(execution_status)` when the status changes (+
  `ConversationErrorEvent` for an error reason); commands the user ran -> user messages.
- Dropped (whole dicts kept in the sidecar): `recall`/`change_agent_state`/`null` actions,
  `null` observations, hidden events, CLI-only loop events, delegate sub-agent events.
- Unknown and legacy types become `UnknownEvent`s of kind `V0Event` (the V0 dict under `v0`),
  or, when they carry a tool call, an MCP-style call like the other tools V1 lacks (warned).

Ids: the conversation id comes from the container (V0 session id) or from a digest of the
events; every V1 event id is a uuid5 of the conversation id and the V0 id, so a rerun gives
byte-identical output. Each built event is validated with the event model; one that fails
becomes an opaque `V0Event` and a warning, never a failed conversation.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import ValidationError

from trajkit.events import BaseState, Event, parse_event
from trajkit.migrate.containers import V0Source
from trajkit.migrate.payloads import Fields, action_payload, observation_payload, text_of
from trajkit.migrate.recall import recall_skills, recall_text
from trajkit.migrate.report import MigrationReport
from trajkit.migrate.state import build_base_state
from trajkit.migrate.v0 import (
    ACTION_TYPES,
    DROPPED_ACTIONS,
    DROPPED_OBSERVATIONS,
    LEGACY_ACTIONS,
    OBSERVATION_TYPES,
    ToolCallInfo,
    call_arguments,
    event_type,
    normalize_history,
    tool_call_info,
)

__all__ = ["V1_TOOL_NAMES", "MigratedConversation", "ToolNames", "v0_to_v1"]

ToolNames = Literal["keep", "v1"]

V1_TOOL_NAMES = {
    "execute_bash": "terminal",
    "str_replace_editor": "file_editor",
    "task_tracker": "task_tracker",
}
"""V0 CodeAct tool names that have a V1 tool (others keep their name under either option)."""

_CODEACT_TOOL = {
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
_TOOL_ACTIONS = frozenset(_CODEACT_TOOL) | {"call_tool_mcp"}
_PAYLOAD_OF_TOOL = {
    "execute_bash": "TerminalAction",
    "str_replace_editor": "FileEditorAction",
    "think": "ThinkAction",
    "finish": "FinishAction",
    "task_tracker": "TaskTrackerAction",
}
_USER_TEXT_ACTIONS = frozenset({"run", "read", "edit", "write", "browse", "browse_interactive"})
_RISK = {-1: "UNKNOWN", 0: "LOW", 1: "MEDIUM", 2: "HIGH"}
_STATUS = {
    "loading": "idle", "init": "idle", "awaiting_user_input": "idle", "running": "running",
    "user_confirmed": "running", "user_rejected": "running", "rate_limited": "running",
    "paused": "paused", "stopped": "paused",
    "awaiting_user_confirmation": "waiting_for_confirmation", "finished": "finished",
    "rejected": "finished", "error": "error",
}  # fmt: skip
_ERROR_SUFFIX = "\n[Error occurred in processing last action]"
_NOT_EXECUTED = (
    "The action has not been executed: the V0 trajectory records no result for this tool call."
)
_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/trajkit/v0-migration")


@dataclass
class MigratedConversation:
    """One V0 trajectory as a V1 conversation, in memory."""

    id: str
    """V1 conversation id (dashed uuid); the folder name is its hex."""
    name: str
    """Human name (file stem, session id, eval `instance_id`)."""
    source: str
    """Input it came from (`path:line` for jsonl lines)."""
    base_state: BaseState
    """The `base_state.json` model."""
    events: list[Event]
    """V1 events in log order."""
    report: MigrationReport
    """Counts and warnings (`migration_report.json`)."""
    sidecar: dict[str, Any]
    """What V1 has no field for (`v0_sidecar.json`)."""

    @property
    def folder_name(self) -> str:
        """`<uuid hex>`, the conversation folder's name."""
        return uuid.UUID(self.id).hex


def conversation_id(src: V0Source) -> str:
    """Deterministic V1 id: the V0 session id when there is one, else a digest of the events."""
    if src.fixed_id:
        return str(uuid.UUID(hex=src.fixed_id))
    return str(uuid.uuid5(_NAMESPACE, src.content_key))


def v0_to_v1(src: V0Source, *, tool_names: ToolNames = "keep") -> MigratedConversation:
    """Map one loaded V0 trajectory to V1 events, base state, report and sidecar."""
    return _Builder(src, tool_names).run()


class _Builder:
    """Walks the V0 events once, emitting V1 event dicts; validates them at the end."""

    def __init__(self, src: V0Source, tool_names: ToolNames) -> None:
        hist = normalize_history(src.items)
        self.src = src
        self.tool_names = tool_names
        self.conv_id = conversation_id(src)
        self.conv_uuid = uuid.UUID(self.conv_id)
        self.events = hist.events
        self.by_id = {e["id"]: e for e in self.events}
        self.pos = {e["id"]: i for i, e in enumerate(self.events)}
        self.report = MigrationReport(
            source=src.path, container=src.container, shape=hist.shape, name=src.name
        )
        self.report.conversation_id = self.conv_id
        for w in [*src.warnings, *hist.warnings]:
            self.report.warn(w)
        for reason, n in hist.dropped.items():  # items that never became V0 events
            for _ in range(n):
                self.report.count_source(f"({reason})")
                self.report.drop(reason)
        self.synth_ts = hist.synthesized_timestamps
        self.out: list[dict[str, Any]] = []
        self.v1_ids: dict[int, list[str]] = {}
        self.actions_out: dict[int, dict[str, Any]] = {}
        self.consumed: set[int] = set()
        self.side: dict[int, dict[str, Any]] = {}
        self.responses: dict[str, dict[str, Any]] = {}
        self.delegate_events: list[dict[str, Any]] = []
        self.used_call_ids: set[str] = set()
        self.call_occurrences: dict[tuple[str, str], int] = {}
        self.last_user_msg: dict[str, Any] | None = None
        self.recall_target: dict[int, dict[str, Any]] = {}
        self.shown_skills: set[str] = set()
        self.status: str | None = None
        self.tools_offered: list[str] = []
        self.tools_called: set[str] = set()
        self.answer = self._pair()
        self.inner = self._delegate_ranges()

    # -- driver ------------------------------------------------------------------------------

    def run(self) -> MigratedConversation:
        for ev in self.events:
            self.report.count_source(event_type(ev))
        for ev in self.events:
            vid = ev["id"]
            if vid in self.consumed:
                continue
            if vid in self.inner:
                self._set_aside(ev)
            elif _hidden(ev):
                self._drop(ev, "hidden (V0 never showed it to the LLM)")
                answer = self.answer.get(vid)
                if answer is not None and answer not in self.consumed:
                    self._drop(self.by_id[answer], "answers a hidden action")
            elif "action" in ev and isinstance(ev["action"], str):
                self._action(ev)
            else:
                self._observation(ev)
        events = self._validate()
        state = build_base_state(
            self.conv_id,
            self.src,
            self.events,
            events,
            status=self.status,
            tools=self.tools_offered or sorted(self.tools_called),
            tool_names=self.tool_names,
        )
        sidecar = {
            "format": "trajkit-v0-sidecar/1",
            "conversation_id": self.conv_id,
            "source": {
                "path": self.src.path,
                "container": self.src.container,
                "name": self.src.name,
                "shape": self.report.shape,
            },
            "metadata": self.src.metadata,
            "responses": self.responses,
            "events": [self.side[e["id"]] for e in self.events if e["id"] in self.side],
            "delegate_events": self.delegate_events,
        }
        return MigratedConversation(
            id=self.conv_id,
            name=self.src.name,
            source=self.src.path,
            base_state=state,
            events=events,
            report=self.report,
            sidecar=sidecar,
        )

    # -- pairing -----------------------------------------------------------------------------

    def _pair(self) -> dict[int, int]:
        """Action id -> id of the observation answering it."""
        answer: dict[int, int] = {}
        unanswered: list[dict[str, Any]] = []
        for ev in self.events:
            if isinstance(ev.get("action"), str):
                if ev["action"] in _TOOL_ACTIONS or ev["action"] not in ACTION_TYPES:
                    unanswered.append(ev)
                continue
            if ev.get("observation") in DROPPED_OBSERVATIONS or ev.get("observation") in (
                "recall",
                "agent_state_changed",
            ):
                continue
            cause = ev.get("cause")
            target = self.by_id.get(cause) if isinstance(cause, int) else None
            if target is None and cause is None:
                target = _by_call_id(unanswered, ev)
            if target is not None and target in unanswered and target["id"] not in answer:
                answer[target["id"]] = ev["id"]
                unanswered.remove(target)
        return answer

    def _delegate_ranges(self) -> set[int]:
        """Ids of sub-agent events between a `delegate` action and its result."""
        inner: set[int] = set()
        for ev in self.events:
            if ev.get("action") != "delegate":
                continue
            start = self.pos[ev["id"]]
            answer = self.answer.get(ev["id"])
            end = self.pos[answer] if answer is not None else self._next_user_message(start)
            inner.update(e["id"] for e in self.events[start + 1 : end])
        return inner

    def _next_user_message(self, start: int) -> int:
        """Position of the first user message after `start` (where an unfinished delegate ends)."""
        for pos in range(start + 1, len(self.events)):
            ev = self.events[pos]
            if ev.get("action") == "message" and ev.get("source") == "user":
                return pos
        return len(self.events)

    # -- actions -----------------------------------------------------------------------------

    def _action(self, ev: dict[str, Any]) -> None:
        kind, source = ev["action"], ev.get("source")
        has_call = tool_call_info(ev) is not None
        if kind == "recall":
            if self.last_user_msg is not None:
                self.recall_target[ev["id"]] = self.last_user_msg
            self._drop(ev, "recall action (its observation is folded into the user message)")
        elif kind in DROPPED_ACTIONS:
            self._drop(ev, f"{kind} action (no V1 counterpart)")
        elif kind == "system":
            self._system(ev)
        elif kind == "message":
            self._message(ev)
        elif kind == "condensation":
            self._condensation(ev)
        elif kind == "condensation_request" and not has_call:
            self._emit(ev, {"kind": "CondensationRequest", "source": "environment"})
            self._mapped(ev)
        elif kind == "finish" and source == "user":
            self._drop(ev, "finish sent by the user (/exit)")
        elif kind == "reject":
            self._text_message(
                ev, "agent", "assistant", _display(ev) or "Task is rejected by the agent."
            )
            self._mapped(ev, Fields(ev.get("args")))
        elif (kind in LEGACY_ACTIONS or kind not in ACTION_TYPES) and not has_call:
            self._opaque(ev)
        elif source == "user" and kind in _USER_TEXT_ACTIONS and not has_call:
            self._user_action(ev)
        else:
            if kind in LEGACY_ACTIONS or kind not in ACTION_TYPES:
                self.report.warn(
                    f"unknown V0 type {event_type(ev)!r} with a tool call kept as an MCP-style call"
                )
            self._tool_group(ev)

    def _system(self, ev: dict[str, Any]) -> None:
        args = Fields(ev.get("args"))
        tools = args.get("tools")
        defs = [d for d in (self._tool_definition(t) for t in _list(tools)) if d is not None]
        if any(e.get("kind") == "SystemPromptEvent" for e in self.out):
            self.report.warn("more than one system prompt in the trajectory; each was kept")
        self._emit(
            ev,
            {
                "kind": "SystemPromptEvent",
                "source": "agent",
                "system_prompt": {"type": "text", "text": args.text("content")},
                "tools": defs,
            },
        )
        self._mapped(ev, args)

    def _tool_definition(self, spec: Any) -> dict[str, Any] | None:
        fn = spec.get("function") if isinstance(spec, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            self.report.warn("a system-prompt tool that is not an OpenAI function spec was dropped")
            return None
        name = self._name(fn["name"])
        self.tools_offered.append(fn["name"])
        description = fn.get("description") if isinstance(fn.get("description"), str) else ""
        schema = fn.get("parameters") if isinstance(fn.get("parameters"), dict) else {}
        action_type = _PAYLOAD_OF_TOOL.get(fn["name"], "MCPToolAction")
        return {
            "description": description,
            "action_type": action_type,
            "observation_type": action_type.replace("Action", "Observation"),
            "mcp_tool": {"name": name, "description": description, "inputSchema": schema},
            "meta": {"migrated_from": "openhands-v0", "v0_name": fn["name"]},
            "kind": "MCPToolDefinition",
            "title": name,
        }

    def _message(self, ev: dict[str, Any]) -> None:
        args = Fields(ev.get("args"))
        source = (
            ev.get("source") if ev.get("source") in ("user", "agent", "environment") else "user"
        )
        content: list[dict[str, Any]] = [{"type": "text", "text": args.text("content")}]
        images = [u for u in _list(args.get("image_urls")) if isinstance(u, str) and u]
        if images:
            content.append({"type": "image", "image_urls": images})
        if _list(args.data.get("file_urls")):
            self.report.warn("file_urls of a message have no V1 field (kept in the sidecar)")
        args.get("security_risk")
        role = "assistant" if source == "agent" else "user"
        msg = self._emit(
            ev,
            {
                "kind": "MessageEvent",
                "source": source,
                "llm_message": {"role": role, "content": content},
            },
        )
        msg["activated_skills"], msg["extended_content"] = [], []
        if source == "user":
            self.last_user_msg = msg
        self._mapped(ev, args)

    def _text_message(
        self, ev: dict[str, Any], source: str, role: str, text: str, *, tag: str = ""
    ) -> None:
        self._emit(
            ev,
            {
                "kind": "MessageEvent",
                "source": source,
                "llm_message": {"role": role, "content": [{"type": "text", "text": text}]},
            },
            tag=tag,
        )

    def _user_action(self, ev: dict[str, Any]) -> None:
        """A command or edit the user made in the GUI: V0 showed it as user messages."""
        args = Fields(ev.get("args"))
        if ev["action"] == "run":
            text = "User executed the command:\n" + args.text("command")
        else:
            text = _display(ev) or json.dumps(args.data, ensure_ascii=False)
        self._text_message(ev, "user", "user", text)
        self._mapped(ev, args)
        answer = self.answer.get(ev["id"])
        if answer is not None:
            obs = self.by_id[answer]
            extras = Fields(obs.get("extras"))
            body = text_of(obs.get("content"))
            if obs.get("observation") == "run":
                meta = extras.get("metadata")
                meta = meta if isinstance(meta, dict) else {}
                body = str(meta.get("prefix") or "") + body + str(meta.get("suffix") or "")
                body = "\nObserved result of command executed by user:\n" + body
            self._text_message(obs, "user", "user", body)
            self.consumed.add(answer)
            self._mapped(obs, extras)

    def _condensation(self, ev: dict[str, Any]) -> None:
        args = Fields(ev.get("args"))
        ids = args.get("forgotten_event_ids")
        start, end = args.get("forgotten_events_start_id"), args.get("forgotten_events_end_id")
        forgotten = [i for i in _list(ids) if isinstance(i, int)]
        if not forgotten and isinstance(start, int) and isinstance(end, int):
            forgotten = list(range(start, end + 1))
        v1 = [x for i in forgotten for x in self.v1_ids.get(i, [])]
        d: dict[str, Any] = {
            "kind": "Condensation",
            "source": "environment",
            "forgotten_event_ids": v1,
            "llm_response_id": f"v0-condensation-{ev['id']}",
        }
        summary, offset = args.get("summary"), args.get("summary_offset")
        if isinstance(summary, str):
            d["summary"] = summary
        if isinstance(offset, int) and offset >= 0:
            d["summary_offset"] = offset
        self._emit(ev, d)
        self._mapped(ev, args)

    def _opaque(self, ev: dict[str, Any]) -> None:
        raw = {k: v for k, v in ev.items() if not k.startswith("_")}
        self.out.append(
            {
                "id": self._id(ev["id"]),
                "timestamp": self._ts(ev),
                "source": ev.get("source") if isinstance(ev.get("source"), str) else "environment",
                "v0": raw,
                "kind": "V0Event",
            }
        )
        self.v1_ids.setdefault(ev["id"], []).append(self.out[-1]["id"])
        self.report.opaque += 1
        self.report.warn(f"unknown V0 type {event_type(ev)!r} kept as an opaque V0Event")
        self._side_entry(ev, "opaque")

    # -- tool calls --------------------------------------------------------------------------

    def _tool_group(self, ev: dict[str, Any]) -> None:
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
                self._emit(
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
        fn_name = info.function_name if info else _CODEACT_TOOL.get(kind, kind)
        if kind == "call_tool_mcp" and not info and isinstance(args.data.get("name"), str):
            fn_name = args.data["name"]
        raw_args, call_args = call_arguments(info.raw_call if info else None)
        payload = action_payload(kind, args, call_args, display=_display(ev))
        if raw_args is None:
            raw_args = json.dumps(_rebuilt_arguments(payload), ensure_ascii=False)
            what = (
                "pre-function-calling action" if info is None else "call missing from its response"
            )
            self.report.warn(f"tool-call arguments rebuilt from V0 args ({what})")
        self.tools_called.add(fn_name)
        name = self._name(fn_name)
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
            "security_risk": _risk(args.data.get("security_risk")),
        }
        if first and info is not None:
            d.update(_reasoning(info.message))
        if info is not None and info.response_id:
            self._remember_response(info)
        self.actions_out[ev["id"]] = self._emit(ev, d)
        self._mapped(ev, args)

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
            text = _content_text(info.message.get("content"))
        else:
            text = args.text("thought")
        return [{"type": "text", "text": text}] if text.strip() else []

    def _call_id(self, ev: dict[str, Any], info: ToolCallInfo | None) -> str:
        call_id = info.tool_call_id if info else f"v0-call-{ev['id']}"
        if call_id in self.used_call_ids:
            new = f"{call_id}_v0_{ev['id']}"
            self.report.warn("repeated tool-call id made unique (original kept in the sidecar)")
            self.side_note(ev, "original_tool_call_id", call_id)
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
                "error": content + _ERROR_SUFFIX,
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
        self._emit(obs, d)
        self._mapped(obs, extras)

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
        self._emit(action, d, tag="result")
        self.report.synthesize(kind)

    def _synth_error(self, action: dict[str, Any]) -> None:
        call = self.actions_out[action["id"]]
        d = {
            "kind": "AgentErrorEvent",
            "source": "agent",
            "tool_name": call["tool_name"],
            "tool_call_id": call["tool_call_id"],
            "error": _NOT_EXECUTED,
        }
        self._emit(action, d, tag="result")
        self.report.synthesize("AgentErrorEvent for a call without result")
        self.report.warn(
            "a tool call without result was answered with a synthesized AgentErrorEvent"
        )

    # -- observations ------------------------------------------------------------------------

    def _observation(self, ev: dict[str, Any]) -> None:
        kind = ev.get("observation")
        if kind in DROPPED_OBSERVATIONS:
            self._drop(ev, f"{kind} observation (no V1 counterpart)")
        elif kind == "agent_state_changed":
            self._state_change(ev)
        elif kind == "recall":
            self._recall(ev)
        elif kind == "error":
            text = text_of(ev.get("content")) + _ERROR_SUFFIX
            self._text_message(ev, "environment", "user", text)
            self._mapped(ev, Fields(ev.get("extras")))
        elif kind not in OBSERVATION_TYPES:
            self._opaque(ev)
        else:
            # Untied text, or a result whose call is not in the trajectory: V0 showed it as a
            # user message.
            self._text_message(ev, "environment", "user", text_of(ev.get("content")))
            self._mapped(ev, Fields(ev.get("extras")))
            if ev.get("cause") is not None or tool_call_info(ev) is not None:
                self.report.warn(
                    "an observation whose action is not in the trajectory was kept as an "
                    "environment message"
                )

    def _state_change(self, ev: dict[str, Any]) -> None:
        extras = Fields(ev.get("extras"))
        state = extras.get("agent_state")
        status = _STATUS.get(state) if isinstance(state, str) else None
        reason = extras.get("reason")
        if status is None:
            self._drop(ev, "agent state unknown to V1")
            return
        if status == self.status and status != "error":
            self._drop(ev, "agent state change that leaves the V1 status as it was")
            return
        self.status = status
        self._emit(
            ev,
            {
                "kind": "ConversationStateUpdateEvent",
                "source": "environment",
                "key": "execution_status",
                "value": status,
            },
        )
        if status == "error" and isinstance(reason, str) and reason:
            self._emit(
                ev,
                {
                    "kind": "ConversationErrorEvent",
                    "source": "environment",
                    "code": "V0AgentError",
                    "detail": reason,
                },
                tag="error",
            )
        self._mapped(ev, extras)

    def _recall(self, ev: dict[str, Any]) -> None:
        extras = Fields(ev.get("extras"))
        cause = ev.get("cause")
        target = self.recall_target.get(cause) if isinstance(cause, int) else None
        target = target or self.last_user_msg
        text = recall_text(extras.data, shown_skills=self.shown_skills)
        skills = recall_skills(extras.data)
        self.shown_skills.update(skills)
        if target is None:
            if text:
                self._text_message(ev, "environment", "user", text)
                self._mapped(ev)
            else:
                self._drop(ev, "recall observation with nothing to add")
            return
        if text:
            target["extended_content"].append({"type": "text", "text": text})
        target["activated_skills"].extend(s for s in skills if s not in target["activated_skills"])
        self.v1_ids.setdefault(ev["id"], []).append(target["id"])
        self._side_entry(ev, "folded", unmapped=extras.data)
        self.report.mapped += 1

    def _set_aside(self, ev: dict[str, Any]) -> None:
        self.delegate_events.append({k: v for k, v in ev.items() if not k.startswith("_")})
        self.report.drop("delegate sub-agent event (kept whole in the sidecar)")

    # -- bookkeeping -------------------------------------------------------------------------

    def _emit(self, ev: dict[str, Any], d: dict[str, Any], *, tag: str = "") -> dict[str, Any]:
        vid = ev["id"]
        kind = d.pop("kind")
        d = {"id": self._id(vid, tag), "timestamp": self._ts(ev), **d, "kind": kind}
        self.out.append(d)
        self.v1_ids.setdefault(vid, []).append(d["id"])
        return d

    def _mapped(self, ev: dict[str, Any], *fields: Fields) -> None:
        unmapped: dict[str, Any] = {}
        for f in fields:
            unmapped.update(f.unmapped())
        self._side_entry(ev, "mapped", unmapped=unmapped)
        self.report.mapped += 1

    def _drop(self, ev: dict[str, Any], reason: str) -> None:
        self.consumed.add(ev["id"])
        entry = self._side_entry(ev, "dropped")
        entry["reason"] = reason
        entry["v0"] = {k: v for k, v in ev.items() if not k.startswith("_")}
        self.report.drop(reason)

    def _side_entry(
        self, ev: dict[str, Any], status: str, *, unmapped: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        vid = ev["id"]
        entry = self.side.setdefault(vid, {"v0_id": ev.get("_v0_original_id", vid)})
        entry.update({"type": event_type(ev), "status": status, "v1_ids": self.v1_ids.get(vid, [])})
        for key in ("source", "timestamp", "cause", "timeout", "success", "llm_metrics"):
            if key in ev:
                entry[key] = ev[key]
        info = tool_call_info(ev)
        if info is not None:
            entry["tool_call"] = {
                "function_name": info.function_name,
                "tool_call_id": info.tool_call_id,
                "total_calls_in_response": info.total_calls,
                "response_id": info.response_id,
            }
        if unmapped:
            entry["unmapped"] = unmapped
        return entry

    def side_note(self, ev: dict[str, Any], key: str, value: Any) -> None:
        """Attach one extra fact to an event's sidecar entry."""
        self.side.setdefault(ev["id"], {"v0_id": ev.get("_v0_original_id", ev["id"])})[key] = value

    def _remember_response(self, info: ToolCallInfo) -> None:
        assert info.response_id is not None
        if info.response_id not in self.responses:
            extra = {
                k: v for k, v in info.message.items() if k not in ("content", "tool_calls", "role")
            }
            self.responses[info.response_id] = {**info.response, "message_extras": extra}

    def _id(self, vid: int, tag: str = "") -> str:
        return str(uuid.uuid5(self.conv_uuid, f"v0:{vid}" + (f":{tag}" if tag else "")))

    def _ts(self, ev: dict[str, Any]) -> str:
        ts = ev.get("timestamp")
        if isinstance(ts, str) and ts:
            return ts
        if not self.synth_ts:
            self.synth_ts = True
            self.report.warn(
                "events without timestamps got synthesized ones (1970-01-01 + V0 id seconds)"
            )
        return (datetime(1970, 1, 1) + timedelta(seconds=int(ev["id"]))).isoformat()

    def _name(self, v0_name: str) -> str:
        return V1_TOOL_NAMES.get(v0_name, v0_name) if self.tool_names == "v1" else v0_name

    def _validate(self) -> list[Event]:
        events: list[Event] = []
        for d in self.out:
            try:
                events.append(parse_event(d))
            except (ValidationError, ValueError) as exc:
                first = exc.errors()[0] if isinstance(exc, ValidationError) else {"msg": str(exc)}
                where = "/".join(str(p) for p in first.get("loc", ()))
                self.report.warn(
                    f"a built {d.get('kind')} did not validate ({where}: {first.get('msg')}); "
                    "kept as an opaque V0Event"
                )
                raw = {
                    "id": d["id"],
                    "timestamp": d["timestamp"],
                    "source": "environment",
                    "v1_attempt": d,
                    "kind": "V0Event",
                }
                events.append(parse_event(raw))
        for e in events:
            self.report.v1_kinds[e.kind] = self.report.v1_kinds.get(e.kind, 0) + 1
        return events


def _by_call_id(unanswered: list[dict[str, Any]], obs: dict[str, Any]) -> dict[str, Any] | None:
    info = tool_call_info(obs)
    if info is None:
        return None
    for action in reversed(unanswered):
        other = tool_call_info(action)
        if other is not None and other.tool_call_id == info.tool_call_id:
            return action
    return None


def _hidden(ev: dict[str, Any]) -> bool:
    for key in ("args", "extras"):
        block = ev.get(key)
        if isinstance(block, dict) and block.get("hidden") is True:
            return True
    return False


def _display(ev: dict[str, Any]) -> str:
    message = ev.get("message")
    return message if isinstance(message, str) else ""


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p.get("text", "")
            for p in content
            if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return ""


def _reasoning(message: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(message.get("reasoning_content"), str) and message["reasoning_content"]:
        out["reasoning_content"] = message["reasoning_content"]
    blocks = []
    for b in _list(message.get("thinking_blocks")):
        if (
            isinstance(b, dict)
            and b.get("type") == "thinking"
            and isinstance(b.get("thinking"), str)
        ):
            blocks.append(
                {k: b[k] for k in ("type", "thinking", "signature") if isinstance(b.get(k), str)}
            )
        elif (
            isinstance(b, dict)
            and b.get("type") == "redacted_thinking"
            and isinstance(b.get("data"), str)
        ):
            blocks.append({"type": "redacted_thinking", "data": b["data"]})
    if blocks:
        out["thinking_blocks"] = blocks
    return out


def _rebuilt_arguments(payload: dict[str, Any]) -> dict[str, Any]:
    if payload.get("kind") == "MCPToolAction" and isinstance(payload.get("data"), dict):
        return dict(payload["data"])
    return {k: v for k, v in payload.items() if k != "kind" and v is not None}


def _risk(value: Any) -> str:
    # V0 wrote the SecurityRisk enum as an int (-1 unknown .. 2 high) since 0.54.
    return _RISK.get(value, "UNKNOWN") if isinstance(value, int) else "UNKNOWN"
