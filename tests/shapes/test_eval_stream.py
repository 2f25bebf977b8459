"""Evaluation `output.jsonl` records travel as byte ranges: the listing keeps no record bytes.

`trajkit export` lists the records in the parent and opens each in a worker; a handle carrying
the record's bytes made the parent and every in-flight chunk hold megabytes of records (630 MB
for three processes on a 0.3 GB output, `benchmarks/bench_export_eval.py`). The handle now
holds `(offset, length)` and the worker reads those bytes itself.
"""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest

from tests.support import fixtures as fx
from trajkit.errors import InputError
from trajkit.shapes import shape_refs
from trajkit.store import open_conversation

SAMPLE = fx.FIXTURES / "shapes" / "eval_output.jsonl"


def _copy(tmp_path: Path) -> Path:
    path = tmp_path / "output.jsonl"
    shutil.copy(SAMPLE, path)
    return path


def test_handles_hold_a_byte_range_and_no_record_bytes(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    refs = list(shape_refs(path) or [])
    raw = path.read_bytes()
    lines = raw.splitlines(keepends=True)
    assert [r.key for r in refs] == ["sample-old", "sample-current"]
    for ref, line in zip(refs, lines, strict=True):
        assert ref.span is not None
        offset, length = ref.span
        assert raw[offset : offset + length] == line
        assert len(pickle.dumps(ref)) < 600  # what a worker receives: a path and two numbers
    opened = open_conversation(refs[1])
    assert opened.id == open_conversation(refs[1]).id
    assert len(opened.event_files()) > 1


def test_blank_lines_keep_the_offsets_right(tmp_path: Path) -> None:
    path = tmp_path / "output.jsonl"
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"\n" + lines[0] + b"   \n\n" + lines[1].rstrip(b"\n"))  # no final newline
    refs = list(shape_refs(path) or [])
    assert [(r.key, r.line) for r in refs] == [("sample-old", 2), ("sample-current", 5)]
    for ref in refs:
        assert len(open_conversation(ref).event_files()) > 1


def test_a_file_changed_after_listing_is_a_clear_error(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    refs = list(shape_refs(path) or [])
    path.write_bytes(path.read_bytes().splitlines(keepends=True)[0])  # second record gone
    with pytest.raises(InputError) as caught:
        open_conversation(refs[1])
    assert (
        str(caught.value)
        == f"{path}#sample-current: the file changed while it was read; run the command again"
    )
