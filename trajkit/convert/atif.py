"""A V1 conversation as one ATIF trajectory (`ATIF-v1.8`, the newest the `atif` package has).

Rules (`write_atif` streams them, one event in and finished steps out):

- `SystemPromptEvent`: a `system` step; its tools become `agent.tool_definitions` (the
  functions the model was offered, as `convert --to chat` lists them).
- `MessageEvent`: a `user` step, an `agent` step (with `reasoning_content`), or, from the
  environment, a result without `source_call_id` of the agent step just written (what a non-tool
  action gave back) or else a `system` step.
- `ActionEvent`s sharing one `llm_response_id`: **one** agent step holding every call (the
  first call's `thought` is the message, its reasoning the step's); `arguments` parsed to an
  object.
- `ObservationEvent`, `AgentErrorEvent`, `UserRejectObservation`: a result of the step holding
  the call, paired by `source_call_id`, its content the tool message the model was shown.
- `Condensation`: a `system` step marked `extra.context_management = {type: compaction,
  boundary: replace}` (Harbor's convention), the summary as its message.
- per agent step, `metrics` from the SDK's usage for that LLM call (joined on the response id:
  prompt, completion and cached tokens, the call's cost; reasoning and cache-write tokens in
  `metrics.extra`); `final_metrics` their sums.
- sub-conversations (the task tool's `subagents/<hex>/` folders beside the conversation's
  events): each an embedded trajectory in `subagent_trajectories` (`trajectory_id` = its
  conversation id, written by these same rules, its own sub-conversations inside it), and the
  task call's result refers to it (`subagent_trajectory_ref`) when the sub-conversation's first
  user message is the task's prompt (a resumed task: the one its task id named before).
- events with no ATIF place (state updates, pauses, ...) ride in `extra.openhands` of the step
  before them (`before` at the root when no step came yet); `ATIFData` events (what an ATIF file
  read by `trajkit.shapes.atif` had beyond V1) are merged back where they came from.

Each step, call and result keeps under `extra.openhands.event` the difference between its V1
event and what `trajkit.shapes.atif` rebuilds from the step, and the root the base state's, so
reading the file back gives the same events. A step waits until its calls are answered (so
results land in it), then is written; memory holds the steps not yet answered.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from trajkit.convert.tools import tools_to_chat, unknown_tools
from trajkit.errors import TrajkitError
from trajkit.events import (
    ActionEvent,
    Condensation,
    Event,
    ImageContent,
    MessageEvent,
    ObservationBaseEvent,
    SystemPromptEvent,
    TaskAction,
    TaskObservation,
    TextContent,
    UnknownEvent,
    dump_event,
)
from trajkit.shapes.atif import (
    DATA_KIND,
    OPENHANDS,
    diff_of,
    merge_diff,
    rebuild,
    sliced,
)
from trajkit.shapes.chatlog import tool_definition
from trajkit.shapes.memory import derived_id
from trajkit.store import StoredConversation, open_conversation

__all__ = ["SCHEMA_VERSION", "conversation_to_atif", "write_atif"]

SCHEMA_VERSION = "ATIF-v1.8"
"""The version written: the newest the `atif` package (1.8.0) implements."""
_Usage = tuple[dict[str, Any], float | None]
_EPOCH = "1970-01-01T00:00:00"
_OPEN_STEPS = 64
"""Steps held for late results at most: an older one with a call never answered is written."""
_COMPACTION = {"type": "compaction", "boundary": "replace"}
_MEDIA = {"jpeg": "image/jpeg", "jpg": "image/jpeg", "png": "image/png", "gif": "image/gif",
          "webp": "image/webp"}  # fmt: skip


def conversation_to_atif(
    path_or_stored: str | os.PathLike[str] | StoredConversation, *, keep_invalid: bool = False
) -> tuple[dict[str, Any], list[str]]:
    """`(the ATIF trajectory, warnings)` of one conversation (`write_atif`, in memory)."""
    buffer = io.BytesIO()
    errors, problems = write_atif(path_or_stored, buffer, keep_invalid=keep_invalid)
    return orjson.loads(buffer.getvalue()), [*(f"{e} (kept)" for e in errors), *problems]


def write_atif(
    path_or_stored: str | os.PathLike[str] | StoredConversation,
    out: IO[bytes],
    *,
    options: Any = None,
    keep_invalid: bool = False,
    line: bool = False,
) -> tuple[list[str], list[str]]:
    """Write one conversation as an ATIF trajectory (indented, or one compact line with
    `line`); returns `(validate's errors, kept with keep_invalid; warnings)`. Validated first:
    an invalid conversation raises `TrajkitError` (its first error) unless `keep_invalid`;
    nothing is written then. `options` are not used: ATIF keeps everything.
    """
    from trajkit.convert._source import opened
    from trajkit.shapes.memory import MemoryConversation

    conv = (
        path_or_stored
        if isinstance(path_or_stored, StoredConversation)
        else open_conversation(path_or_stored)
    )
    if isinstance(conv, MemoryConversation):  # in memory already: checked, then written
        conv, errors = opened(conv, keep_invalid=keep_invalid)
        writer = _Writer(conv, out, line)
        writer.run(conv.iter_events(skip_empty=True))
    else:
        errors, writer = _one_read(conv, out, line, keep_invalid)
    notes = [*getattr(conv, "notes", ()), *conv.upgrade_notes()]
    return errors, [*notes, *writer.problems]


def _one_read(
    conv: StoredConversation, out: IO[bytes], line: bool, keep_invalid: bool
) -> tuple[list[str], _Writer]:
    """A folder read once: each file goes to validate's verdict and, parsed, to the writer,
    whose output waits in a temp file until the verdict allows it (as `convert` does).
    """
    import shutil
    import tempfile

    from trajkit.store.reader import scanned_event
    from trajkit.validate.verdict import Verdict, invalid_reason

    verdict = Verdict(conv.path)
    with tempfile.TemporaryFile(buffering=1 << 20) as spool:
        writer: _Writer | None = None
        failure: Exception | None = None
        for scanned in verdict.files():
            verdict.add(scanned)
            if failure is not None or not scanned.raw or scanned.raw.isspace():
                continue  # an empty file is skipped, as the SDK does
            try:
                writer = writer or _Writer(conv, spool, line)
                writer.event(scanned_event(scanned, conv.upgrades))
            except (TrajkitError, ValueError) as exc:  # validate says what is wrong
                failure = exc
        errors = verdict.errors()
        if errors and not keep_invalid:
            raise TrajkitError(invalid_reason(errors))
        if failure is not None:
            raise failure
        writer = writer or _Writer(conv, spool, line)
        writer.finish()
        spool.seek(0)
        shutil.copyfileobj(spool, out, 1 << 20)
    return errors, writer


_HEADER = ("schema_version", "session_id")
"""The root keys written before the steps (`schema_version`) and first after them
(`session_id`: a source's own, from its root data, is known only at the end)."""


@dataclass
class _Step:
    step: dict[str, Any]
    events: list[tuple[str, Event, int]] = field(default_factory=list)
    """(piece, event, index) in the order the reader rebuilds them."""
    waiting: set[str] = field(default_factory=set)
    """Call ids not answered yet."""
    after: list[dict[str, Any]] = field(default_factory=list)
    response_id: str | None = None


class _Writer:
    def __init__(self, conv: StoredConversation, out: IO[bytes], line: bool) -> None:
        self.conv, self.out, self.line = conv, out, line
        self.id = conv.id
        state = conv.base_state()
        self.state = orjson.loads(state.model_dump_json(exclude_none=True)) if state else None
        self.model = _model(self.state)
        self.usage, self.unkeyed = _usage(self.state)
        self.pending: list[_Step] = []
        self.written = 0
        self.tools: list[dict[str, Any]] = []
        self.v1_tools: list[dict[str, Any]] = []
        self.before: list[dict[str, Any]] = []
        self.root_data: dict[str, Any] = {}
        self.problems: list[str] = []
        self.totals = {"prompt": 0, "completion": 0, "cached": 0, "cost": 0.0}
        self.usages: list[tuple[str, str, dict[str, Any]]] = []  # as the reader sees them
        self.last_id: str | None = None
        self.last_time = _EPOCH  # as the reader dates a step without a timestamp
        self.llm_ids: list[str] = []
        self.prompted = False
        self.started = False
        self.sub_folders = _sub_folders(conv)
        self.subs = _subagents(self.sub_folders)
        self.prompts: dict[str, str] = {}  # task call id -> the task's prompt
        self.tasks: dict[str, str] = {}  # task id -> sub-conversation id

    # -- reading events ----------------------------------------------------------------------

    def run(self, events: Iterable[Event]) -> None:
        for event in events:
            self.event(event)
        self.finish()

    def _start(self) -> None:
        self.out.write(b"{" if self.line else b"{\n")
        self._key("schema_version", SCHEMA_VERSION, first=True)
        self.out.write(b',"steps":[' if self.line else b',\n  "steps": [')
        self.started = True

    def finish(self) -> None:
        if not self.started:
            self._start()
        self._flush(everything=True)
        self.out.write(b"]" if self.line else b"\n  ]")
        self._tail()

    def event(self, event: Event) -> None:
        """Take the next event (steps are written as they are answered)."""
        if not self.started:
            self._start()
        if isinstance(event, SystemPromptEvent):
            self.tools = tools_to_chat(event.tools)
            self.v1_tools = [tool_definition(t) for t in self.tools]  # as the reader makes them
            self.problems += [
                f"tool {n!r}: parameter schema unknown" for n in unknown_tools(event.tools)
            ]
            self._new(event, "system", event.system_prompt.text, piece="system-prompt")
        elif isinstance(event, ActionEvent):
            self._action(event)
        elif isinstance(event, ObservationBaseEvent):
            self._result(event)
        elif isinstance(event, MessageEvent):
            self._message(event)
        elif isinstance(event, Condensation):
            step = self._new(event, "system", event.summary or "", piece="condensation")
            step.step["extra"] = {"context_management": dict(_COMPACTION)}
        elif isinstance(event, UnknownEvent) and event.kind == DATA_KIND:
            self._data(orjson.loads(dump_event(event)))
        elif self.pending:
            self.pending[-1].after.append(orjson.loads(dump_event(event)))
        else:
            self.before.append(orjson.loads(dump_event(event)))

    def _new(self, event: Event, source: str, message: Any, *, piece: str) -> _Step:
        self._flush()
        step = _Step({"source": source, "message": message})
        if (timestamp := _timestamp(event)) and timestamp != _EPOCH:
            step.step["timestamp"] = timestamp
        step.events.append((piece, event, 0))
        self.pending.append(step)
        return step

    def _message(self, event: MessageEvent) -> None:
        message = _message(event.to_llm_message().content)
        last = self.pending[-1] if self.pending else None
        if event.source == "environment" and last and last.step["source"] == "agent":
            results = last.step.setdefault("observation", {"results": []})["results"]
            results.append({"content": message})
            last.events.append(("loose", event, len(results) - 1))
            return
        source = {"user": "user", "agent": "agent"}.get(event.source, "system")
        step = self._new(event, source, message, piece="message")
        if source == "agent":
            if event.llm_message.reasoning_content:
                step.step["reasoning_content"] = event.llm_message.reasoning_content
            step.response_id = event.llm_response_id
            self._metrics(step)

    def _action(self, event: ActionEvent) -> None:
        last = self.pending[-1] if self.pending else None
        if (
            last is None
            or last.response_id != event.llm_response_id
            or "tool_calls" not in last.step
        ):
            last = self._new(event, "agent", _message(event.thought), piece="action")
            if event.reasoning_content:
                last.step["reasoning_content"] = event.reasoning_content
            last.step["tool_calls"] = []
            last.response_id = event.llm_response_id
            self._metrics(last)
        else:
            last.events.append(("action", event, len(last.step["tool_calls"])))
        try:
            arguments = orjson.loads(event.tool_call.arguments)
        except orjson.JSONDecodeError:
            arguments = None
        last.step["tool_calls"].append({
            "tool_call_id": event.tool_call_id, "function_name": event.tool_call.name,
            "arguments": arguments if isinstance(arguments, dict) else {},
        })  # fmt: skip
        last.waiting.add(event.tool_call_id)
        if self.subs and isinstance(event.action, TaskAction):
            self.prompts[event.tool_call_id] = event.action.prompt

    def _result(self, event: ObservationBaseEvent) -> None:
        content = _message(event.llm_content())
        owner = next((s for s in self.pending if event.tool_call_id in s.waiting), None)
        if owner is None:  # answers no call of a step still open: a system step of its own
            step = self._new(event, "system", "", piece="raw")
            step.step["observation"] = {"results": [{"content": content}]}
            return
        owner.waiting.discard(event.tool_call_id)
        results = owner.step.setdefault("observation", {"results": []})["results"]
        results.append({"source_call_id": event.tool_call_id, "content": content})
        owner.events.append(("result", event, len(results) - 1))
        if self.subs and (sub := self._task_sub(event)) is not None:
            results[-1]["subagent_trajectory_ref"] = [{"trajectory_id": sub}]

    def _task_sub(self, event: ObservationBaseEvent) -> str | None:
        """The sub-conversation a task's result came from (see the module docstring)."""
        observation = getattr(event, "observation", None)
        if not isinstance(observation, TaskObservation):
            return None
        found = self.tasks.get(observation.task_id)
        prompt = self.prompts.get(event.tool_call_id)
        if found is None and prompt is not None:
            same = [sub for sub, first in self.subs.items() if first == prompt]
            if len(same) == 1 and same[0] not in self.tasks.values():
                found = self.tasks[observation.task_id] = same[0]
        return found

    def _metrics(self, step: _Step) -> None:
        found = self.usage.get(step.response_id or "")
        if found is None and self.unkeyed and step.response_id:
            found = self.unkeyed.pop(0)  # an older SDK's usage without response ids
        if found is None:
            return
        usage, cost = found
        metrics: dict[str, Any] = {
            "prompt_tokens": usage.get("prompt_tokens", 0),
            "completion_tokens": usage.get("completion_tokens", 0),
            "cached_tokens": usage.get("cache_read_tokens", 0),
        }
        if cost is not None:
            metrics["cost_usd"] = cost
        extra = {k: usage[k] for k in ("reasoning_tokens", "cache_write_tokens") if usage.get(k)}
        if extra:
            metrics["extra"] = extra
        model = usage.get("model")
        if isinstance(model, str) and model and model != self.model:
            step.step["model_name"] = model
        step.step["metrics"] = metrics
        self.totals["prompt"] += metrics["prompt_tokens"]
        self.totals["completion"] += metrics["completion_tokens"]
        self.totals["cached"] += metrics["cached_tokens"]
        self.totals["cost"] += cost or 0.0

    def _data(self, event: dict[str, Any]) -> None:
        """An `ATIFData` event: a whole step, or what a step (or the root) had beyond V1."""
        if isinstance(event.get("step"), dict):
            self._flush()
            self.pending.append(_Step(dict(event["step"])))
        elif event.get("step_id") == 0 or not self.pending:
            self.root_data = _merged(self.root_data, event.get("data"))
        else:
            last = self.pending[-1]
            last.step = _merged(last.step, event.get("data"))

    # -- writing steps ----------------------------------------------------------------------

    def _flush(self, *, everything: bool = False) -> None:
        """Write the steps at the head that are answered (all of them at the end)."""
        while self.pending and (
            everything
            or len(self.pending) > 1
            and (not self.pending[0].waiting or len(self.pending) > _OPEN_STEPS)
        ):
            self._write(self.pending.pop(0))

    def _write(self, pending: _Step) -> None:
        n = self.written
        step = {"step_id": n + 1, **pending.step}
        if pending.after:
            _own(step)["after"] = pending.after
        self._diffs(n, step, pending)
        sep = b"," if n else b""
        self.out.write(sep + orjson.dumps(step) if self.line else sep + b"\n" + _indented(step, 4))
        self.written += 1
        for event in pending.after:
            self.last_id = event.get("id", self.last_id)
            self.last_time = event.get("timestamp", self.last_time)

    def _diffs(self, n: int, step: dict[str, Any], pending: _Step) -> None:
        """Store, for each event of the step, what the reader will not rebuild."""
        response_id = derived_id(self.id, str(n), "r")
        action_ids: dict[str, str] = {}
        for piece, event, i in pending.events:
            data = orjson.loads(dump_event(event))
            part = {"action": f"a{i}", "result": f"o{i}", "loose": f"o{i}"}.get(piece, "m")
            context: dict[str, Any] = {
                "id": derived_id(self.id, str(n), part), "parent_id": self.last_id,
                "timestamp": step.get("timestamp", self.last_time), "tools": self.v1_tools,
                "llm_response_id": response_id, "forgotten": self.llm_ids,
                "summary_offset": int(self.prompted),
                "action_id": action_ids.get(getattr(event, "tool_call_id", ""), ""),
                "source": _SOURCES.get(step["source"], "environment"),
            }  # fmt: skip
            base_piece = piece
            if piece == "raw":
                holder: dict[str, Any] = step["observation"]["results"][0]
                diff = data
            else:
                source_step = step
                if piece == "loose":
                    base_piece, context["source"] = "message", "environment"
                    source_step = {"message": step["observation"]["results"][i]["content"]}
                if piece == "system-prompt" and (self.prompted or self.llm_ids):
                    base_piece = "message"  # read as a message, as the reader does
                if base_piece == "message" and context["source"] != "agent":
                    context.pop("llm_response_id")
                base = rebuild(base_piece, source_step, context, i)
                diff = diff_of(data, base)
                if piece == "action":
                    holder = step["tool_calls"][i]
                elif piece in ("result", "loose"):
                    holder = step["observation"]["results"][i]
                else:
                    holder = step
            if diff:
                _own(holder)["event"] = diff
            final = merge_diff({}, diff) if piece == "raw" else merge_diff(base, diff)
            if piece == "result":  # a text the result shows is written once (after the merge:
                sliced(diff, step["observation"]["results"][i].get("content"))  # shares parts)
            self.last_id, self.last_time = final["id"], final.get("timestamp", self.last_time)
            if piece == "action":
                action_ids.setdefault(final["tool_call_id"], final["id"])
                if i == 0:
                    response_id = final.get("llm_response_id", response_id)
            if base_piece == "message" and context["source"] == "agent":
                response_id = final.get("llm_response_id") or response_id
            if base_piece == "system-prompt":
                self.prompted = True
            elif final.get("kind") in _LLM_KINDS:
                self.llm_ids.append(final["id"])
        if step["source"] == "agent" and isinstance(step.get("metrics"), dict):
            model = step.get("model_name") or self.model or "unknown"
            self.usages.append((response_id, model, step["metrics"]))

    def _key(self, key: str, value: Any, *, first: bool = False) -> None:
        sep = b"" if first else b","
        if self.line:
            self.out.write(sep + orjson.dumps(key) + b":" + orjson.dumps(value))
        else:
            body = _indented(value, 2).lstrip()
            self.out.write(
                sep + (b"" if first else b"\n") + b"  " + orjson.dumps(key) + b": " + body
            )

    def _tail(self) -> None:
        from trajkit.shapes.atif import atif_state

        agent: dict[str, Any] = {"name": "openhands-sdk", "version": "unknown"}
        if self.model:
            agent["model_name"] = self.model
        if self.tools:
            agent["tool_definitions"] = self.tools
        root: dict[str, Any] = {"agent": agent}
        if self.usages or self.totals["prompt"]:
            root["final_metrics"] = {
                "total_prompt_tokens": self.totals["prompt"],
                "total_completion_tokens": self.totals["completion"],
                "total_cached_tokens": self.totals["cached"],
                "total_cost_usd": self.totals["cost"], "total_steps": self.written,
            }  # fmt: skip
        own: dict[str, Any] = {}
        if self.state is not None:
            base = atif_state(self.id, self.model, self.usages, self.last_id)
            own["base_state"] = {**diff_of(self.state, base), "id": self.id}
        if self.before:
            own["before"] = self.before
        if self.root_data:
            own["root"] = self.root_data
        root["extra"] = {OPENHANDS: own}
        root = _merged(root, self.root_data)
        if "final_metrics" in self.root_data:  # the file's own totals, as they were
            root["final_metrics"] = self.root_data["final_metrics"]
        self._key("session_id", root.get("session_id", self.id))
        for key, value in root.items():
            if key not in _HEADER:
                self._key(key, value)
        self._embed(root.get("subagent_trajectories"))
        self.out.write(b"}" if self.line else b"\n}\n")

    def _embed(self, already: Any) -> None:
        """Write each sub-conversation as an embedded trajectory, one at a time (after those
        the root held already, when an ATIF file read before had some).
        """
        if not self.subs or already:
            return  # (a conversation read from ATIF has no folder of sub-conversations)
        sep = b"," if self.line else b",\n"
        self.out.write(b',"subagent_trajectories":[' if self.line
                       else b',\n  "subagent_trajectories": [\n')  # fmt: skip
        for n, folder in enumerate(self.sub_folders):
            try:
                document, problems = conversation_to_atif(folder, keep_invalid=True)
            except TrajkitError as exc:
                self.problems.append(f"sub-conversation {folder.name}: {exc}; not embedded")
                document, problems = {"schema_version": SCHEMA_VERSION, "agent": {
                    "name": "openhands-sdk", "version": "unknown"}, "steps": []}, []  # fmt: skip
            document["trajectory_id"] = (  # an ATIF file's own id, kept when it was migrated
                document.get("trajectory_id") or document.get("session_id") or folder.name
            )
            self.problems += [f"sub-conversation {folder.name}: {p}" for p in problems]
            body = orjson.dumps(document) if self.line else _indented(document, 4)
            self.out.write((sep if n else b"") + body)
        self.out.write(b"]" if self.line else b"\n  ]")


_SOURCES = {"user": "user", "agent": "agent"}
_LLM_KINDS = {"MessageEvent", "ActionEvent", "ObservationEvent", "AgentErrorEvent",
              "UserRejectObservation", "CondensationSummaryEvent"}  # fmt: skip


def _sub_folders(conv: StoredConversation) -> list[Path]:
    """The conversation's sub-conversation folders (`subagents/<hex>/`), oldest first."""
    from trajkit.shapes.memory import MemoryConversation
    from trajkit.store.layout import is_conversation_folder, subagents_dir

    folder = conv.path
    if isinstance(conv, MemoryConversation) or not isinstance(folder, Path):
        return []  # in memory, or in storage: no folder of sub-conversations to list
    try:
        found = [p for p in subagents_dir(folder).iterdir() if is_conversation_folder(p)]
    except OSError:
        return []
    return sorted(found, key=lambda p: (_first_time(p), p.name))


def _first_time(folder: Path) -> str:
    try:
        first = next(iter(open_conversation(folder).iter_events()), None)
    except TrajkitError:
        return ""
    return (_timestamp(first) if first is not None else None) or ""


def _subagents(folders: list[Path]) -> dict[str, str | None]:
    """Each sub-conversation's id and its first user message (a task's prompt), in order."""
    out: dict[str, str | None] = {}
    for folder in folders:
        try:
            sub = open_conversation(folder)
            first = next(
                (
                    e
                    for e in sub.iter_events()
                    if isinstance(e, MessageEvent) and e.source == "user"
                ),
                None,
            )
        except TrajkitError:
            out[folder.name] = None
            continue
        text = first.llm_message.content if first is not None else []
        out[sub.id] = "".join(p.text for p in text if isinstance(p, TextContent)) or None
    return out


def _own(holder: dict[str, Any]) -> dict[str, Any]:
    extra = holder.setdefault("extra", {})
    own: dict[str, Any] = extra.setdefault(OPENHANDS, {})
    return own


def _merged(base: dict[str, Any], data: Any) -> dict[str, Any]:
    """`base` with `data` laid over it: objects key by key, lists item by item."""
    if not isinstance(data, dict):
        return base
    out = dict(base)
    for key, value in data.items():
        old = out.get(key)
        if isinstance(value, dict) and isinstance(old, dict):
            out[key] = _merged(old, value)
        elif isinstance(value, list) and isinstance(old, list) and len(value) == len(old):
            out[key] = [
                _merged(o, v) if isinstance(o, dict) else v for o, v in zip(old, value, strict=True)
            ]
        else:
            out[key] = value
    return out


def _model(state: dict[str, Any] | None) -> str | None:
    llm = (state or {}).get("agent", {}).get("llm", {})
    model = llm.get("model") if isinstance(llm, dict) else None
    return model if isinstance(model, str) and model != "unknown" else None


def _usage(state: dict[str, Any] | None) -> tuple[dict[str, _Usage], list[_Usage]]:
    """Each LLM call's token usage and cost, by response id (the SDK keeps one usage and one
    cost per call, in the same order); and the agent's calls an older SDK recorded without a
    response id, in order (paired with the agent steps in order).
    """
    by_id: dict[str, _Usage] = {}
    unkeyed: list[_Usage] = []
    stats = (state or {}).get("stats", {}).get("usage_to_metrics", {})
    for name, metrics in stats.items() if isinstance(stats, dict) else []:
        usages = metrics.get("token_usages") or []
        costs = metrics.get("costs") or []
        paired = len(costs) == len(usages)
        for i, usage in enumerate(usages):
            if not isinstance(usage, dict):
                continue
            cost = costs[i].get("cost") if paired and isinstance(costs[i], dict) else None
            if usage.get("response_id"):
                by_id[str(usage["response_id"])] = (usage, cost)
            elif name == "agent":
                unkeyed.append((usage, cost))
    return by_id, unkeyed


def _message(content: Any) -> Any:
    """V1 content as an ATIF message: a string when all text, else content parts."""
    parts = list(content)
    if all(isinstance(p, TextContent) for p in parts):
        return "".join(p.text for p in parts)
    out: list[dict[str, Any]] = []
    for p in parts:
        if isinstance(p, TextContent):
            out.append({"type": "text", "text": p.text})
        elif isinstance(p, ImageContent):
            out += [{"type": "image", "source": {"media_type": _media(u), "path": u}}
                    for u in p.image_urls]  # fmt: skip
    return out


def _media(url: str) -> str:
    head = url[5:].split(";", 1)[0] if url.startswith("data:") else url.rsplit(".", 1)[-1]
    return head if head in _MEDIA.values() else _MEDIA.get(head.lower(), "image/png")


def _timestamp(event: Event) -> str | None:
    stamp = getattr(event, "timestamp", None)
    return stamp if isinstance(stamp, str) else (stamp.isoformat() if stamp else None)


def _indented(value: Any, indent: int) -> bytes:
    text = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    pad = b" " * indent
    return pad + text.replace(b"\n", b"\n" + pad)
