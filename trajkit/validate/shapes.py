"""Validate a conversation held in another shape (`trajkit.shapes`): the same checks, in memory.

An evaluation record, an events array, a baseState document or an archive folder is opened as
a `MemoryConversation`; each event's bytes go through the per-file checks (`files.py`) and the
conversation through the cross-event ones (`conversation.py`: unique ids, parents, tool-call
pairing, the head). File-name checks do not apply (there are no file names); what the shape
lacks (no base state) and what the reader had to do (an upgraded older SDK, the record's
instruction as first message) are warnings, errors with `--strict`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from trajkit import redact
from trajkit.errors import TrajkitError
from trajkit.shapes.memory import BareFolderConversation, ShapeRef
from trajkit.store.layout import BASE_STATE
from trajkit.store.reader import StoredConversation
from trajkit.store.scan import ScannedFile, scan_event_file
from trajkit.validate.conversation import ConversationCheck, ConversationReport
from trajkit.validate.files import (
    MAX_FILE_BYTES,
    FileCheck,
    check_base_state_bytes,
    decode_object,
)
from trajkit.validate.problems import Problem, error, warning

__all__ = ["opened_problems", "validate_shape"]


def validate_shape(
    ref: ShapeRef, *, strict: bool = False, max_file_bytes: int, thorough: bool = False
) -> ConversationReport:
    """Check one conversation of a shape; problems in event order, then the cross-event ones."""
    report = ConversationReport(path=Path(ref.label))
    for problem in _problems(ref, report, max_file_bytes=max_file_bytes, thorough=thorough):
        report.problems.append(problem.promoted() if strict else problem)
    return report


def _problems(
    ref: ShapeRef, report: ConversationReport, *, max_file_bytes: int, thorough: bool
) -> Iterator[Problem]:
    where = Path(ref.label)
    try:
        conv = ref.open_conversation()
    except TrajkitError as exc:
        yield error(
            getattr(exc, "path", where) or where,
            getattr(exc, "pointer", ""),
            getattr(exc, "message", str(exc)),
            "shape",
        )
        return
    state_path = (
        Path(ref.label + "#/baseState")
        if ref.shape != "archive"
        else Path(f"{ref.label}/{BASE_STATE}")
    )
    yield from opened_problems(
        conv, report, where, state_path, max_file_bytes=max_file_bytes, thorough=thorough
    )


def opened_problems(
    conv: StoredConversation,
    report: ConversationReport,
    where: Path,
    state_path: Path,
    *,
    max_file_bytes: int = MAX_FILE_BYTES,
    thorough: bool = False,
) -> Iterator[Problem]:
    """The problems of a conversation already opened (the `trajkit.shapes` reader's)."""
    for note in getattr(conv, "notes", ()):
        yield warning(where, "", note, "shape")
    upgrades: Counter[str] = Counter()
    state_data = None
    raw_state = conv.base_state_raw()
    if raw_state is not None:
        check = FileCheck(raw=raw_state)
        if decode_object(state_path, check) is not None:
            check_base_state_bytes(state_path, check, thorough=thorough)
            upgrades.update(check.upgrades)
            state_data = check.data
        yield from check.problems
        if state_data is not None:
            for pointer, field_name in redact.find_clear_secrets(state_data):
                yield error(state_path, pointer, f"secret {field_name!r} in clear", "secret")
    events = ConversationCheck(where, max_file_bytes=max_file_bytes, thorough=thorough)
    events.secrets = redact.registered_secret_values(state_data) if state_data else {}
    events.upgrades, events.report = upgrades, report
    bare = isinstance(conv, BareFolderConversation)
    events.events, events.interleave = (conv.events_dir if bare else None), False
    if state_data is not None:
        events.head = (state_path, state_data)
    for f in conv.event_files():
        path = f.path
        if bare and f.outside is not None:  # as in a V1 folder's events/: never read
            scanned = ScannedFile(f.index, f.event_id, path.name, path.parent, outside=f.outside)
            report.events += 1
        elif bare:
            scanned = scan_event_file(
                path, index=f.index, event_id=f.event_id, max_bytes=max_file_bytes
            )
        else:  # no file name to check the id against
            raw = f.read_bytes()
            scanned = scan_event_file(path, index=f.index, max_bytes=max_file_bytes, raw=raw)
        yield from events.add(scanned)
    yield from events.finish()
