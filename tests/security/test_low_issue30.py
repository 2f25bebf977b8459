"""Issue 30, Low list (inputs): a conversation folder named `<hex>\\n` and an `output.jsonl`
nested too deeply give an answer or one line per command, never a traceback. Real files."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest

from tests.security.conftest import copy_fixture, invoke


def test_a_conversation_folder_named_hex_and_a_newline(tmp_path: Path) -> None:
    """`$` matched before the final newline: the name passed as a UUID hex, and uuid.UUID
    raised ValueError in ls, stats and convert."""
    src = copy_fixture(tmp_path)
    corpus = tmp_path / "odd"
    corpus.mkdir()
    shutil.move(src, corpus / f"{src.name}\n")
    for args in (["ls", str(corpus)], ["stats", str(corpus)], ["validate", str(corpus)]):
        r = invoke(*args)
        assert r.exit_code == 0, (args, r.output)
        assert "ValueError" not in r.output
    listed = invoke("ls", str(corpus))
    assert str(uuid.UUID(hex=src.name)) in listed.output  # the id base_state.json gives


def _deep_record(depth: int) -> str:
    record = {"instance_id": "deep", "instruction": "x", "history": [], "metadata": 0}
    return json.dumps(record).replace('"metadata": 0', '"metadata": ' + "[" * depth + "]" * depth)


@pytest.mark.parametrize("command", ["ls", "stats", "validate", "convert", "inspect"])
def test_a_deeply_nested_output_jsonl_is_one_line(tmp_path: Path, command: str) -> None:
    folder = tmp_path / "eval"
    folder.mkdir()
    path = folder / "output.jsonl"
    path.write_text(_deep_record(100_000) + "\n")
    before = path.read_bytes()
    r = invoke(command, str(folder if command in ("ls", "stats", "validate") else path))
    assert "RecursionError" not in r.output and "Traceback" not in r.output, r.output[-2000:]
    assert r.exit_code in (0, 1), r.output[-2000:]
    if command in ("ls", "stats"):
        lines = [line for line in r.output.splitlines() if "output.jsonl" in line]
        assert lines and all("nested too deeply" in line for line in lines), r.output[-2000:]
    assert path.read_bytes() == before
