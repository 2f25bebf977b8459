"""One rule for a failed step: the report, `stats`, the catalog and `export` count alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import fixtures as fx
from trajkit.events import AgentErrorEvent, ObservationEvent, TerminalObservation
from trajkit.events.outcome import is_failed_step
from trajkit.export import RowOptions, conversation_rows
from trajkit.export.rows import ConversationRows
from trajkit.shapes import resolve_inputs
from trajkit.shapes.inputs import SkippedInput
from trajkit.views.catalog import source_row
from trajkit.views.entries import iter_entries
from trajkit.views.load import load_conversation
from trajkit.views.summary import source_stats

SHARED = next(
    (p for p in (fx.REPO.parent / "shared", fx.REPO.parents[1] / "shared") if p.is_dir()),
    fx.REPO.parent / "shared",
)


def _sources(root: Path) -> list[object]:
    return [s for s in resolve_inputs([root]) if not isinstance(s, SkippedInput)]


def _check_agree(root: Path) -> int:
    """Report, stats, catalog and export error counts of every conversation under `root`."""
    failed = 0
    for source in _sources(root):
        rows = conversation_rows(source, RowOptions(keep_invalid=True))  # type: ignore[arg-type]
        if not isinstance(rows, ConversationRows):
            continue
        try:
            loaded = load_conversation(str(source))
        except Exception:  # noqa: BLE001 - a conversation the viewer refuses is not compared
            continue
        report = sum(1 for e in iter_entries(loaded.items) if e.error)
        exported = rows.conversation["n_errors"]
        assert exported == report == sum(rows.event_columns["is_error"]), source
        assert source_row(source).errors == report, source  # type: ignore[arg-type]
        stats = source_stats(source)  # type: ignore[arg-type]
        assert getattr(stats, "errors", report) == report, source
        failed += report
    return failed


def test_bundled_fixtures_agree() -> None:
    assert _check_agree(fx.FIXTURES) > 0  # some fixture records a failed step


@pytest.mark.parametrize("name", ["fixtures-sdk", "fixtures-wild"])
def test_public_fixtures_agree(name: str) -> None:
    root = SHARED / name
    if not root.is_dir():
        pytest.skip(f"{root} is absent (public fixtures live in ../shared)")
    _check_agree(root)


def test_a_non_zero_exit_is_a_failed_step_in_the_dataset() -> None:
    """The case issue 29 measured: `exit 1` results were errors in the report, not the export."""
    obs = TerminalObservation(content=[], command="false", exit_code=1)
    event = ObservationEvent(
        source="environment",
        tool_name="terminal",
        tool_call_id="c",
        observation=obs,
        action_id="a",
    )
    assert is_failed_step(event)
    ok = event.model_copy(update={"observation": obs.model_copy(update={"exit_code": 0})})
    assert not is_failed_step(ok)
    unknown = event.model_copy(update={"observation": obs.model_copy(update={"exit_code": None})})
    assert not is_failed_step(unknown)  # metadata's -1: not known, not failed
    err = AgentErrorEvent(source="agent", tool_name="t", tool_call_id="c", error="boom")
    assert is_failed_step(err)
