"""Export reads each event file once: the rows made from the validation pass's reads are the
rows made by reading every file again (what `_v1_rows` did before), on every fixture folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import trajkit.export.rows as rows
from tests.support import fixtures as fx
from trajkit.export.rows import ConversationRows, RowOptions, conversation_rows

FOLDERS = sorted(
    {p.parent for p in fx.FIXTURES.rglob("base_state.json")}
    | {p.parent for p in fx.FIXTURES.rglob("events") if p.is_dir()}
)


def _rows(folder: Path, options: RowOptions) -> Any:
    result = conversation_rows(folder, options)
    if isinstance(result, ConversationRows):
        return (result.conversation, result.event_columns, result.fingerprint)
    return result


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: str(p.relative_to(fx.FIXTURES)))
def test_rows_from_the_validation_reads_equal_rows_read_again(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for options in (RowOptions(), RowOptions(keep_invalid=True)):
        once = _rows(folder, options)
        with monkeypatch.context() as m:
            m.setattr(rows._Read, "matching", lambda self, files: None)  # read every file again
            again = _rows(folder, options)
        assert once == again


def test_the_validation_reads_are_used() -> None:
    folder = fx.sdk_conversation("b_terminal")
    read = rows._Read()
    from trajkit.store import open_conversation
    from trajkit.validate.conversation import iter_conversation_problems

    list(iter_conversation_problems(folder, on_event=read.add))
    files = open_conversation(folder).event_files()
    reads = read.matching(files)
    assert reads is not None and len(reads) == len(files)
    assert all(event is not None and stat is not None for _, stat, event in reads)
    assert [raw for raw, _, _ in reads] == [f.read_bytes() for f in files]


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: str(p.relative_to(fx.FIXTURES)))
def test_the_validation_listing_equals_the_readers(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A valid folder's files are those the validation pass read (events/ is listed once):
    the rows equal those made from the reader's own listing of events/."""
    from trajkit.store.reader import StoredConversation

    listed = StoredConversation.event_files
    calls: list[Path] = []

    def counted(self: StoredConversation) -> Any:
        calls.append(self.path)
        return listed(self)

    monkeypatch.setattr(StoredConversation, "event_files", counted)
    for options in (RowOptions(), RowOptions(keep_invalid=True)):
        once = _rows(folder, options)
        with monkeypatch.context() as m:
            m.setattr(rows._Read, "add", _add_without_files)  # the reader lists events/ again
            again = _rows(folder, options)
        assert once == again
    if isinstance(_rows(folder, RowOptions()), tuple):  # exported as valid
        calls.clear()
        _rows(folder, RowOptions())
        assert calls == []


_add = rows._Read.add


def _add_without_files(self: Any, path: Path, check: Any) -> None:
    _add(self, path, check)
    self.files = None
