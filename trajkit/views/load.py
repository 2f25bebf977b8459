"""Read one conversation for viewing: whatever shape holds it (`trajkit.shapes`).

Views show as much as they can: a file that cannot be read becomes a `Broken` item in its
place (and a problem in `problems`), an unknown event kind stays an `UnknownEvent` (shown as
raw JSON), an unreadable `base_state.json` leaves `state` empty. Only an input that is no
conversation at all raises `InputError`. Nothing is ever written.

`event_range` limits which event files are parsed (by position, 0-based, inclusive), so
`inspect --from 4000 --to 4010` on a long conversation lists names but parses eleven files.

With a `masker` (`trajkit.redact.SecretMasker`; the CLI and `serve` pass one unless
`--no-redact`), each event's bytes are masked as they are read, before parsing (`read_event`),
and so are the record's patch and the agent server's title and tags: every view drawn from the
result shows `**********` where a key was, and the file is read once.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Container, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from trajkit.errors import InputError, TrajkitError
from trajkit.shapes import Input, SkippedInput, resolve_inputs
from trajkit.shapes.eval_output import benchmark_fields
from trajkit.store import open_conversation

if TYPE_CHECKING:
    from trajkit.events import BaseState, Event
    from trajkit.redact import SecretMasker
    from trajkit.shapes.agent_server import ServerMeta
    from trajkit.store.reader import EventFile

__all__ = [
    "Broken",
    "LoadedConversation",
    "eval_outcome",
    "holds_many",
    "load_conversation",
    "mask_fields",
    "read_event",
]


_T = TypeVar("_T")


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
    read_items: Callable[[Container[int] | None], Iterator[tuple[int, Event | Broken]]] | None = (
        None
    )
    """Loaded with `lazy`: reads the items one at a time (`items` stays empty), for a view
    that draws them in one pass without holding every event (serve's pages)."""

    def iter_items(
        self, wanted: Container[int] | None = None
    ) -> Iterator[tuple[int, Event | Broken]]:
        """The items in order (those at the `wanted` positions): `items`, or, when loaded
        `lazy`, read now (problems added as they are met).
        """
        if self.read_items is not None:
            return self.read_items(wanted)
        return (item for item in self.items if wanted is None or item[0] in wanted)


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


def read_event(
    event_file: EventFile, masker: SecretMasker | None = None, upgrades: Any = None
) -> Event:
    """Parse one event file, its bytes masked by `masker` first (see the module docstring)."""
    from trajkit.redact import may_hold_key
    from trajkit.store.reader import parse_event_bytes

    raw = event_file.read_bytes()
    if masker is not None and may_hold_key(raw):
        raw = masker.text(raw.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
    return parse_event_bytes(event_file.path, raw, upgrades)


def mask_fields(obj: _T, masker: SecretMasker | None) -> _T:
    """A copy of `obj` (a dataclass: a row, `ServerMeta`) with its text fields masked."""
    if masker is None or obj is None:
        return obj
    texts = {k: v for k, v in vars(obj).items() if isinstance(v, str | list | dict)}
    return dataclasses.replace(obj, **masker.data(texts))  # type: ignore[type-var]


def load_conversation(
    path: str | os.PathLike[str],
    *,
    event_range: tuple[int, int | None] = (0, None),
    masker: SecretMasker | None = None,
    lazy: bool = False,
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
    loaded = _load_v1(found[0], event_range, masker, lazy)
    loaded.problems[:0] = [str(s) for s in skipped]
    return loaded


_MANY = 1000
"""Conversations counted at most for the message of a PATH that holds several."""


def holds_many(path: str | os.PathLike[str]) -> bool:
    """Whether `path` holds several conversations (not one)."""
    conversations = (i for i in resolve_inputs([path]) if not isinstance(i, SkippedInput))
    return sum(1 for _ in islice(conversations, 2)) > 1


def _load_v1(
    folder: Input,
    event_range: tuple[int, int | None],
    masker: SecretMasker | None,
    lazy: bool,
) -> LoadedConversation:
    from trajkit.shapes.agent_server import read_server_meta
    from trajkit.shapes.memory import MemoryConversation

    conv = open_conversation(folder)
    loaded = LoadedConversation(path=Path(folder), id=conv.id, state=None)
    loaded.origin = getattr(conv, "origin", "v1")  # `v0 <container>` when migrated in memory
    outcome, patch = eval_outcome(getattr(conv, "record", None))
    loaded.outcome, loaded.patch = (
        (masker.data(outcome), masker.data(patch)) if masker else (outcome, patch)
    )
    loaded.notes.extend(getattr(conv, "notes", ()))
    try:
        loaded.state = conv.base_state()
    except TrajkitError as exc:
        loaded.problems.append(f"{exc} (base_state.json skipped)")
    files = conv.event_files()
    loaded.total_events = len(files)
    start, stop = event_range

    def read(wanted: Container[int] | None = None) -> Iterator[tuple[int, Event | Broken]]:
        for pos, event_file in enumerate(files):
            if pos < start or (stop is not None and pos > stop):
                continue
            if wanted is not None and pos not in wanted:
                continue
            try:
                yield pos, read_event(event_file, masker, conv.upgrades)
            except InputError as exc:
                loaded.problems.append(str(exc))
                yield pos, Broken(str(event_file.path), str(exc))

    if lazy:
        loaded.read_items = read
    else:
        loaded.items.extend(read())
        loaded.notes.extend(conv.upgrade_notes())
    if isinstance(folder, Path) and not isinstance(conv, MemoryConversation):
        try:
            loaded.meta = mask_fields(read_server_meta(folder), masker)
        except TrajkitError as exc:
            loaded.problems.append(f"{exc} (meta.json skipped)")
    return loaded
