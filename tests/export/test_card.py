"""The export folder loads in one call: its `README.md` names a config per table."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support import fixtures as fx
from trajkit import __version__
from trajkit.export import export_dataset

datasets = pytest.importorskip("datasets", reason="the test extra installs `datasets`")


def _load(out: Path, cache: Path, name: str | None = None) -> object:
    return datasets.load_dataset(str(out), name, split="train", cache_dir=str(cache))


def test_each_table_loads_by_name_and_the_card_says_what_made_it(tmp_path: Path) -> None:
    corpus = tmp_path / "in"
    shutil.copytree(fx.SDK_FIXTURES, corpus)
    first = sorted(p for p in corpus.iterdir() if p.is_dir())[0]
    moved = shutil.move(str(first), tmp_path / first.name)
    out = tmp_path / "ds"
    export_dataset([corpus], out, command="trajkit export in -o ds")
    card = (out / "README.md").read_text()
    assert f"trajkit {__version__}" in card and "`trajkit export in -o ds`" in card
    assert "| `n_errors` | `int64` |" in card and "| `is_error` | `bool` |" in card
    conversations = _load(out, tmp_path / "c1", "conversations")
    events = _load(out, tmp_path / "c2", "events")
    assert "messages" in conversations.column_names and "event_json" in events.column_names
    assert _load(out, tmp_path / "c3").column_names == conversations.column_names  # default
    n = conversations.num_rows
    assert f"| `conversations` | {n:,} |" in card and f"| `events` | {events.num_rows:,} |" in card

    shutil.move(moved, corpus / first.name)  # an incremental run: the counts follow
    export_dataset([corpus], out)
    card = (out / "README.md").read_text()
    assert f"| `conversations` | {n + 1:,} |" in card
    assert _load(out, tmp_path / "c4", "conversations").num_rows == n + 1
