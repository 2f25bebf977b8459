"""ATIF trajectories (Harbor's Agent Trajectory Interchange Format) read as V1 conversations.

A `.json` file whose `schema_version` is `ATIF-v1.N` (every version up to v1.8) is one
conversation; each trajectory embedded in `subagent_trajectories` (v1.7+) is another, addressed
`file.json#<trajectory_id>` (`#a/b` below a nested one). A Harbor trial or job folder is walked
like any folder, so its `agent/trajectory.json` and subagent files are each read.

Continuations: when Harbor resets the context it writes the rest of the run to the file the
root's `continued_trajectory_ref` names (`trajectory.cont-1.json`, then `-2`, ...; a plain file
name beside it). Reading a trajectory joins every continuation that is there, in order, into one
conversation (a note says so); a folder walk does not list a continuation again on its own
(`is_continuation`), while one named alone is read alone. The continuation's first steps are
the context copied into it (`is_copied_context`): they follow the compaction step, so the
conversation shows what the model saw after the reset. The root of each part (its file, step
count, `final_metrics`, ...) is kept in the root's `extra.continuations`.

Mapping, one step at a time (`atif_to_v1`):

- the first `system` step before any agent step: `SystemPromptEvent`, tools from
  `agent.tool_definitions` (the OpenAI function kept verbatim in `meta.openai_function`);
- a `system` step marked `extra.context_management.type == "compaction"`: `Condensation`
  forgetting every LLM event before it but the system prompt, its message the summary;
- any other `system` step: an environment `MessageEvent`; a `user` step: a user one;
- an `agent` step without tool calls: an agent `MessageEvent` (`reasoning_content` kept);
  with tool calls: one `ActionEvent` per call sharing one `llm_response_id` (the step's message
  is the first call's `thought`), then an `ObservationEvent` per result with `source_call_id`
  (payload kind `ImportedObservation`, rendered from its content); a result without one is an
  environment message after them;
- per-step `metrics` become the conversation's `stats` (one token usage and cost per step,
  joined on the step's `llm_response_id`).

What V1 has no field for is kept where V1 keeps unknown data, an event of unknown kind
(`ATIFData`, ignored by every view and named in convert's warnings): after each step what of
it was not mapped (token ids, logprobs, step `model_name`, refs, `extra`, ...), and last the
root's leftovers (agent name and version, notes, `final_metrics`, refs, `extra`), so writing
the conversation back as ATIF (`trajkit.convert.atif`) gives every step, call, result and metric
again.

trajkit's own ATIF (`convert --to atif`) also holds, under `extra.openhands` of the root, steps,
calls and results, the difference between each V1 event and what this mapping rebuilds from the
step (`rebuild`), so a V1 conversation comes back event for event; `diff_of` and `merge_diff` are
that difference and its inverse, shared with the writer.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import orjson

from trajkit.errors import InputError
from trajkit.shapes._files import json_object, open_input
from trajkit.shapes.chatlog import imported_state, tool_definition
from trajkit.shapes.memory import MemoryConversation, ShapeRef, derived_id, digest

__all__ = [
    "CONTINUATIONS",
    "DATA_KIND",
    "OPENHANDS",
    "Beside",
    "NotRead",
    "atif_refs",
    "atif_to_v1",
    "continues",
    "diff_of",
    "embedded_keys",
    "embedded_refs",
    "embedding_ref",
    "is_atif_head",
    "is_continuation",
    "load_trajectory",
    "merge_diff",
    "open_atif",
    "read_trajectory",
    "part_files",
    "rebuild",
    "sliced",
    "takes_atif",
    "text_parts",
    "unsliced",
]

OPENHANDS = "openhands"
"""Key of the `extra` objects trajkit writes (the V1 data ATIF has no field for)."""
DATA_KIND = "ATIFData"
"""Kind of the unknown-kind event holding what of an ATIF step V1 has no field for."""
OBSERVATION_KIND = "ImportedObservation"
"""Payload kind of an observation read from another format (rendered from its content)."""
CONTINUATIONS = "continuations"
"""Key of the root's `extra` listing the parts a joined trajectory was read from."""
_EPOCH = "1970-01-01T00:00:00"
_CONT_NAME = re.compile(r"^(?P<stem>.+)\.cont-(?P<n>[0-9]+)\.json$")
_MAX_PARTS = 1000
_VERSION = re.compile(rb'"schema_version"\s*:\s*"ATIF-v')
_DROP = "$drop"


def takes_atif(path: Path) -> bool:
    """A `.json` file whose first 64 KiB name an ATIF `schema_version`."""
    if not path.is_file() or path.suffix != ".json":
        return False
    try:
        with open_input(path) as fh:
            head = fh.read(64 * 1024)
    except (OSError, InputError):
        return False
    return is_atif_head(head)


def is_atif_head(head: bytes) -> bool:
    """Whether the first bytes of a `.json` file name an ATIF `schema_version`."""
    return head.lstrip().startswith(b"{") and _VERSION.search(head[: 64 * 1024]) is not None


class NotRead(Exception):
    """A file beside a trajectory that is never read (its message says why)."""


class Beside(Protocol):
    """Where a trajectory file is (a folder, an archive): its name, and the files beside it,
    which its continuations are. One joining rule reads both (`_continuations`).
    """

    @property
    def name(self) -> str:
        """The trajectory's file name."""
        ...

    def label(self, name: str) -> str:
        """The address of the file `name` beside it (what messages and `ls` show)."""
        ...

    def read(self, name: str) -> bytes:
        """The bytes of the file `name` beside it: `FileNotFoundError` when there is none,
        `NotRead` when it is never read, `InputError` when it cannot be read.
        """
        ...


@dataclass(frozen=True)
class _InFolder:
    """A trajectory file on disk: a continuation is a plain file beside it, in its folder."""

    path: Path

    @property
    def name(self) -> str:
        return self.path.name

    def label(self, name: str) -> str:
        return str(self.path.with_name(name))

    def read(self, name: str) -> bytes:
        from trajkit.store.layout import link_outside
        from trajkit.store.reader import read_file_bytes

        nxt = self.path.with_name(name)
        if not nxt.is_file():
            raise FileNotFoundError(name)
        if (real := link_outside(nxt, self.path.parent)) is not None:
            raise NotRead(f"a symlink to {real}, outside the folder")
        return read_file_bytes(nxt)


def load_trajectory(label: str, raw: bytes) -> dict[str, Any]:
    """An ATIF file's bytes as its root object; else `InputError` naming `label`."""
    return json_object(label, raw, bad_json="not valid JSON: {exc}",
                       not_object="expected an ATIF trajectory (a JSON object)")  # fmt: skip


def _load(path: Path) -> dict[str, Any]:
    from trajkit.store.reader import read_file_bytes

    return load_trajectory(str(path), read_file_bytes(path))


def atif_refs(path: Path) -> Iterator[ShapeRef]:
    """The trajectory (its continuations joined), then each embedded subagent trajectory
    (depth first, those of the continuations addressed in their own file).
    """
    yield ShapeRef("atif", str(path))
    try:
        doc = _load(path)
    except InputError:
        return  # opening the trajectory says what is wrong
    for name, key in embedded_keys(doc, _InFolder(path)):
        yield ShapeRef("atif", str(path.with_name(name)), key=key)


def embedded_keys(root: dict[str, Any], beside: Beside, key: str = "") -> Iterator[tuple[str, str]]:
    """`(file name, key)` of each subagent trajectory embedded below the one at `key` of an
    ATIF file whose root object is `root` (depth first); below the root (`""`), then those of
    each of its continuations (addressed in their own file).
    """
    doc, _ = _find(root, key, beside.label(beside.name))
    yield from ((beside.name, k) for k in _subagent_keys(doc, f"{key}/" if key else ""))
    if not key:
        for name, part, _ in _continuations(doc, beside)[0]:
            yield from ((name, k) for k in _subagent_keys(part, ""))


def is_continuation(path: Path) -> bool:
    """Whether `path` is the continuation an earlier file beside it names (`continues`)."""
    return continues(_InFolder(path))


def continues(beside: Beside) -> bool:
    """Whether the trajectory (`<stem>.cont-N.json`) is the continuation an earlier part beside
    it (`<stem>.cont-<K>.json` for K < N, nearest first, or `<stem>.json`) names in its
    `continued_trajectory_ref` (numbers may skip: Harbor names them, the refs decide).
    """
    match = _CONT_NAME.match(beside.name)
    if match is None:
        return False
    stem, n = match["stem"], int(match["n"])
    earlier = [f"{stem}.cont-{k}.json" for k in range(min(n, _MAX_PARTS) - 1, 0, -1)]
    for name in [*earlier, f"{stem}.json"]:
        try:
            previous = load_trajectory(beside.label(name), beside.read(name))
        except FileNotFoundError:
            continue
        except (InputError, NotRead, OSError):
            return False
        return previous.get("continued_trajectory_ref") == beside.name
    return False


def part_files(path: Path) -> list[Path]:
    """The files beside `path` that may continue it (`<stem>.cont-N.json`, by name: what a
    cache stats to see a joined trajectory change without reading it).
    """
    stem = path.name.removesuffix(".json")
    try:
        names = os.listdir(path.parent)
    except OSError:
        return []
    return sorted(
        path.with_name(n) for n in names if (m := _CONT_NAME.match(n)) and m["stem"] == stem
    )


def _continuations(
    doc: dict[str, Any], beside: Beside
) -> tuple[list[tuple[str, dict[str, Any], bytes]], list[str]]:
    """`([(file name, trajectory, its bytes)] of the continuations, notes)`: each file a root's
    `continued_trajectory_ref` names, beside it, in order; one that is missing, unreadable,
    never read (a link leading outside) or named twice ends the chain with a note.
    """
    parts: list[tuple[str, dict[str, Any], bytes]] = []
    seen = {beside.name}
    follow = doc.get("continued_trajectory_ref")
    while isinstance(follow, str) and follow:
        where = f"continued in {follow} (after a context reset)"
        if (
            os.path.basename(follow) != follow
            or follow in (".", "..")
            or set(follow) & {"\\", "\x00"}
        ):
            return parts, [f"{where}: not a file name beside it; not read"]
        if follow in seen or len(parts) >= _MAX_PARTS:
            return parts, [f"{where}: named twice in the chain; not read again"]
        try:
            raw = beside.read(follow)
            part = orjson.loads(raw)
        except FileNotFoundError:
            return parts, [f"{where}, which is not beside it: not read"]
        except NotRead as exc:
            return parts, [f"{where}: {exc}; not read"]
        except (InputError, orjson.JSONDecodeError) as exc:
            return parts, [f"{where}: unreadable ({exc}); not joined"]
        if not isinstance(part, dict) or not isinstance(part.get("steps"), list):
            return parts, [f"{where}: not an ATIF trajectory; not joined"]
        seen.add(follow)
        parts.append((follow, part, raw))
        follow = part.get("continued_trajectory_ref")
    return parts, []


def _subagent_keys(doc: dict[str, Any], prefix: str) -> Iterator[str]:
    subs = doc.get("subagent_trajectories")
    for i, sub in enumerate(subs if isinstance(subs, list) else []):
        if isinstance(sub, dict):
            key = f"{prefix}{sub.get('trajectory_id') or i}"
            yield key
            yield from _subagent_keys(sub, key + "/")


def embedded_refs(ref: ShapeRef) -> list[ShapeRef]:
    """Every trajectory embedded below `ref`, depth first (a root's continuations' too):
    what `migrate` writes in the folder of the trajectory embedding it (`embedding_ref`).
    """
    path = Path(ref.file)
    keys = embedded_keys(_load(path), _InFolder(path), ref.key)
    return [ShapeRef("atif", str(path.with_name(n)), k) for n, k in keys]


def embedding_ref(sub: ShapeRef, top: ShapeRef) -> ShapeRef:
    """The trajectory `sub` (one of `embedded_refs(top)`, or of an archive's) is embedded in:
    `top` itself for one at its first level (or at a continuation's first level).
    """
    member, mark, key = sub.key.rpartition("#")  # `member#key` in an archive
    head = key.rpartition("/")[0]
    return ShapeRef(sub.shape, sub.file, member + mark + head) if head else top


def _find(doc: dict[str, Any], key: str, label: str) -> tuple[dict[str, Any], str]:
    """The embedded trajectory at `key` (`a/b`), and its JSON pointer."""
    pointer = ""
    for part in key.split("/") if key else []:
        subs = doc.get("subagent_trajectories")
        subs = subs if isinstance(subs, list) else []
        found = [
            (i, s)
            for i, s in enumerate(subs)
            if isinstance(s, dict) and str(s.get("trajectory_id") or i) == part
        ]
        if not found:
            raise InputError(label, pointer, f"no subagent trajectory {part!r}")
        i, doc = found[0]
        pointer += f"/subagent_trajectories/{i}"
    return doc, pointer


def open_atif(ref: ShapeRef, *, embedded: bool = True) -> MemoryConversation:
    """One trajectory of an ATIF file as a conversation in memory; without `embedded`, its
    `subagent_trajectories` are not kept in its root data (`migrate` writes them as folders
    of their own below it, from which `convert --to atif` embeds them again).
    """
    path = Path(ref.file)
    return read_trajectory(_load(path), _InFolder(path), ref.label, ref.key,
                           where=os.path.abspath(path), embedded=embedded)  # fmt: skip


def read_trajectory(
    root: dict[str, Any], beside: Beside, label: str, key: str = "", *, where: str,
    embedded: bool = True,
) -> MemoryConversation:  # fmt: skip
    """The trajectory at `key` (`""`: the root, its continuations joined) of the ATIF file
    whose root object is `root` and which is in `beside`; `label` is its address, `where`
    names it when it has no id of its own (see `open_atif`).
    """
    doc, pointer = _find(root, key, label)
    own = doc.get("extra", {}).get(OPENHANDS, {}) if isinstance(doc.get("extra"), dict) else {}
    state_diff = own.get("base_state") if isinstance(own, dict) else None
    conv_id = state_diff.get("id") if isinstance(state_diff, dict) else None
    if not isinstance(conv_id, str):
        session = doc.get("session_id") or doc.get("trajectory_id")
        conv_id = derived_id(str(session or where), key)
    parts: list[tuple[str, dict[str, Any], bytes]] = []
    chain_notes: list[str] = []
    if not key:
        parts, chain_notes = _continuations(doc, beside)
        if continues(beside):  # named alone: an id of its own, not its predecessor's
            conv_id = derived_id(conv_id, beside.name)
            chain_notes.append("continues an earlier trajectory beside it; read that file "
                               "for the whole run")  # fmt: skip
    reader = _Reader(doc, conv_id, label, pointer)
    reader.keep_embedded = embedded
    reader.parts = [(beside.label(n), d) for n, d, _ in parts]
    reader.names = {beside.label(n): n for n in [beside.name, *(n for n, _, _ in parts)]}
    state, events, pointers, notes = reader.read()
    fingerprint = orjson.dumps(doc) + b"".join(raw for _, _, raw in parts)
    return MemoryConversation(
        label,
        conversation_id=conv_id,
        state=state,
        events=events,
        pointers=pointers,
        files=reader.files if parts else None,
        notes=[*notes, *chain_notes],
        fingerprint=digest(fingerprint),
        origin="atif",
    )


# -- the shared pieces: content, the difference and its inverse --------------------------


def text_parts(message: Any) -> list[dict[str, Any]]:
    """ATIF `message` / result `content` (a string or content parts) as V1 content."""
    if isinstance(message, str):
        return [_text(message)] if message else []
    parts: list[dict[str, Any]] = []
    for part in message if isinstance(message, list) else []:
        if not isinstance(part, dict):
            continue
        source = _obj(part.get("source"))
        if part.get("type") == "image" and isinstance(source.get("path"), str):
            parts.append({"cache_prompt": False, "type": "image", "image_urls": [source["path"]]})
        elif isinstance(part.get("text"), str):
            parts.append(_text(part["text"]))
        elif isinstance(source.get("path"), str):  # audio: V1 has no audio part
            parts.append(_text(f"[{part.get('type')}: {source['path']}]"))
    return parts


def _obj(value: Any) -> dict[str, Any]:
    """`value` when it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _text(text: str) -> dict[str, Any]:
    return {"cache_prompt": False, "type": "text", "text": text}


def diff_of(value: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    """What turns `base` into `value` (`merge_diff(base, diff) == value`): keys that differ,
    objects compared key by key, and `$drop` for keys of `base` that `value` lacks.
    """
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key not in base:
            out[key] = item
        elif isinstance(item, dict) and isinstance(base[key], dict):
            if sub := diff_of(item, base[key]):
                out[key] = sub
        elif item != base[key] or type(item) is not type(base[key]):
            out[key] = item if not isinstance(item, dict) else {**item, _DROP: list(base[key])}
    dropped = [k for k in base if k not in value]
    if dropped:
        out[_DROP] = dropped
    return out


def merge_diff(base: dict[str, Any], diff: Any) -> dict[str, Any]:
    """`base` with `diff` applied (see `diff_of`); a diff that is not an object is ignored."""
    if not isinstance(diff, dict):
        return base
    out = {k: v for k, v in base.items() if k not in (diff.get(_DROP) or ())}
    for key, item in diff.items():
        if key == _DROP:
            continue
        if isinstance(item, dict) and _DROP not in item and isinstance(out.get(key), dict):
            out[key] = merge_diff(out[key], item)
        elif isinstance(item, dict) and _DROP in item and not isinstance(base.get(key), dict):
            out[key] = {k: v for k, v in item.items() if k != _DROP}
        else:
            out[key] = merge_diff({}, item) if isinstance(item, dict) else item
    return out


def sliced(diff: dict[str, Any], content: Any) -> None:
    """Replace, in a result's difference, each observation text the result's content holds
    by `{"$slice": [start, end]}` of that content (a terminal output is not written twice).
    """
    observation = diff.get("observation")
    parts = observation.get("content") if isinstance(observation, dict) else None
    for part in parts if isinstance(parts, list) and isinstance(content, str) else []:
        text = part.get("text") if isinstance(part, dict) else None
        if isinstance(text, str) and len(text) > 64 and (at := content.find(text)) >= 0:
            part["text"] = {"$slice": [at, at + len(text)]}


def unsliced(value: Any, content: Any) -> Any:
    """`value` with each `{"$slice": [start, end]}` replaced by that part of `content`."""
    if isinstance(value, dict):
        cut = value.get("$slice")
        if isinstance(cut, list) and len(cut) == 2 and isinstance(content, str):
            return content[cut[0] : cut[1]]
        return {k: unsliced(v, content) for k, v in value.items()}
    if isinstance(value, list):
        return [unsliced(v, content) for v in value]
    return value


def _own(extra: Any) -> dict[str, Any]:
    """trajkit's part of an `extra` object (empty when another tool wrote the file)."""
    own = extra.get(OPENHANDS) if isinstance(extra, dict) else None
    return own if isinstance(own, dict) else {}


# -- one step -> V1 events -----------------------------------------------------------------


def rebuild(
    piece: str, step: dict[str, Any], context: dict[str, Any], index: int = 0
) -> dict[str, Any]:
    """The V1 event this mapping makes of one part of a step, before trajkit's difference is
    applied: `piece` is `system-prompt`, `condensation`, `message` (with `context["source"]`),
    `action` (call `index`) or `result` (result `index`). `context` holds `id`, `parent_id`,
    `timestamp`, `tools`, `llm_response_id`, `forgotten`, `summary_offset`, `action_id`.
    """
    head: dict[str, Any] = {"id": context["id"], "timestamp": context["timestamp"]}
    if context.get("parent_id"):
        head["parent_id"] = context["parent_id"]
    message = step.get("message")
    if piece == "system-prompt":
        text = "".join(p.get("text", "") for p in text_parts(message))
        return {**head, "source": "agent", "system_prompt": _text(text),
                "tools": context["tools"], "kind": "SystemPromptEvent"}  # fmt: skip
    if piece == "condensation":
        summary = "".join(p.get("text", "") for p in text_parts(message))
        return {**head, "source": "environment", "forgotten_event_ids": list(context["forgotten"]),
                "summary": summary or None,
                "summary_offset": context.get("summary_offset", 0) if summary else None,
                "llm_response_id": context["llm_response_id"], "kind": "Condensation"}  # fmt: skip
    if piece == "message":
        source = context["source"]
        llm: dict[str, Any] = {
            "role": "assistant" if source == "agent" else "user",
            "content": text_parts(message),
        }
        if isinstance(step.get("reasoning_content"), str):
            llm["reasoning_content"] = step["reasoning_content"]
        event = {**head, "source": source, "llm_message": llm}
        if context.get("llm_response_id"):
            event["llm_response_id"] = context["llm_response_id"]
        return {**event, "kind": "MessageEvent"}
    if piece == "action":
        call = step["tool_calls"][index]
        arguments = call.get("arguments")
        event = {**head, "source": "agent", "thought": text_parts(message) if index == 0 else []}
        if index == 0 and isinstance(step.get("reasoning_content"), str):
            event["reasoning_content"] = step["reasoning_content"]
        name, call_id = str(call.get("function_name")), str(call.get("tool_call_id"))
        return {**event, "tool_name": name, "tool_call_id": call_id,
                "tool_call": {"id": call_id, "name": name, "origin": "completion",
                              "arguments": _arguments(arguments)},
                "llm_response_id": context["llm_response_id"], "kind": "ActionEvent"}  # fmt: skip
    result = step["observation"]["results"][index]
    call_id = str(result.get("source_call_id"))
    name = next(
        (str(c.get("function_name")) for c in step.get("tool_calls") or []
         if isinstance(c, dict) and c.get("tool_call_id") == call_id), "",
    )  # fmt: skip
    observation = {"content": text_parts(result.get("content")), "kind": OBSERVATION_KIND}
    return {**head, "source": "environment", "tool_name": name, "tool_call_id": call_id,
            "observation": observation, "action_id": context["action_id"],
            "kind": "ObservationEvent"}  # fmt: skip


def _arguments(arguments: Any) -> str:
    import json

    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def atif_to_v1(
    doc: dict[str, Any], conv_id: str, *, label: str, pointer: str = ""
) -> tuple[dict[str, Any], list[dict[str, Any]], list[str], list[str]]:
    """`(base state, events, each event's pointer, notes)` of one ATIF trajectory.

    Raises `InputError` naming the pointer of a step that is not an object, or steps that are
    not a list.
    """
    return _Reader(doc, conv_id, label, pointer).read()


class _Reader:
    def __init__(self, doc: dict[str, Any], conv_id: str, label: str, pointer: str) -> None:
        self.doc, self.conv_id, self.label, self.pointer = doc, conv_id, label, pointer
        self.events: list[dict[str, Any]] = []
        self.pointers: list[str] = []
        self.notes: list[str] = []
        self.llm_ids: list[str] = []  # LLM events so far, for a compaction marker
        self.usages: list[tuple[str, str, dict[str, Any]]] = []  # (response id, model, metrics)
        agent = doc.get("agent") if isinstance(doc.get("agent"), dict) else {}
        assert isinstance(agent, dict)
        self.model = agent.get("model_name") if isinstance(agent.get("model_name"), str) else None
        defs = agent.get("tool_definitions")
        self.tools = [tool_definition(t) for t in defs or [] if isinstance(t, dict)]
        self.prompted = False
        self.leftover_steps = 0
        self.parts: list[tuple[str, dict[str, Any]]] = []
        """The continuations joined after the trajectory: (file, trajectory)."""
        self.names: dict[str, str] = {}
        """The name of the trajectory's file and of each part's, by their address."""
        self.files: list[str] = []
        """Each event's file (the trajectory's, or a continuation's)."""
        self.file = label
        self.offset = 0  # steps read before this part
        self.keep_embedded = True
        subs = doc.get("subagent_trajectories") if _own(doc.get("extra")) else None
        self.embedded = frozenset(  # trajkit's sub-conversations: refs to them are its own
            str(t.get("trajectory_id")) for t in subs or [] if isinstance(t, dict)
        )

    def read(self) -> tuple[dict[str, Any], list[dict[str, Any]], list[str], list[str]]:
        own = _own(self.doc.get("extra"))
        self._raw_events(own.get("before"), f"{self.pointer}/extra/{OPENHANDS}/before")
        self._steps(self.doc, self.pointer)
        root = own.get("root") if own else _root_leftover(self.doc)  # trajkit's: kept there
        root = root if isinstance(root, dict) else {}
        if not self.keep_embedded:
            root.pop("subagent_trajectories", None)
        if self.parts:
            root = self._joined(root)
        self._data(0, root, self.pointer)
        follow = self.doc.get("continued_trajectory_ref")
        if self.parts:
            names = ", ".join(self.names[f] for f, _ in self.parts)
            self.notes.append(
                f"joined with its continuation(s) after a context reset: {names} "
                f"({self.offset} steps in all)"
            )
        elif isinstance(follow, str) and follow:
            self.notes.append(
                f"continued in {follow} (after a context reset): its own conversation"
            )
        if self.leftover_steps:
            self.notes.append(
                f"ATIF data V1 has no field for, from {self.leftover_steps} step(s), kept in "
                f"{DATA_KIND} events (written back by convert --to atif)"
            )
        return (
            merge_diff(self._state(), own.get("base_state")),
            self.events,
            self.pointers,
            self.notes,
        )

    def _steps(self, doc: dict[str, Any], pointer: str) -> None:
        steps = doc.get("steps")
        if not isinstance(steps, list):
            raise InputError(self.file, f"{pointer}/steps", "expected a list of steps")
        continued = bool(self.parts) and self.file != self.parts[-1][0]
        for n, step in enumerate(steps):
            where = f"{pointer}/steps/{n}"
            if not isinstance(step, dict):
                raise InputError(self.file, where, "expected a step object")
            handoff = continued and n == len(steps) - 1
            self._step(self.offset + n, step, where, handoff=handoff)
        self.offset += len(steps)

    def _joined(self, root: dict[str, Any]) -> dict[str, Any]:
        """Read each continuation's steps after the trajectory's; `root` (the first file's
        leftover) with the continuation ref and every part's root moved to
        `extra.continuations` (the joined totals are the steps' own).
        """
        moved: tuple[str, ...] = ("continued_trajectory_ref", "final_metrics")
        first = {k: root.pop(k) for k in moved if k in root}
        parts: list[dict[str, Any]] = [
            {"file": self.names[self.file], "steps": self.offset, **first}
        ]
        for file, part in self.parts:
            self.file, before = file, self.offset
            self._steps(part, "")
            leftover = _root_leftover(part)
            if not self.keep_embedded:
                leftover.pop("subagent_trajectories", None)
            parts.append({"file": self.names[file], "steps": self.offset - before,
                          **leftover})  # fmt: skip
        self.file = self.label
        extra = root.setdefault("extra", {})
        if isinstance(extra, dict):
            extra[CONTINUATIONS] = parts
        return root

    def _add(self, event: dict[str, Any], where: str) -> dict[str, Any]:
        self.events.append(event)
        self.pointers.append(where)
        self.files.append(self.file)
        return event

    def _context(self, step: dict[str, Any], n: int, part: str, **more: Any) -> dict[str, Any]:
        stamp = step.get("timestamp")
        parent = self.events[-1]["id"] if self.events else None
        return {"id": derived_id(self.conv_id, str(n), part), "parent_id": parent,
                "timestamp": stamp if isinstance(stamp, str) else self._last_time(),
                "tools": self.tools, **more}  # fmt: skip

    def _piece(
        self, piece: str, step: dict[str, Any], context: dict[str, Any], diff: Any, where: str,
        index: int = 0,
    ) -> dict[str, Any]:  # fmt: skip
        base = {} if piece == "raw" else rebuild(piece, step, context, index)
        if piece == "result" and diff:
            diff = unsliced(diff, step["observation"]["results"][index].get("content"))
        event = merge_diff(base, diff)
        if event.get("kind") in _LLM_KINDS and event.get("kind") != "SystemPromptEvent":
            self.llm_ids.append(event["id"])
        return self._add(event, where)

    def _step(self, n: int, step: dict[str, Any], where: str, *, handoff: bool = False) -> None:
        """One step; `handoff`: the last of a part a joined continuation follows, whose
        compaction summary the model never saw (the continuation's copied context is what it
        saw next), so the `Condensation` has none and the message stays ATIF data.
        """
        source, own = step.get("source"), _own(step.get("extra"))
        extra = step.get("extra") if isinstance(step.get("extra"), dict) else {}
        assert isinstance(extra, dict)
        calls = [c for c in step.get("tool_calls") or [] if isinstance(c, dict)]
        results = _results(step)
        response_id = derived_id(self.conv_id, str(n), "r")
        compaction = source == "system" and _compaction(extra)
        handoff = handoff and compaction and "message" in step
        if compaction:
            ctx = self._context(
                step,
                n,
                "m",
                forgotten=list(self.llm_ids),
                llm_response_id=response_id,
                summary_offset=int(self.prompted),
            )  # after the prompt
            shown = {**step, "message": ""} if handoff else step
            self._piece("condensation", shown, ctx, own.get("event"), where)
        elif source == "system" and results and all(_own(r.get("extra")) for r in results):
            for i, result in enumerate(results):  # trajkit's: results answering no open call
                self._piece("raw", step, {}, _own(result.get("extra")).get("event"),
                            f"{where}/observation/results/{i}")  # fmt: skip
        elif source == "system" and results:  # an infrastructure event: no V1 kind
            self.leftover_steps += 1
            self._data(n + 1, {k: v for k, v in step.items() if k != "step_id"}, where, "step")
            return
        elif source == "system" and not self.prompted and not self.llm_ids:
            self._piece("system-prompt", step, self._context(step, n, "m"), own.get("event"), where)
            self.prompted = True
        elif calls and source == "agent":
            response_id = self._calls(n, step, where, calls, results, response_id)
        else:
            kind = {"agent": "agent", "user": "user"}.get(str(source), "environment")
            more = {"llm_response_id": response_id} if kind == "agent" else {}
            ctx = self._context(step, n, "m", source=kind, **more)
            event = self._piece("message", step, ctx, own.get("event"), where)
            response_id = str(event.get("llm_response_id") or response_id)
        if not calls and not compaction:  # results of non-tool actions (no native tool calling)
            self._loose_results(n, step, where, results, range(len(results)))
        if source == "agent" and isinstance(step.get("metrics"), dict):
            model = step.get("model_name")
            model = model if isinstance(model, str) else self.model or "unknown"
            self.usages.append((response_id, model, step["metrics"]))
        self._raw_events(own.get("after"), f"{where}/extra/{OPENHANDS}/after")
        leftover = _step_leftover(step, compaction=compaction, embedded=self.embedded)
        if handoff:
            leftover["message"] = step["message"]
        if leftover:
            self.leftover_steps += 1
            self._data(n + 1, leftover, where)

    def _calls(
        self, n: int, step: dict[str, Any], where: str, calls: list[dict[str, Any]],
        results: list[dict[str, Any]], response_id: str,
    ) -> str:  # fmt: skip
        """The step's actions and results; returns the actions' `llm_response_id`."""
        action_ids: dict[str, str] = {}
        for i, call in enumerate(calls):
            ctx = self._context(step, n, f"a{i}", llm_response_id=response_id)
            event = self._piece("action", step, ctx, _own(call.get("extra")).get("event"),
                                f"{where}/tool_calls/{i}", i)  # fmt: skip
            action_ids.setdefault(str(call.get("tool_call_id")), event["id"])
            if i == 0:
                response_id = str(event.get("llm_response_id") or response_id)
                ctx["llm_response_id"] = response_id
        known = [i for i, r in enumerate(results) if r.get("source_call_id") in action_ids]
        for i in known:
            call_id = str(results[i]["source_call_id"])
            ctx = self._context(step, n, f"o{i}", action_id=action_ids[call_id])
            self._piece("result", step, ctx, _own(results[i].get("extra")).get("event"),
                        f"{where}/observation/results/{i}", i)  # fmt: skip
        loose = [i for i in range(len(results)) if i not in known]
        self._loose_results(n, step, where, results, loose)
        return response_id

    def _loose_results(
        self, n: int, step: dict[str, Any], where: str, results: list[dict[str, Any]],
        indexes: Any,
    ) -> None:  # fmt: skip
        for i in indexes:
            content = results[i].get("content")
            piece = {"message": content if content is not None else ""}
            ctx = self._context(step, n, f"o{i}", source="environment")
            self._piece("message", piece, ctx, _own(results[i].get("extra")).get("event"),
                        f"{where}/observation/results/{i}")  # fmt: skip

    def _raw_events(self, events: Any, where: str) -> None:
        for i, event in enumerate(events if isinstance(events, list) else []):
            if isinstance(event, dict):
                self._add(event, f"{where}/{i}")

    def _last_time(self) -> str:
        """A step without a timestamp takes the one before it (else the file's first), so
        that times are all of one kind (with or without a zone).
        """
        if self.events and isinstance(self.events[-1].get("timestamp"), str):
            return str(self.events[-1]["timestamp"])
        steps = self.doc.get("steps") if isinstance(self.doc.get("steps"), list) else []
        assert isinstance(steps, list)
        first = (s.get("timestamp") for s in steps if isinstance(s, dict))
        return next((t for t in first if isinstance(t, str)), _EPOCH)

    def _data(self, step_id: int, data: dict[str, Any], where: str, key: str = "data") -> None:
        """An `ATIFData` event: a whole `step` V1 has no kind for, or a step's (or, with
        `step_id` 0, the root's) unmapped `data`.
        """
        if not data:
            return
        parent = self.events[-1]["id"] if self.events else None
        event = {"id": derived_id(self.conv_id, str(step_id), "data"), "timestamp": self._last_time(),
                 "source": "environment", "step_id": step_id, key: data, "kind": DATA_KIND}  # fmt: skip
        if parent:
            event["parent_id"] = parent
        self._add(event, where)

    def _state(self) -> dict[str, Any]:
        last = self.events[-1]["id"] if self.events else None
        return atif_state(self.conv_id, self.model, self.usages, last)


def atif_state(
    conv_id: str, model: str | None, usages: list[Any], last_id: str | None
) -> dict[str, Any]:
    """The base state a trajectory is read with (`convert --to atif` keeps only what a
    conversation's own base state has beyond it).
    """
    state = imported_state(conv_id, model)
    if usages:
        model_name = state["agent"]["llm"]["model"]
        state["stats"] = {"usage_to_metrics": {"agent": _metrics(usages, model_name)}}
    if last_id:
        state["leaf_event_id"] = last_id
    return state


_LLM_KINDS = {"SystemPromptEvent", "MessageEvent", "ActionEvent", "ObservationEvent",
              "AgentErrorEvent", "UserRejectObservation", "CondensationSummaryEvent"}  # fmt: skip


def _compaction(extra: dict[str, Any]) -> bool:
    marker = extra.get("context_management")
    return isinstance(marker, dict) and marker.get("type") == "compaction"


def _results(step: dict[str, Any]) -> list[dict[str, Any]]:
    observation = step.get("observation")
    results = observation.get("results") if isinstance(observation, dict) else None
    return [r if isinstance(r, dict) else {} for r in results or []]


def _metrics(usages: list[tuple[str, str, dict[str, Any]]], model: str) -> dict[str, Any]:
    """SDK `Metrics` from per-step ATIF metrics (one token usage and cost per LLM call)."""
    token_usages: list[dict[str, Any]] = []
    costs: list[dict[str, Any]] = []
    for response_id, step_model, m in usages:
        prompt, completion = _int(m.get("prompt_tokens")), _int(m.get("completion_tokens"))
        extra = m.get("extra") if isinstance(m.get("extra"), dict) else {}
        assert isinstance(extra, dict)
        token_usages.append({
            "model": step_model, "prompt_tokens": prompt, "completion_tokens": completion,
            "cache_read_tokens": _int(m.get("cached_tokens")),
            "cache_write_tokens": _int(extra.get("cache_write_tokens")),
            "reasoning_tokens": _int(extra.get("reasoning_tokens")), "context_window": 0,
            "per_turn_token": prompt + completion, "response_id": response_id,
        })  # fmt: skip
        cost = m.get("cost_usd")  # one cost per call, as the SDK keeps them (0 when unknown)
        cost = float(cost) if isinstance(cost, int | float) else 0.0
        costs.append({"model": step_model, "cost": cost, "timestamp": 0.0})
    keys = ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens",
            "reasoning_tokens")  # fmt: skip
    total = {k: sum(u[k] for u in token_usages) for k in keys}
    return {"model_name": model, "accumulated_cost": sum(c["cost"] for c in costs),
            "accumulated_token_usage": {"model": model, **total, "context_window": 0,
                                        "per_turn_token": 0, "response_id": ""},
            "costs": costs, "response_latencies": [], "token_usages": token_usages}  # fmt: skip


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


_ROOT_MAPPED = ("schema_version", "steps")
"""(Embedded subagents are read as conversations of their own and kept whole here too, so
that writing the parent back embeds them again.)"""
_STEP_MAPPED = ("step_id", "timestamp", "source", "message", "reasoning_content")


def _root_leftover(doc: dict[str, Any]) -> dict[str, Any]:
    """The root's keys this mapping does not carry (agent name, notes, final metrics, ...)."""
    out = {k: copy.deepcopy(v) for k, v in doc.items() if k not in _ROOT_MAPPED}
    agent = out.get("agent")
    if isinstance(agent, dict):
        agent.pop("model_name", None)
        agent.pop("tool_definitions", None)
    extra = out.get("extra")
    if isinstance(extra, dict):
        extra.pop(OPENHANDS, None)
    return _obj(_pruned(out))


def _step_leftover(
    step: dict[str, Any], *, compaction: bool, embedded: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """What of a step the events do not carry, in the step's own structure (a compaction
    step's results are not mapped: they stay whole). Refs to the `embedded` trajectories are
    trajkit's own (a task's sub-conversation, read as a conversation of its own): dropped.
    """
    out = {k: copy.deepcopy(v) for k, v in step.items() if k not in _STEP_MAPPED}
    for call in out.get("tool_calls") or []:
        if isinstance(call, dict):
            for key in ("tool_call_id", "function_name", "arguments"):
                call.pop(key, None)
            _drop_own(call)
    for result in [] if compaction else _results(out):
        result.pop("source_call_id", None)
        result.pop("content", None)
        _drop_own(result)
        refs = result.get("subagent_trajectory_ref")
        if embedded and isinstance(refs, list):
            refs = [
                r for r in refs if not (isinstance(r, dict) and r.get("trajectory_id") in embedded)
            ]
            result["subagent_trajectory_ref"] = refs
            if not refs:
                del result["subagent_trajectory_ref"]
    metrics = out.get("metrics")
    if isinstance(metrics, dict):
        for key in ("prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd"):
            metrics.pop(key, None)
        if isinstance(metrics.get("extra"), dict):
            for key in ("reasoning_tokens", "cache_write_tokens"):
                metrics["extra"].pop(key, None)
    if out.get("metrics") and isinstance(out.get("model_name"), str):
        out.pop("model_name")  # the model of the step's token usage
    _drop_own(out, ("context_management",) if compaction else ())
    return _obj(_pruned(out))


def _drop_own(obj: dict[str, Any], keys: tuple[str, ...] = ()) -> None:
    extra = obj.get("extra")
    if isinstance(extra, dict):
        for key in (OPENHANDS, *keys):
            extra.pop(key, None)


def _pruned(value: Any) -> Any:
    """`value` without empty objects (lists keep their length, so indexes still match)."""
    if isinstance(value, dict):
        return {k: p for k, v in value.items() if (p := _pruned(v)) != {}}
    if isinstance(value, list):
        items = [_pruned(v) for v in value]
        return items if any(i != {} for i in items) else {}
    return value
