"""`trajkit export`'s chat conversion is `trajkit convert`'s: the same function, the same output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.convert._build import Log, image, text
from tests.support import fixtures as fx
from trajkit.convert import conversation as conversion
from trajkit.convert.conversation import convert_conversation
from trajkit.convert.options import ConversionOptions
from trajkit.export import RowOptions, conversation_rows
from trajkit.export.rows import ConversationRows

PNG = "data:image/png;base64,iVBORw0KGgo="


def _row(folder: Path, view: str = "condensed") -> dict[str, Any]:
    result = conversation_rows(folder, RowOptions(view=view, redact=False))  # type: ignore[arg-type]
    assert isinstance(result, ConversationRows), result
    return result.conversation


@pytest.mark.parametrize("view", ["condensed", "full"])
def test_convert_and_export_both_call_prepare_messages(
    monkeypatch: pytest.MonkeyPatch, view: str
) -> None:
    calls: list[dict[str, Any]] = []
    real = conversion.prepare_messages

    def recording(*args: Any, **kwargs: Any) -> conversion.Prepared:
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(conversion, "prepare_messages", recording)
    folder = fx.sdk_conversation("j_condense")
    document = convert_conversation(folder, options=ConversionOptions(view=view))  # type: ignore[arg-type]
    row = _row(folder, view)
    assert len(calls) == 2
    convert_call, export_call = calls
    assert convert_call.get("message_of") is None  # convert builds each message itself
    assert export_call["message_of"] is not None  # export reuses its events table's messages
    assert convert_call["options"] == export_call["options"] == ConversionOptions(view=view)  # type: ignore[arg-type]
    assert json.loads(row["conversion"]) == {
        "messages": document["messages"],
        "tools": document["tools"],
    }
    assert row["problems"] == document["problems"]


def test_a_pipeline_that_fails_fails_both_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> conversion.Prepared:
        raise RuntimeError("the one pipeline")

    monkeypatch.setattr(conversion, "prepare_messages", broken)
    folder = fx.sdk_conversation("a_text")
    with pytest.raises(RuntimeError, match="the one pipeline"):
        convert_conversation(folder)
    with pytest.raises(RuntimeError, match="the one pipeline"):
        conversation_rows(folder, RowOptions(redact=False))


def _image_log() -> Log:
    log = Log()
    log.system()
    log.user(text("look at a.png"))
    a = log.action(
        "c1",
        "r1",
        tool="file_editor",
        arguments='{"command": "view"}',
        action={"command": "view", "path": "/w/a.png", "kind": "FileEditorAction"},
    )
    log.result(
        "c1",
        a,
        {
            "content": [text("Image file /w/a.png"), image(PNG)],
            "is_error": False,
            "command": "view",
            "kind": "FileEditorObservation",
        },
        tool="file_editor",
    )
    log.agent("a red square")
    return log


def test_export_moves_tool_images_as_convert_does(tmp_path: Path) -> None:
    """Export's own copy left tool-result images inline; convert moves them to a user message."""
    folder = _image_log().write(tmp_path / "c")
    document = convert_conversation(folder)
    row = _row(folder)
    conversion_json = json.loads(row["conversion"])
    assert conversion_json == {"messages": document["messages"], "tools": document["tools"]}
    roles = [m["role"] for m in conversion_json["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "user", "assistant"]
    assert conversion_json["messages"][4]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": PNG},
    }
    # The TRL `messages` column keeps one entry per message, text only.
    trl = row["messages"]
    assert [m["role"] for m in trl] == ["system", "user", "assistant", "tool", "assistant"]
    assert trl[3]["content"] == "Image file /w/a.png"
    assert row["n_messages"] == len(trl)
