"""One display entry per event: what the terminal view and the HTML report both draw.

`event_to_entry()` turns an event into an `Entry`, a flat record of plain values (it is embedded
as JSON in the HTML report), so the two renderers agree on what each event shows:

- roles: `system`, `user`, `agent` (messages), `action` (tool call), `observation` (tool
  result), `error` (agent or run errors), `rejection`, `condensation`, `status` (pause,
  interrupt, state updates, hooks, logs), `unknown` (an unknown kind: raw JSON), `broken` (an
  event file that could not be read).
- `text` is the main body; `reasoning` holds reasoning content, thinking blocks and Responses
  reasoning summaries (never encrypted content); `args` the tool call's arguments, pretty JSON.
- `code` holds code to highlight: the terminal command (`bash`), a file created (language from
  its name), a `str_replace` as a unified diff (`diff`, difflib), the whole-file diff a file
  editor result records (`old_content` -> `new_content`), extended content.
- `usage` is set on the first event of each LLM response: its tokens, cost and latency from
  `base_state.json` stats, matched by response id (`token_usages[].response_id`; `costs[]`
  carry no id and are matched by position when both lists have the same length).
- `error` marks a failed step as `trajkit.events.outcome.is_failed_step` defines it (tool and
  agent errors, run errors, rejections, failed hooks, non-zero exit codes), the rule `stats` and
  `export` count with, so the report's error count is the dataset's `n_errors`.
- timing: `run_s` on a tool result is its tool's run time (call to result); `add_step_times()`
  sets `step_s` on the first event of each LLM response: from the event before it (when the
  LLM was asked) to the last result of the calls it made.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from trajkit.events import (
    ACPToolCallEvent,
    ActionEvent,
    AgentErrorEvent,
    Condensation,
    CondensationRequest,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    Event,
    FileEditorAction,
    FileEditorObservation,
    FinishAction,
    HookExecutionEvent,
    ImageContent,
    InterruptEvent,
    LLMCompletionLogEvent,
    MCPToolAction,
    MessageEvent,
    ObservationEvent,
    PauseEvent,
    RedactedThinkingBlock,
    ServerErrorEvent,
    SystemPromptEvent,
    TerminalAction,
    TerminalObservation,
    TextContent,
    ThinkAction,
    TokenEvent,
    UnknownAction,
    UnknownEvent,
    UnknownObservation,
    UserRejectObservation,
)
from trajkit.events.outcome import exit_code, is_failed_step

if TYPE_CHECKING:
    from trajkit.events import BaseState
    from trajkit.views.load import Broken

__all__ = [
    "CodeBlock",
    "Entry",
    "Usage",
    "add_step_times",
    "event_to_entry",
    "iter_entries",
    "seconds_between",
    "unified_diff",
    "usage_by_response",
]


@dataclass
class CodeBlock:
    """Code to show highlighted."""

    label: str
    """What it is (`command`, the file path, `extended content`)."""
    language: str
    """Pygments lexer alias or file name hint: `bash`, `diff`, `json`, `text`, or `file:<path>`."""
    text: str
    """The code."""
    detail: bool = False
    """Shown by the terminal view only with `--full` (the HTML report always shows it)."""


@dataclass
class Usage:
    """Tokens and cost of one LLM response."""

    response_id: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None
    latency: float | None = None


@dataclass
class Entry:
    """One event as the views show it; see the module docstring."""

    index: int
    id: str
    time: str
    kind: str
    source: str
    role: str
    title: str
    text: str = ""
    reasoning: str = ""
    tool: str | None = None
    call_id: str | None = None
    args: str | None = None
    args_primary: bool = False
    code: list[CodeBlock] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: bool = False
    response_id: str | None = None
    usage: Usage | None = None
    raw: str | None = None
    exit_code: int | None = None
    run_s: float | None = None
    step_s: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able values (shallow: `dataclasses.asdict` deep-copies, 4x slower)."""
        data = dict(self.__dict__)
        data["code"] = [dict(c.__dict__) for c in self.code]
        data["usage"] = dict(self.usage.__dict__) if self.usage is not None else None
        return data


def usage_by_response(state: BaseState | None) -> dict[str, Usage]:
    """Per-response usage from `stats.usage_to_metrics.*`, keyed by response id."""
    out: dict[str, Usage] = {}
    stats = state.stats if state is not None else None
    metrics = (stats.usage_to_metrics or {}) if stats is not None else {}
    for m in metrics.values():
        usages = m.token_usages or []
        costs = m.costs or []
        latencies = {
            str(lat.get("response_id")): lat.get("latency")
            for lat in (m.response_latencies or [])
            if isinstance(lat, dict)
        }
        aligned = len(costs) == len(usages)
        for i, tu in enumerate(usages):
            if not tu.response_id:
                continue
            cost = costs[i].get("cost") if aligned and isinstance(costs[i], dict) else None
            latency = latencies.get(tu.response_id)
            out[tu.response_id] = Usage(
                response_id=tu.response_id,
                prompt_tokens=tu.prompt_tokens or 0,
                completion_tokens=tu.completion_tokens or 0,
                cache_read_tokens=tu.cache_read_tokens or 0,
                reasoning_tokens=tu.reasoning_tokens or 0,
                cost=float(cost) if isinstance(cost, int | float) else None,
                latency=float(latency) if isinstance(latency, int | float) else None,
            )
    return out


def iter_entries(
    items: Iterable[tuple[int, Event | Broken]], usage: dict[str, Usage] | None = None
) -> Iterator[Entry]:
    """Entries for `(position, event)` pairs; usage goes on the first event of each response."""
    usage = usage or {}
    seen: set[str] = set()
    called: dict[str, str] = {}
    for index, item in items:
        if not isinstance(item, Event):
            yield Entry(
                index=index,
                id="",
                time="",
                kind="(unreadable)",
                source="",
                role="broken",
                title="unreadable event file",
                text=item.message,
                error=True,
            )
            continue
        entry = event_to_entry(index, item)
        rid = entry.response_id
        if rid and rid not in seen:
            seen.add(rid)
            entry.usage = usage.get(rid)
        if entry.call_id:
            if entry.role == "action":
                called.setdefault(entry.call_id, entry.time)
            elif entry.call_id in called:
                entry.run_s = seconds_between(called[entry.call_id], entry.time)
        yield entry


def add_step_times(entries: list[Entry]) -> None:
    """Set `step_s` on the first event of each LLM response (see the module docstring)."""
    first: dict[str, int] = {}
    calls: dict[str, str] = {}
    end: dict[str, str] = {}
    for pos, e in enumerate(entries):
        rid = e.response_id
        if rid and e.role in ("action", "agent") and rid not in first:
            first[rid] = pos
        if rid and rid in first:
            end[rid] = e.time
            if e.call_id:
                calls[e.call_id] = rid
        elif e.call_id in calls and e.role != "action":
            end[calls[e.call_id]] = e.time
    for rid, pos in first.items():
        start = entries[pos - 1].time if pos > 0 else entries[pos].time
        entries[pos].step_s = seconds_between(start, end.get(rid, entries[pos].time))


@lru_cache(maxsize=4096)
def _instant(timestamp: str) -> datetime | None:
    try:
        return datetime.fromisoformat(timestamp)
    except ValueError:
        return None


def seconds_between(first: str | None, last: str | None) -> float | None:
    """Seconds from one ISO timestamp to another; None when either is missing or unreadable."""
    a = _instant(first) if first else None
    b = _instant(last) if last else None
    if a is None or b is None or (a.tzinfo is None) != (b.tzinfo is None):
        return None
    return max(0.0, (b - a).total_seconds())


def event_to_entry(index: int, event: Event) -> Entry:
    """The entry for one event."""
    entry = Entry(
        index=index,
        id=event.id,
        time=event.timestamp,
        kind=event.kind,
        source=str(event.source),
        role="status",
        title=event.kind,
    )
    for cls, fill in _FILLERS:
        if isinstance(event, cls):
            fill(entry, event)
            entry.error = is_failed_step(event)  # the one rule export and stats share
            return entry
    _fill_unknown(entry, event)
    return entry


# -- one filler per kind ------------------------------------------------------------------------


def _fill_system(entry: Entry, ev: Any) -> None:
    entry.role, entry.title = "system", "system prompt"
    entry.text = ev.system_prompt.text
    if ev.dynamic_context is not None:
        entry.code.append(CodeBlock("dynamic context", "text", ev.dynamic_context.text))
    if ev.tools:
        entry.notes.append("tools: " + ", ".join(t.title for t in ev.tools))


def _fill_message(entry: Entry, ev: Any) -> None:
    msg = ev.llm_message
    entry.role = {"user": "user", "agent": "agent"}.get(ev.source, ev.source)
    entry.title = ev.sender or entry.role
    entry.text = msg.text
    entry.images = _images(msg.content)
    entry.reasoning = _reasoning(msg)
    entry.response_id = ev.llm_response_id
    for ext in ev.extended_content:
        entry.code.append(CodeBlock("extended content", "text", ext.text))
    if ev.activated_skills:
        entry.notes.append("skills: " + ", ".join(ev.activated_skills))


def _fill_action(entry: Entry, ev: Any) -> None:
    entry.role, entry.title = "action", ev.tool_name
    entry.tool, entry.call_id = ev.tool_name, ev.tool_call_id
    entry.response_id = ev.llm_response_id
    entry.text = "\n".join(t.text for t in ev.thought)
    entry.reasoning = _reasoning(ev)
    entry.args = _pretty_json(ev.tool_call.arguments)
    if ev.summary and not ev.summary.startswith(f"{ev.tool_name}: "):
        entry.notes.append(ev.summary)  # the SDK's default summary only repeats the call
    action = ev.action
    entry.args_primary = action is None or isinstance(action, MCPToolAction | UnknownAction)
    if action is None:
        entry.notes.append("not executed: the call could not be parsed into an action")
    elif isinstance(action, TerminalAction):
        label = "input" if action.is_input else "command"
        entry.code.append(CodeBlock(label, "bash", action.command))
    elif isinstance(action, FileEditorAction):
        entry.code.extend(_file_edit_blocks(action))
    elif isinstance(action, FinishAction):
        entry.text = _join(entry.text, action.message)
    elif isinstance(action, ThinkAction):
        entry.reasoning = _join(entry.reasoning, action.thought)
    elif isinstance(action, MCPToolAction):
        entry.args = json.dumps(action.data, indent=2, ensure_ascii=False)
    if ev.security_risk != "UNKNOWN":
        entry.notes.append(f"security risk: {ev.security_risk}")


def _fill_observation(entry: Entry, ev: Any) -> None:
    obs = ev.observation
    entry.role, entry.title = "observation", ev.tool_name
    entry.tool, entry.call_id = ev.tool_name, ev.tool_call_id
    if isinstance(obs, TerminalObservation):
        entry.text = obs.llm_text()
        entry.exit_code = exit_code(obs)
        if obs.timeout:
            entry.notes.append("timed out")
    else:
        entry.text = "".join(c.text for c in obs.content if isinstance(c, TextContent))
    entry.images = _images(obs.content)
    if isinstance(obs, FileEditorObservation):
        _add_file_diff(entry, obs)
    for ext in ev.extended_content:
        entry.code.append(CodeBlock("extended content", "text", ext.text))
    if isinstance(obs, UnknownObservation) and obs.extra_fields():
        entry.raw = json.dumps(obs.extra_fields(), indent=2, ensure_ascii=False, default=str)


def _fill_reject(entry: Entry, ev: Any) -> None:
    entry.role, entry.title = "rejection", f"{ev.tool_name} rejected"
    entry.tool, entry.call_id = ev.tool_name, ev.tool_call_id
    entry.text = f"Action rejected by {ev.rejection_source}: {ev.rejection_reason}"


def _fill_agent_error(entry: Entry, ev: Any) -> None:
    entry.role, entry.title = "error", f"{ev.tool_name} error"
    entry.tool, entry.call_id = ev.tool_name, ev.tool_call_id
    entry.text = ev.error
    if ev.classification.kind != "unknown":
        entry.notes.append(f"classification: {ev.classification.kind}")


def _fill_run_error(entry: Entry, ev: Any) -> None:
    entry.role, entry.title = "error", ev.code
    entry.text = ev.detail


def _fill_condensation(entry: Entry, ev: Any) -> None:
    entry.role, entry.title = "condensation", "condensation"
    entry.response_id = ev.llm_response_id
    n = len(ev.forgotten_event_ids)
    entry.notes.append(f"forgot {n} event{'s' if n != 1 else ''} from the LLM's view")
    if ev.summary is not None:
        entry.text = ev.summary
        if ev.summary_offset is not None:
            entry.notes.append(f"summary inserted at position {ev.summary_offset}")


def _fill_condensation_request(entry: Entry, ev: Any) -> None:
    entry.role, entry.title = "condensation", "condensation requested"


def _fill_pause(entry: Entry, ev: Any) -> None:
    entry.title = "paused" if isinstance(ev, PauseEvent) else "interrupted"


def _fill_state(entry: Entry, ev: Any) -> None:
    entry.title = f"state: {ev.key}"
    value = json.dumps(ev.value, ensure_ascii=False, default=str)
    entry.text = value if len(value) <= 200 else value[:200] + "…"


def _fill_hook(entry: Entry, ev: Any) -> None:
    entry.title = f"hook {ev.hook_event_type}"
    entry.text = _join(ev.hook_command, ev.reason or ev.error or "")
    entry.notes.append(f"exit code {ev.exit_code}" + (", blocked" if ev.blocked else ""))


def _fill_log(entry: Entry, ev: Any) -> None:
    entry.title = f"completion log {ev.filename}"
    entry.notes.append(f"model {ev.model_name}, {len(ev.log_data):,} characters")


def _fill_tokens(entry: Entry, ev: Any) -> None:
    entry.title = "token ids"
    entry.notes.append(f"{len(ev.prompt_token_ids)} prompt, {len(ev.response_token_ids)} response")


def _fill_acp(entry: Entry, ev: Any) -> None:
    entry.role, entry.title = "action", ev.title
    entry.tool, entry.call_id = ev.tool_kind or "acp", ev.tool_call_id
    entry.args_primary = True
    entry.args = json.dumps(ev.raw_input, indent=2, ensure_ascii=False, default=str)
    if ev.raw_output is not None:
        entry.text = json.dumps(ev.raw_output, indent=2, ensure_ascii=False, default=str)


def _fill_unknown(entry: Entry, ev: Event) -> None:
    entry.role, entry.title = "unknown", f"unknown kind {ev.kind}"
    raw = ev.raw if isinstance(ev, UnknownEvent) else json.loads(ev.to_json())
    entry.raw = json.dumps(raw, indent=2, ensure_ascii=False, default=str)


_FILLERS: list[tuple[type, Any]] = [
    (SystemPromptEvent, _fill_system),
    (MessageEvent, _fill_message),
    (ActionEvent, _fill_action),
    (ObservationEvent, _fill_observation),
    (UserRejectObservation, _fill_reject),
    (AgentErrorEvent, _fill_agent_error),
    (ConversationErrorEvent, _fill_run_error),
    (ServerErrorEvent, _fill_run_error),
    (Condensation, _fill_condensation),
    (CondensationRequest, _fill_condensation_request),
    (PauseEvent, _fill_pause),
    (InterruptEvent, _fill_pause),
    (ConversationStateUpdateEvent, _fill_state),
    (HookExecutionEvent, _fill_hook),
    (LLMCompletionLogEvent, _fill_log),
    (TokenEvent, _fill_tokens),
    (ACPToolCallEvent, _fill_acp),
]


# -- helpers ------------------------------------------------------------------------------------


def _file_edit_blocks(action: FileEditorAction) -> list[CodeBlock]:
    path = action.path
    if action.command == "create" and action.file_text is not None:
        return [CodeBlock(f"create {path}", f"file:{path}", action.file_text)]
    if action.command == "str_replace":
        return [
            CodeBlock(
                f"edit {path}",
                "diff",
                unified_diff(action.old_str or "", action.new_str or "", path),
            )
        ]
    if action.command == "insert" and action.new_str is not None:
        return [
            CodeBlock(
                f"insert after line {action.insert_line} of {path}", f"file:{path}", action.new_str
            )
        ]
    label = f"{action.command} {path}"
    if action.view_range:
        label += f" lines {action.view_range[0]}–{action.view_range[-1]}"
    return [CodeBlock(label, "text", "")]


def _add_file_diff(entry: Entry, obs: FileEditorObservation) -> None:
    old, new = obs.old_content, obs.new_content
    if old is None or new is None or old == new:
        return
    path = obs.path or "file"
    entry.code.append(
        CodeBlock(f"file diff {path}", "diff", unified_diff(old, new, path), detail=True)
    )


def unified_diff(old: str, new: str, path: str) -> str:
    """A unified diff of one file's old and new text (`a<path>`/`b<path>` headers)."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a{path}", f"b{path}", n=3
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines).rstrip("\n")


def _images(content: Iterable[Any]) -> list[str]:
    return [url for c in content if isinstance(c, ImageContent) for url in c.image_urls]


def _reasoning(obj: Any) -> str:
    parts: list[str] = []
    if getattr(obj, "reasoning_content", None):
        parts.append(obj.reasoning_content)
    for block in getattr(obj, "thinking_blocks", None) or []:
        if isinstance(block, RedactedThinkingBlock):
            parts.append("[redacted thinking]")
        else:
            parts.append(block.thinking)
    item = getattr(obj, "responses_reasoning_item", None)
    if item is not None:
        parts.extend(item.summary)
        parts.extend(item.content or [])
    return "\n\n".join(p for p in parts if p)


def _pretty_json(text: str) -> str:
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, TypeError):
        return text


def _join(a: str, b: str) -> str:
    return f"{a}\n\n{b}" if a and b else a or b
