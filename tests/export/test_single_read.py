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
def test_rows_from_the_scan_equal_rows_read_again(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows made from the scan the verdict took equal those made by the reader listing
    `events/` and reading every file again; a valid folder's `events/` is listed once."""
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
            m.setattr(rows, "_same_files", lambda files, scanned: False)  # read every file again
            again = _rows(folder, options)
        assert once == again
    if isinstance(_rows(folder, RowOptions()), tuple):  # exported as valid
        calls.clear()
        _rows(folder, RowOptions())
        assert calls == []


def test_the_scan_reads_are_the_readers() -> None:
    from trajkit.store import open_conversation
    from trajkit.validate.verdict import Verdict

    folder = fx.sdk_conversation("b_terminal")
    verdict = Verdict(folder)
    scanned = list(verdict.files())
    for one in scanned:
        verdict.add(one)
    assert verdict.errors() == []
    files = open_conversation(folder).event_files()
    assert [s.path for s in scanned] == [f.path for f in files]
    assert all(s.event is not None and s.stat is not None for s in scanned)
    assert [s.raw for s in scanned] == [f.read_bytes() for f in files]
