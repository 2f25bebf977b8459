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
from typing import Any, Literal

from trajkit.events import BaseState, Event
from trajkit.shapes.v0.containers import V0Source
from trajkit.shapes.v0.history import (
    ACTION_TYPES,
    DROPPED_ACTIONS,
    DROPPED_OBSERVATIONS,
    LEGACY_ACTIONS,
    OBSERVATION_TYPES,
    answering_action,
    display_text,
    event_type,
    is_hidden,
    normalize_history,
    tool_call_info,
)
from trajkit.shapes.v0.ledger import Ledger
from trajkit.shapes.v0.payloads import (
    Fields,
    text_of,
    tool_definition,
)
from trajkit.shapes.v0.recall import recall_skills, recall_text
from trajkit.shapes.v0.report import MigrationReport
from trajkit.shapes.v0.state import build_base_state
from trajkit.shapes.v0.toolcalls import CODEACT_TOOL, ERROR_SUFFIX, ToolCalls

__all__ = ["V1_TOOL_NAMES", "MigratedConversation", "ToolNames", "v0_to_v1"]

ToolNames = Literal["keep", "v1"]

V1_TOOL_NAMES = {
    "execute_bash": "terminal",
    "str_replace_editor": "file_editor",
    "task_tracker": "task_tracker",
}
"""V0 CodeAct tool names that have a V1 tool (others keep their name under either option)."""

_TOOL_ACTIONS = frozenset(CODEACT_TOOL) | {"call_tool_mcp"}
_USER_TEXT_ACTIONS = frozenset({"run", "read", "edit", "write", "browse", "browse_interactive"})
_STATUS = {
    "loading": "idle", "init": "idle", "awaiting_user_input": "idle", "running": "running",
    "user_confirmed": "running", "user_rejected": "running", "rate_limited": "running",
    "paused": "paused", "stopped": "paused",
    "awaiting_user_confirmation": "waiting_for_confirmation", "finished": "finished",
    "rejected": "finished", "error": "error",
}  # fmt: skip
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
        self.log = Ledger(self.conv_id, self.report, synth_ts=hist.synthesized_timestamps)
        self.consumed: set[int] = set()
        self.last_user_msg: dict[str, Any] | None = None
        self.recall_target: dict[int, dict[str, Any]] = {}
        self.shown_skills: set[str] = set()
        self.status: str | None = None
        self.tools_offered: list[str] = []
        self.answer = self._pair()
        self.inner = self._delegate_ranges()
        self.calls = ToolCalls(
            self.log,
            self.events,
            answer=self.answer,
            inner=self.inner,
            consumed=self.consumed,
            name=self._name,
        )

    # -- driver ------------------------------------------------------------------------------

    def run(self) -> MigratedConversation:
        for ev in self.events:
            self.report.count_source(event_type(ev))
        for ev in self.events:
            vid = ev["id"]
            if vid in self.consumed:
                continue
            if vid in self.inner:
                self.log.set_aside(ev)
            elif is_hidden(ev):
                self._drop(ev, "hidden (V0 never showed it to the LLM)")
                answer = self.answer.get(vid)
                if answer is not None and answer not in self.consumed:
                    self._drop(self.by_id[answer], "answers a hidden action")
            elif "action" in ev and isinstance(ev["action"], str):
                self._action(ev)
            else:
                self._observation(ev)
        events = self.log.validate()
        state = build_base_state(
            self.conv_id,
            self.src,
            self.events,
            events,
            status=self.status,
            tools=self.tools_offered or sorted(self.calls.tools_called),
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
            "responses": self.log.responses,
            "events": self.log.sidecar_events(self.events),
            "delegate_events": self.log.delegate_events,
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
                target = answering_action(unanswered, ev)
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
            self.log.emit(ev, {"kind": "CondensationRequest", "source": "environment"})
            self.log.mapped(ev)
        elif kind == "finish" and source == "user":
            self._drop(ev, "finish sent by the user (/exit)")
        elif kind == "reject":
            self._text_message(
                ev, "agent", "assistant", display_text(ev) or "Task is rejected by the agent."
            )
            self.log.mapped(ev, Fields(ev.get("args")))
        elif (kind in LEGACY_ACTIONS or kind not in ACTION_TYPES) and not has_call:
            self._opaque(ev)
        elif source == "user" and kind in _USER_TEXT_ACTIONS and not has_call:
            self._user_action(ev)
        else:
            if kind in LEGACY_ACTIONS or kind not in ACTION_TYPES:
                self.report.warn(
                    f"unknown V0 type {event_type(ev)!r} with a tool call kept as an MCP-style call"
                )
            self.calls.emit_group(ev)

    def _system(self, ev: dict[str, Any]) -> None:
        args = Fields(ev.get("args"))
        tools = args.get("tools")
        defs = [d for d in (self._tool_definition(t) for t in _list(tools)) if d is not None]
        if any(e.get("kind") == "SystemPromptEvent" for e in self.log.out):
            self.report.warn("more than one system prompt in the trajectory; each was kept")
        self.log.emit(
            ev,
            {
                "kind": "SystemPromptEvent",
                "source": "agent",
                "system_prompt": {"type": "text", "text": args.text("content")},
                "tools": defs,
            },
        )
        self.log.mapped(ev, args)

    def _tool_definition(self, spec: Any) -> dict[str, Any] | None:
        fn = spec.get("function") if isinstance(spec, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            self.report.warn("a system-prompt tool that is not an OpenAI function spec was dropped")
            return None
        self.tools_offered.append(fn["name"])
        return tool_definition(fn, self._name(fn["name"]))

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
        msg = self.log.emit(
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
        self.log.mapped(ev, args)

    def _text_message(
        self, ev: dict[str, Any], source: str, role: str, text: str, *, tag: str = ""
    ) -> None:
        self.log.emit(
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
            text = display_text(ev) or json.dumps(args.data, ensure_ascii=False)
        self._text_message(ev, "user", "user", text)
        self.log.mapped(ev, args)
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
            self.log.mapped(obs, extras)

    def _condensation(self, ev: dict[str, Any]) -> None:
        args = Fields(ev.get("args"))
        ids = args.get("forgotten_event_ids")
        start, end = args.get("forgotten_events_start_id"), args.get("forgotten_events_end_id")
        forgotten = [i for i in _list(ids) if isinstance(i, int)]
        if not forgotten and isinstance(start, int) and isinstance(end, int):
            forgotten = list(range(start, end + 1))
        v1 = [x for i in forgotten for x in self.log.v1_ids.get(i, [])]
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
        self.log.emit(ev, d)
        self.log.mapped(ev, args)

    def _opaque(self, ev: dict[str, Any]) -> None:
        source = ev.get("source")
        self.log.opaque(ev, source if isinstance(source, str) else "environment")

    # -- tool calls --------------------------------------------------------------------------

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
            text = text_of(ev.get("content")) + ERROR_SUFFIX
            self._text_message(ev, "environment", "user", text)
            self.log.mapped(ev, Fields(ev.get("extras")))
        elif kind not in OBSERVATION_TYPES:
            self._opaque(ev)
        else:
            # Untied text, or a result whose call is not in the trajectory: V0 showed it as a
            # user message.
            self._text_message(ev, "environment", "user", text_of(ev.get("content")))
            self.log.mapped(ev, Fields(ev.get("extras")))
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
        self.log.emit(
            ev,
            {
                "kind": "ConversationStateUpdateEvent",
                "source": "environment",
                "key": "execution_status",
                "value": status,
            },
        )
        if status == "error" and isinstance(reason, str) and reason:
            self.log.emit(
                ev,
                {
                    "kind": "ConversationErrorEvent",
                    "source": "environment",
                    "code": "V0AgentError",
                    "detail": reason,
                },
                tag="error",
            )
        self.log.mapped(ev, extras)

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
                self.log.mapped(ev)
            else:
                self._drop(ev, "recall observation with nothing to add")
            return
        if text:
            target["extended_content"].append({"type": "text", "text": text})
        target["activated_skills"].extend(s for s in skills if s not in target["activated_skills"])
        self.log.folded(ev, target, extras.data)

    def _drop(self, ev: dict[str, Any], reason: str) -> None:
        self.consumed.add(ev["id"])
        self.log.drop(ev, reason)

    def _name(self, v0_name: str) -> str:
        return V1_TOOL_NAMES.get(v0_name, v0_name) if self.tool_names == "v1" else v0_name


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
