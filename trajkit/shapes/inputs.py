"""What the user's PATHs hold: one answer for every command (`resolve_inputs`).

Each PATH becomes the conversations it holds, in a stable order, through the registry
(`trajkit.shapes.detect.SHAPES`):

- a V1 conversation folder is itself (so are `<folder>/events/`, for its folder, and an agent
  server's `<hex>/`, for its `event_service/`); a storage URL (`s3://…`) is walked by the store;
- a file or folder a shape takes gives that shape's conversations (`ShapeRef`s), and
  `file.jsonl#key`, the address `ls` prints, selects one of them;
- any other folder is walked, sorted, whatever shapes it mixes (V1 folders, other shapes, V0
  trajectories); hidden entries are not entered, a folder met twice (a symlink loop) ends, and
  `exclude` (migrate's output folder) is never entered.

What is not read is named, never dropped: a `SkippedInput` for a PATH that does not exist or
holds no conversation, for a conversation whose listing fails, and, with `v0="skip"`, for each
V0 file or folder (with the command's `note`). Below a folder, a file no shape takes (a
README, a config, a convert output) is not conversation data and is passed over, unless
`strays` asks for it.

The policy is the only thing commands choose:
- `v0="read"` opens V0 trajectories migrated in memory (`ls`, `stats`, `inspect`, `view`,
  `serve`, `convert`, `migrate`, `export --from-v0`); `v0="skip"` names them (`validate`,
  `export`). A file named alone that no shape takes is then read as V0, so that opening it
  says what is wrong with it.
- `files=True` gives back a file named on the command line that no shape takes as it is
  (`validate` checks a single event file alone).
- `strays=True` treats each `.json`/`.jsonl` file below a folder that no shape takes as if it
  were named alone (`migrate`: what a tree holds was meant to migrate, so each is reported).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

from trajkit.errors import InputError
from trajkit.shapes._files import open_input, read_head
from trajkit.shapes.atif import is_continuation
from trajkit.shapes.detect import (
    SHAPES,
    WALKED_SUFFIXES,
    is_v1_event,
    shape_at,
    shape_of,
)
from trajkit.shapes.memory import ShapeRef
from trajkit.shapes.v0.containers import V0_KINDS
from trajkit.store.layout import (
    AGENT_SERVER_DIR,
    BASE_STATE,
    EVENT_NAME_RE,
    EVENTS_DIR,
    find_conversations,
    subagents_dir,
)
from trajkit.store.location import (
    Location,
    as_location,
    check_location,
    exists,
    is_conversation,
    is_remote,
)

__all__ = ["Input", "SkippedInput", "V0Policy", "resolve_inputs"]

V0Policy = Literal["read", "skip"]

NOTHING_HERE = (
    "no conversation found here (expected <uuid hex>/ folders holding base_state.json or "
    "events/, other V1 shapes, or V0 trajectories)"
)


@dataclass(frozen=True)
class SkippedInput:
    """An input (file, folder, record) that is not read, and why."""

    path: str
    """File (`file.jsonl#key` for a record) or folder."""
    pointer: str
    """JSON pointer inside it ("" for the whole input)."""
    message: str
    """What was expected and what was found."""

    def __str__(self) -> str:
        where = f"{self.path}:{self.pointer}" if self.pointer else self.path
        return f"{where}: {self.message}"


Input = Location | ShapeRef
"""A conversation: a V1 folder (on disk or in storage) or one held by a shape."""


def resolve_inputs(
    paths: Iterable[str | os.PathLike[str]],
    *,
    v0: V0Policy = "read",
    note: str = "",
    files: bool = False,
    strays: bool = False,
    exclude: str | os.PathLike[str] | None = None,
) -> Iterator[Input | SkippedInput]:
    """The conversations each PATH holds, and what is not read (see the module docstring).

    Args:
        paths: what the user named (a `ShapeRef` passes through, under the same policy).
        v0: "read" V0 trajectories (migrated in memory when opened) or "skip" them by name.
        note: the next step, added to each skipped V0 input ("pass --from-v0 to ...").
        files: give back a file no shape takes, when it is named itself.
        strays: name the `.json`/`.jsonl` files below a folder that no shape takes (as a
            file named alone), instead of passing over them.
        exclude: a folder never entered (migrate's output).

    Raises:
        StorageError: a storage URL's storage cannot be used at all (before any listing).
    """
    walk = _Walk(v0, note, files, strays, _identity(Path(exclude)) if exclude else None)
    for raw in paths:
        walk.seen.clear()  # a loop ends within one PATH; two PATHs may name one folder
        if isinstance(raw, ShapeRef):
            yield from walk.shape(raw.shape, Path(raw.file), iter([raw]))
            continue
        location = as_location(raw)
        check_location(location)
        if is_remote(location):
            yield from walk.remote(location)
        else:
            yield from walk.named(raw, location)


@dataclass
class _Walk:
    v0: V0Policy
    note: str
    files: bool
    strays: bool
    exclude: tuple[int, int] | None
    seen: set[tuple[int, int]] = field(default_factory=set)
    root: str = "/"
    """The real path of the PATH being walked: a folder symlink below it stays inside it."""

    def named(self, raw: str | os.PathLike[str], path: Path) -> Iterator[Input | SkippedInput]:
        """One PATH as typed: a `#key` address, a file, a folder, or what is wrong with it."""
        if path.is_dir() and is_conversation(path):  # the common case first, nothing sniffed
            yield path
            return
        try:
            found = shape_at(raw)  # file.jsonl#key, and the refusal of FIFOs and devices
        except InputError as exc:
            yield SkippedInput(os.fspath(exc.path), exc.pointer, exc.message)
            return
        if found is not None:
            yield from self.shape(*found)
            return
        if not exists(path):
            yield SkippedInput(os.fspath(path), "", "no such file or folder")
            return
        try:
            is_dir, is_file = path.is_dir(), path.is_file()
        except OSError:  # ELOOP on some platforms
            yield SkippedInput(os.fspath(path), "", _broken(path))
            return
        if is_dir:
            if path.name == EVENTS_DIR and is_conversation(path.parent):
                yield path.parent
                return
            any_item = False
            self.root = os.path.realpath(path)
            for item in self.folder(path):
                any_item = True
                yield item
            if not any_item:
                yield SkippedInput(os.fspath(path), "", NOTHING_HERE)
        elif is_file:
            yield from self.loose(path, named=True)
        else:
            yield SkippedInput(os.fspath(path), "", _broken(path))

    def remote(self, location: Location) -> Iterator[Input | SkippedInput]:
        """A storage URL: V1 folders only (the store's walk, one listing per level)."""
        if not exists(location):
            yield SkippedInput(os.fspath(location), "", "no such file or folder")
        elif location.name == EVENTS_DIR and is_conversation(location.parent):
            yield location.parent
        elif location.is_file():
            reason = _lone_v1_file(location) or _A_FILE
            yield location if self.files else SkippedInput(os.fspath(location), "", reason)
        else:
            listed = False
            for folder in find_conversations([location]):
                listed = True
                yield folder
            if not listed:
                yield SkippedInput(os.fspath(location), "", NOTHING_HERE)

    def folder(self, folder: Path, *, nested: bool = False) -> Iterator[Input | SkippedInput]:
        """A folder: a conversation, a shape, or a tree walked for both (sorted). Below a
        named folder, a conversation's sub-agent conversations (``subagents/``) follow it.
        """
        ident = _identity(folder)
        if ident is None or ident in self.seen or ident == self.exclude:
            return  # unreadable, a symlink loop or a folder named twice, or the output folder
        self.seen.add(ident)
        if is_conversation(folder):
            yield folder
            if nested and subagents_dir(folder).is_dir():
                yield from self.folder(subagents_dir(folder), nested=True)
            return
        agent_server = folder / AGENT_SERVER_DIR
        if agent_server.is_dir() and is_conversation(agent_server):
            yield agent_server
            return
        name = shape_of(folder)
        if name is not None:
            yield from self.shape(name, folder, SHAPES[name].refs(folder))
            return
        try:
            children = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            yield SkippedInput(os.fspath(folder), "", (exc.strerror or str(exc)).lower())
            return
        names = {c.name for c in children}
        for child in children:
            if child.name.startswith("."):
                continue
            path = Path(child.path)
            try:
                if child.is_dir():
                    yield from self._outside(path) or self.folder(path, nested=True)
                    continue
            except OSError:
                continue
            if child.name == "trajectory.json" and "events.json" in names:
                continue  # the visualizer's pair: read with its events.json
            if ".cont-" in child.name and is_continuation(path):
                continue  # an ATIF continuation: read joined to the trajectory it continues
            if child.name.endswith(WALKED_SUFFIXES):
                yield from self.loose(path, named=False)

    def _outside(self, path: Path) -> list[SkippedInput]:
        """A folder symlink below PATH leading outside it: refused by every command (as serve
        refuses it), one line naming it.
        """
        real = os.path.realpath(path)
        if not os.path.islink(path) or real == self.root or real.startswith(self.root + os.sep):
            return []
        return [
            SkippedInput(os.fspath(path), "", f"symlink to {real}, outside {self.root}; not read")
        ]

    def loose(self, path: Path, *, named: bool) -> Iterator[Input | SkippedInput]:
        """A file: a shape's conversations; else, named alone, the policy's answer (a file
        below a folder that no shape takes is not conversation data, and is passed over).
        """
        name = shape_of(path)
        if name is not None:
            yield from self.shape(name, path, SHAPES[name].refs(path))
        elif not named and not self.strays:
            return
        elif named and self.files:
            yield path
        elif (reason := _lone_v1_file(path)) is not None:
            yield SkippedInput(os.fspath(path), "", reason)
        elif self.v0 == "read":  # read as V0 all the same: opening it says what is wrong
            shape = "v0-jsonl" if path.suffix == ".jsonl" else "v0-json"
            yield from self.shape(shape, path, SHAPES[shape].refs(path))
        else:
            yield SkippedInput(os.fspath(path), "", _not_read(path) if named else _NOT_READ)

    def shape(
        self, name: str, path: Path, refs: Iterator[ShapeRef]
    ) -> Iterator[Input | SkippedInput]:
        """A shape's conversations, or one line naming V0 input the policy skips."""
        if name in V0_KINDS and self.v0 == "skip":
            message = f"{V0_KINDS[name]}, not read here" + (f"; {self.note}" if self.note else "")
            yield SkippedInput(os.fspath(path), "", message)
            return
        try:
            yield from refs
        except InputError as exc:  # the listing failed part-way (an archive's index, ...)
            yield SkippedInput(os.fspath(exc.path), exc.pointer, exc.message)


_HEAD = 256 * 1024
"""Bytes read of a file named alone to say what it is (an event file is much smaller)."""
_NOT_READ = "holds no conversation (neither V1 events nor a V0 trajectory); not read"
_A_FILE = "expected a conversation folder (<uuid hex>/) or a file trajkit reads, got a file"


def _lone_v1_file(path: Location) -> str | None:
    """Why a lone V1 event file or base state is not a conversation (None for other files)."""
    value: Any = None if is_remote(path) else _head_json(path)
    folder = path.parent.parent if path.parent.name == EVENTS_DIR else path.parent
    give = f"give its conversation folder, {folder}"
    if is_v1_event(value):
        return f"one V1 event ({value['kind']}), not a whole conversation: {give}"
    if path.name == BASE_STATE or isinstance(value, dict) and isinstance(value.get("agent"), dict):
        return f"a base state alone, not a whole conversation: {give}"
    if value is None and EVENT_NAME_RE.match(path.name):
        return f"one V1 event file, not a whole conversation: {give}"
    return None


def _not_read(path: Path) -> str:
    """Why a file named alone that no shape takes is not read (under `v0="skip"`)."""
    try:
        with open_input(path) as fh:  # a FIFO is refused, never waited on
            head = fh.read(_HEAD + 1)
        if len(head) <= _HEAD:  # a small file is parsed to say so; a large one is not read
            orjson.loads(head)
    except orjson.JSONDecodeError as exc:
        return f"not valid JSON ({exc}); {_A_FILE}"
    except (OSError, InputError):
        pass
    return _A_FILE


def _head_json(path: Path) -> Any:
    """The file's JSON when its first 256 KiB hold all of it (an event file), else None."""
    try:
        return orjson.loads(read_head(path, _HEAD))  # a FIFO is refused, never waited on
    except orjson.JSONDecodeError:
        return None


def _broken(path: Path) -> str:
    try:
        os.stat(path)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            return (
                f"broken symbolic link (to {os.readlink(path)})"
                if path.is_symlink()
                else ("no such file or folder")
            )
        if exc.errno == errno.ELOOP:
            return "symlink loop: the path cannot be resolved"
        return (exc.strerror or str(exc)).lower()
    return "not a file or folder"


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino)
