"""`trajkit convert` writes its JSON with orjson: the same bytes `json.dumps(indent=2)` gave."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.support import fixtures as fx
from trajkit.cli import main
from trajkit.convert import convert_conversation
from trajkit.convert.stream import indented_json


def _stdlib(document: Any) -> bytes:
    return json.dumps(document, indent=2, ensure_ascii=False).encode() + b"\n"


@pytest.mark.parametrize("to", ["chat", "responses"])
@pytest.mark.parametrize("folder", fx.sdk_conversations(), ids=lambda p: p.parent.name)
def test_cli_output_is_the_stdlib_bytes(folder: Path, to: str) -> None:
    result = CliRunner().invoke(main, ["convert", "--to", to, str(folder)])
    assert result.exit_code == 0, result.output
    document = convert_conversation(folder, to=to)  # type: ignore[arg-type]
    del document["problems"], document["conversation_id"]
    assert result.stdout_bytes == _stdlib(document)


def test_indented_json_edge_values() -> None:
    document = {
        "text": 'é \u2028 \x7f \x1f "quoted" \\ tab\t',
        "empty": [[], {}],
        "numbers": [0, -1, 1.5, 0.1, 1e16, 1e22, -0.0, 2**63 - 1],
        "nested": {"a": [1, [2, []]], "b": None, "c": True},
    }
    assert indented_json(document) == _stdlib(document)
    huge = {"n": 2**70}  # beyond orjson's 64-bit integers: the stdlib writes it
    assert indented_json(huge) == _stdlib(huge)
