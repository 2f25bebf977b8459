"""Repair a conversation folder that a crash or a bad copy left damaged.

``plan_repair(folder)`` looks and returns ``Fix`` records; ``apply_repair(folder, fixes)`` does
them under the conversation lock. What repair does, and what it refuses to do:

* An empty, truncated or unparseable event file, and a leftover ``*.tmp`` of an atomic write,
  is **moved** into ``<conversation>/quarantine/`` (never deleted); ``quarantine/reasons.json``
  records why each file went there.
* Files are never renamed: a hole left in the middle of the log is reported, not renumbered.
* ``base_state.json``'s head (``leaf_event_id``) is brought to the last complete event when it
  names an event that is gone, or lags behind complete events that descend from it (a crash
  between an event write and the base-state write). Head on a deliberate side branch is kept.
* A tool call that a crash left unanswered gets the error result the SDK's crash recovery
  writes (an ``AgentErrorEvent`` with classification ``internal``), so the log pairs again.
* A missing, empty or unparseable ``base_state.json`` cannot be rebuilt (the agent
  configuration is gone): it is reported as a remaining problem.
* The head and the unanswered calls follow `trajkit.recovery`, the same rules (and the same
  error text for the LLM) as the runtime's restore.

Refused, changing nothing: ``events/`` or ``base_state.json`` linking outside the folder
(nothing is read or written through the link), and a conversation whose writer is live (a
`Conversation` holds its writer lock: "in use by pid N"); repair holds that lock while it
works. A FIFO or device in place of an event file is reported and left alone.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

from trajkit.errors import ConversationLockedError, InputError
from trajkit.recovery import (
    RESTART_ERROR,
    head_after_crash,
    interrupted_call_result,
    recovery_branch,
    unanswered_calls,
)
from trajkit.store.atomic import (
    atomic_write,
    conversation_lock,
    is_temp_file,
    make_folder,
    move_file,
)
from trajkit.store.guard import NotRegularFile, refuse_outside_links
from trajkit.store.layout import BASE_STATE
from trajkit.store.reader import open_conversation, parse_event_bytes
from trajkit.store.writer_lock import lock_holder, writer_lock

QUARANTINE_DIR = "quarantine"
REASONS_FILE = "reasons.json"

FixKind = Literal["quarantine", "set_head", "close_call", "unfixable"]


@dataclass(frozen=True)
class Fix:
    """One thing repair does (or, for ``unfixable``, explains and leaves)."""

    kind: FixKind
    path: Path
    message: str
    data: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """``path: message`` line for the terminal."""
        return f"{self.path}: {self.message}"


@dataclass
class _Scan:
    events: list[Any] = field(default_factory=list)  # (index, event) of good files
    fixes: list[Fix] = field(default_factory=list)


def plan_repair(folder: str | os.PathLike[str]) -> list[Fix]:
    """What repair would do to ``folder``, in order; reads only.

    Raises:
        UnsafePath: ``events/`` or ``base_state.json`` is a link leading outside ``folder``
            (nothing is read through it, and nothing will be changed).
    """
    refuse_outside_links(folder)
    conv = open_conversation(folder)
    _refuse_live_writer(conv.path)
    scan = _scan_events(conv)
    fixes = scan.fixes
    _check_holes(conv.events_dir, scan, fixes)
    state_path = conv.base_state_path
    state = _read_state(conv, fixes)
    good = [ev for _, ev in scan.events]
    head = _plan_head(state_path, state, good, fixes)
    _plan_close_calls(conv.events_dir, good, head, state, fixes)
    return fixes


def apply_repair(folder: str | os.PathLike[str], fixes: Iterable[Fix]) -> None:
    """Carry out ``fixes`` from ``plan_repair`` (under the conversation lock)."""
    folder = Path(folder)
    refuse_outside_links(folder)
    fixes = list(fixes)
    if not any(f.kind != "unfixable" for f in fixes):
        _refuse_live_writer(folder)
        return
    with writer_lock(folder):  # no Conversation may open it while repair works
        _apply(folder, fixes)


def _refuse_live_writer(folder: Path) -> None:
    pid = lock_holder(folder)
    if pid is not None:
        raise ConversationLockedError(folder, pid)


def _apply(folder: Path, fixes: list[Fix]) -> None:
    from trajkit.store.writer import ConversationWriter

    with conversation_lock(folder):
        for fix in fixes:
            if fix.kind == "quarantine":
                _quarantine(folder, fix)
    head: str | None = None
    for fix in fixes:
        if fix.kind == "set_head":
            head = fix.data["leaf_event_id"]
    writer = ConversationWriter(folder)
    for fix in fixes:
        if fix.kind != "close_call":
            continue
        event = interrupted_call_result(
            fix.data["tool_name"],
            fix.data["tool_call_id"],
            fix.data["parent_id"] if head is None else head,
        )
        writer.append(event)
        head = event.id
    if head is not None:
        _save_head(folder / BASE_STATE, head)


def repair_conversation(folder: str | os.PathLike[str], *, dry_run: bool = False) -> list[Fix]:
    """Plan and (unless ``dry_run``) apply; returns the fixes."""
    fixes = plan_repair(folder)
    if not dry_run:
        apply_repair(folder, fixes)
    return fixes


# scanning -------------------------------------------------------------------------------------


def _scan_events(conv: Any) -> _Scan:
    scan = _Scan()
    for ef in conv.event_files():
        try:
            raw = ef.read_bytes()
            event = parse_event_bytes(ef.path, raw)
        except NotRegularFile as exc:  # a FIFO or device: not damage a crash leaves; left alone
            scan.fixes.append(Fix("unfixable", ef.path, f"{exc.message}; remove it by hand"))
            continue
        except InputError as exc:
            scan.fixes.append(
                Fix("quarantine", ef.path, f"move to {QUARANTINE_DIR}/ ({exc.message})")
            )
            continue
        if event.id != ef.event_id:
            scan.fixes.append(
                Fix("unfixable", ef.path, f"file name id differs from content id {event.id!r}")
            )
        scan.events.append((ef.index, event))
    for folder in (conv.events_dir, conv.path):
        for name in sorted(_names(folder)):
            if is_temp_file(name):
                scan.fixes.append(
                    Fix("quarantine", folder / name, f"move to {QUARANTINE_DIR}/ (leftover temp)")
                )
    return scan


def _check_holes(events_dir: Path, scan: _Scan, fixes: list[Fix]) -> None:
    indices = sorted(i for i, _ in scan.events)
    expected = 0
    for i in indices:
        if i > expected:
            fixes.append(
                Fix(
                    "unfixable",
                    events_dir,
                    f"index gap: no usable event file for index {expected}"
                    + (f"..{i - 1}" if i - 1 > expected else "")
                    + "; files are never renumbered, the later events stay where they are",
                )
            )
        if i == expected - 1:
            fixes.append(Fix("unfixable", events_dir, f"two event files have index {i}"))
        expected = max(expected, i + 1)


def _read_state(conv: Any, fixes: list[Fix]) -> dict[str, Any] | None:
    path = conv.base_state_path
    try:
        raw = conv.base_state_raw()  # refuses a FIFO, a device, an oversized file
    except InputError as exc:
        fixes.append(Fix("unfixable", path, f"unreadable: {exc.message}"))
        return None
    if raw is None:
        fixes.append(Fix("unfixable", path, "missing; the agent configuration cannot be rebuilt"))
        return None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        what = "empty" if not raw.strip() else "truncated or not JSON"
        fixes.append(Fix("unfixable", path, f"{what}; the agent configuration cannot be rebuilt"))
        return None
    if not isinstance(data, dict):
        fixes.append(Fix("unfixable", path, "not a JSON object"))
        return None
    return data


def _plan_head(
    path: Path, state: dict[str, Any] | None, events: list[Any], fixes: list[Fix]
) -> str | None:
    """The head after repair (`trajkit.recovery`); adds a ``set_head`` fix when it moves."""
    if state is None or not events:
        return None
    current = state.get("leaf_event_id")
    current = current if isinstance(current, str) else None
    if state.get("head_is_empty") is True and current is None:
        return None
    move = head_after_crash(events, current)
    if move.reason is None:
        return move.head
    fixes.append(
        Fix(
            "set_head",
            path,
            f"{move.reason}; set leaf_event_id to {move.head!r}",
            {"leaf_event_id": move.head},
        )
    )
    return move.head


def _plan_close_calls(
    events_dir: Path,
    events: list[Any],
    head: str | None,
    state: dict[str, Any] | None,
    fixes: list[Fix],
) -> None:
    empty = bool(state and state.get("head_is_empty") is True and head is None)
    branch = recovery_branch(events, head, head_is_empty=empty)
    tip = branch[-1].id if branch else None
    for ev in unanswered_calls(branch):
        fixes.append(
            Fix(
                "close_call",
                events_dir,
                f"tool call {ev.tool_call_id!r} ({ev.tool_name}) has no result; "
                "append the crash-recovery error result",
                {
                    "tool_name": ev.tool_name,
                    "tool_call_id": ev.tool_call_id,
                    "parent_id": head or tip or ev.id,
                },
            )
        )


# applying -------------------------------------------------------------------------------------


def _quarantine(folder: Path, fix: Fix) -> None:
    """Move one file into ``quarantine/``; its record is written first, so a failure (a full
    disk) leaves the file where it was, and no earlier record is ever dropped: a damaged
    ``reasons.json`` is kept aside as ``reasons.json.damaged[.N]``, not overwritten.
    """
    qdir = folder / QUARANTINE_DIR
    make_folder(qdir, plain=True)
    target = _free_name(qdir, fix.path.name.lstrip("."))
    reasons_path = qdir / REASONS_FILE
    reasons = _read_reasons(reasons_path)
    rel = fix.path.relative_to(folder).as_posix()
    reasons[target.name] = {"from": rel, "reason": fix.message}
    atomic_write(reasons_path, json.dumps(reasons, indent=2, ensure_ascii=False) + "\n")
    move_file(fix.path, target)


def _free_name(qdir: Path, name: str) -> Path:
    target = qdir / name
    n = 1
    while target.exists() or target.is_symlink():
        target = qdir / f"{name}.{n}"
        n += 1
    return target


def _read_reasons(path: Path) -> dict[str, Any]:
    try:
        reasons = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (ValueError, OSError):
        reasons = None
    if isinstance(reasons, dict):
        return reasons
    move_file(path, _free_name(path.parent, f"{REASONS_FILE}.damaged"))  # kept, never lost
    return {}


def _save_head(path: Path, head: str) -> None:
    data = orjson.loads(path.read_bytes())
    data["leaf_event_id"] = head
    if "head_is_empty" in data:
        data["head_is_empty"] = False
    atomic_write(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def _names(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


__all__ = [
    "QUARANTINE_DIR",
    "RESTART_ERROR",
    "Fix",
    "apply_repair",
    "plan_repair",
    "repair_conversation",
]
