"""Read one conversation for viewing: whatever shape holds it (`trajkit.shapes`).

Views show as much as they can: a file that cannot be read becomes a `Broken` item in its
place (and a problem in `problems`), an unknown event kind stays an `UnknownEvent` (shown as
raw JSON), an unreadable `base_state.json` leaves `state` empty. Only an input that is no
conversation at all raises `InputError`. Nothing is ever written.

`event_range` limits which event files are parsed (by position, 0-based, inclusive), so
`inspect --from 4000 --to 4010` on a long conversation lists names but parses eleven files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

from trajkit.errors import InputError, TrajkitError
from trajkit.shapes import Input, SkippedInput, resolve_inputs
from trajkit.shapes.eval_output import benchmark_fields
from trajkit.store import open_conversation

if TYPE_CHECKING:
    from trajkit.events import BaseState, Event
    from trajkit.shapes.agent_server import ServerMeta

__all__ = [
    "Broken",
    "LoadedConversation",
    "eval_outcome",
    "holds_many",
    "load_conversation",
]


@dataclass(frozen=True)
class Broken:
    """An event file that could not be read, shown where it stands."""

    path: str
    """The file."""
    message: str
    """`path:pointer: message` from the reader."""


@dataclass
class LoadedConversation:
    """A conversation as views see it: its state (if readable) and its events in order."""

    path: Path
    """Folder (V1) or file/folder (V0) that was read."""
    id: str
    """Conversation id."""
    state: BaseState | None
    """Parsed `base_state.json`, or None when missing or unreadable."""
    items: list[tuple[int, Event | Broken]] = field(default_factory=list)
    """`(position, event)` pairs in log order; `Broken` for files that could not be read."""
    total_events: int = 0
    """Number of event files, whether or not they were in `event_range`."""
    problems: list[str] = field(default_factory=list)
    """What was skipped, one `path:pointer: message` line each."""
    origin: str = "v1"
    """`v1`, or `v0 (<container>)` when migrated in memory."""
    outcome: str | None = None
    """An evaluation record's verdict (`resolved`, `not resolved`, `error: …`), when there is one."""
    patch: str | None = None
    """An evaluation record's final `git_patch`, when there is one."""
    notes: list[str] = field(default_factory=list)
    """What the reader did that the user should know (older SDK upgraded, base state unknown);
    not problems: nothing was skipped."""
    meta: ServerMeta | None = None
    """The agent server's `meta.json` (title, times, tags, metrics), when the folder has one."""


def eval_outcome(record: dict[str, object] | None) -> tuple[str | None, str | None]:
    """`(outcome, git_patch)` of an evaluation record (`trajkit.shapes.eval_output.benchmark_fields`):
    resolved or not, else the record's error, else its score (`final_score` as passed/total).
    """
    if not isinstance(record, dict):
        return None, None
    fields = benchmark_fields(record)
    patch = fields["model_patch"]
    if fields["resolved"] is not None:
        return ("resolved" if fields["resolved"] else "not resolved"), patch
    error = record.get("error")
    if isinstance(error, str) and error:
        return f"error: {error[:200]}", patch
    result = record.get("test_result")
    final = result.get("final_score") if isinstance(result, dict) else None
    if isinstance(final, dict) and "result" in final:
        return f"score {final.get('result')}/{final.get('total')}", patch
    if fields["score"] is not None:
        return f"score {fields['score']:g}", patch
    return None, patch


def load_conversation(
    path: str | os.PathLike[str], *, event_range: tuple[int, int | None] = (0, None)
) -> LoadedConversation:
    """Load the one conversation `path` holds (`trajkit.shapes.resolve_inputs`: a folder, any
    shape, a V0 trajectory migrated in memory, or a `file#key` address as `ls` prints it).
    """
    found: list[Input] = []
    skipped: list[SkippedInput] = []
    for item in resolve_inputs([path]):
        if isinstance(item, SkippedInput):
            skipped.append(item)
        elif len(found) < _MANY:
            found.append(item)
        else:
            break
    if not found:
        first = (
            skipped[0] if skipped else SkippedInput(os.fspath(path), "", "holds no conversation")
        )
        raise InputError(first.path, first.pointer, first.message)
    if len(found) > 1:
        n = f"{len(found)}{'+' if len(found) >= _MANY else ''}"
        raise InputError(
            path,
            "",
            f"not one conversation: it holds {n} conversations; pass one of them, e.g. "
            f"{found[0]} (`trajkit ls` lists them)",
        )
    loaded = _load_v1(found[0], event_range)
    loaded.problems[:0] = [str(s) for s in skipped]
    return loaded


_MANY = 1000
"""Conversations counted at most for the message of a PATH that holds several."""


def holds_many(path: str | os.PathLike[str]) -> bool:
    """Whether `path` holds several conversations (not one)."""
    conversations = (i for i in resolve_inputs([path]) if not isinstance(i, SkippedInput))
    return sum(1 for _ in islice(conversations, 2)) > 1


def _load_v1(folder: Input, event_range: tuple[int, int | None]) -> LoadedConversation:
    from trajkit.shapes.agent_server import read_server_meta
    from trajkit.shapes.memory import MemoryConversation
    from trajkit.store.reader import parse_event_bytes

    conv = open_conversation(folder)
    loaded = LoadedConversation(path=Path(folder), id=conv.id, state=None)
    loaded.origin = getattr(conv, "origin", "v1")  # `v0 <container>` when migrated in memory
    loaded.outcome, loaded.patch = eval_outcome(getattr(conv, "record", None))
    loaded.notes.extend(getattr(conv, "notes", ()))
    try:
        loaded.state = conv.base_state()
    except TrajkitError as exc:
        loaded.problems.append(f"{exc} (base_state.json skipped)")
    files = conv.event_files()
    loaded.total_events = len(files)
    start, stop = event_range
    for pos, event_file in enumerate(files):
        if pos < start or (stop is not None and pos > stop):
            continue
        try:
            event = parse_event_bytes(event_file.path, event_file.read_bytes(), conv.upgrades)
        except InputError as exc:
            loaded.problems.append(str(exc))
            loaded.items.append((pos, Broken(str(event_file.path), str(exc))))
            continue
        loaded.items.append((pos, event))
    loaded.notes.extend(conv.upgrade_notes())
    if isinstance(folder, Path) and not isinstance(conv, MemoryConversation):
        try:
            loaded.meta = read_server_meta(folder)
        except TrajkitError as exc:
            loaded.problems.append(f"{exc} (meta.json skipped)")
    return loaded
