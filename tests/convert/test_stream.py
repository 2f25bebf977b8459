"""The streaming conversion (`write_conversation`) writes exactly the in-memory path's bytes.

The in-memory path is `convert_conversation` + `indented_json` (what `trajkit convert` wrote
before streaming); the streaming path validates, indexes and converts one event at a time. They
must agree byte for byte, with the same warnings, on every fixture conversation, under every
option that changes the messages, and on synthetic conversations built for the hard cases
(condensation, branches, dangling calls in the middle and at the end, tool loops, caching,
images in tool results).
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest

import trajkit.convert.stream as stream
from tests.convert._build import Log, image, text
from tests.support import fixtures as fx
from trajkit.convert import convert_conversation
from trajkit.convert.options import ConversionOptions, FormatOptions
from trajkit.convert.stream import indented_json, write_conversation
from trajkit.errors import TrajkitError
from trajkit.store.layout import find_conversations
from trajkit.validate.verdict import conversation_errors

SHARED_SDK = fx.REPO.parent / "shared" / "fixtures-sdk"
if not SHARED_SDK.is_dir():
    SHARED_SDK = fx.REPO.parents[1] / "shared" / "fixtures-sdk"

OPTIONS: dict[str, ConversionOptions] = {
    "default": ConversionOptions(),
    "full": ConversionOptions(view="full"),
    "full-synthesize": ConversionOptions(view="full", dangling="synthesize"),
    "full-report": ConversionOptions(view="full", dangling="report"),
    "no-reasoning-no-system": ConversionOptions(reasoning=False, system=False),
    "placeholder-reasoning-content": ConversionOptions(
        images="placeholder", send_reasoning_content=True
    ),
    "sdk-inline": ConversionOptions(formatting=FormatOptions(tool_images="inline")),
    "caching-string": ConversionOptions(
        view="full",
        formatting=FormatOptions(
            model="anthropic/claude-sonnet-4", caching=True, force_string_serializer=True
        ),
    ),
    "caching-images": ConversionOptions(
        formatting=FormatOptions(
            model="anthropic/claude-sonnet-4", caching=True, tool_images="user"
        )
    ),
}


def _folders() -> list[Path]:
    roots = [fx.FIXTURES]
    if SHARED_SDK.is_dir():
        roots.append(SHARED_SDK)
    found: set[Path] = set()
    for root in roots:
        for base in root.rglob("base_state.json"):
            found.add(base.parent)
        for events in root.rglob("events"):
            if events.is_dir():
                found.add(events.parent)
    return sorted(found)


FOLDERS = _folders()


def _in_memory(folder: Path, to: str, options: ConversionOptions) -> tuple[bytes, list[str]]:
    result = convert_conversation(folder, to=to, options=options)  # type: ignore[arg-type]
    problems = result.pop("problems")
    del result["conversation_id"]
    return indented_json(result), problems


def _streamed(folder: Path, to: str, options: ConversionOptions) -> tuple[bytes, list[str]]:
    out = io.BytesIO()
    written = write_conversation(folder, out, to=to, options=options)  # type: ignore[arg-type]
    assert written.errors == []
    with tempfile.TemporaryFile() as f:  # a real file written at its end: no spool for chat
        f.write(b"kept")
        again = write_conversation(folder, f, to=to, options=options)  # type: ignore[arg-type]
        f.seek(0)
        assert f.read() == b"kept" + out.getvalue()
        assert again == written
    return out.getvalue(), written.problems


def _assert_same(folder: Path, to: str, options: ConversionOptions) -> None:
    try:
        expected = _in_memory(folder, to, options)
    except TrajkitError as exc:
        with pytest.raises(type(exc)) as caught:
            _streamed(folder, to, options)
        assert str(caught.value) == str(exc)
        return
    assert _streamed(folder, to, options) == expected


def test_the_fixtures_are_found() -> None:
    assert len(FOLDERS) >= 20
    if SHARED_SDK.is_dir():
        assert any(SHARED_SDK in f.parents for f in FOLDERS)


@pytest.fixture(params=["one-pass", "two-pass"])
def passes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways of streaming: converting while validating (the guess checked at the end),
    and the second pass over the view's files (taken when the guess fails)."""
    if request.param == "two-pass":
        monkeypatch.setattr(stream, "_speculation", lambda *args: None)
    return str(request.param)


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: str(p.relative_to(p.parents[2])))
@pytest.mark.parametrize("to", ["chat", "responses"])
def test_streaming_equals_in_memory_on_every_fixture(folder: Path, to: str, passes: str) -> None:
    if conversation_errors(folder):
        out = io.BytesIO()
        with pytest.raises(TrajkitError, match="; (invalid, )?skipped"):
            write_conversation(folder, out, to=to)  # type: ignore[arg-type]
        assert out.getvalue() == b""  # nothing written before the verdict
        with tempfile.TemporaryFile() as f:  # a file: what the first pass wrote is taken back
            f.write(b"kept")
            with pytest.raises(TrajkitError, match="; (invalid, )?skipped"):
                write_conversation(folder, f, to=to)  # type: ignore[arg-type]
            f.seek(0)
            assert f.read() == b"kept"
        return
    for options in OPTIONS.values():
        _assert_same(folder, to, options)


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: str(p.relative_to(p.parents[2])))
@pytest.mark.parametrize("to", ["chat", "responses"])
def test_jsonl_line_equals_in_memory_on_every_fixture(folder: Path, to: str, passes: str) -> None:
    """`convert_corpus`'s line: compact, `conversation_id` first, as orjson dumps the document."""
    keys = ("conversation_id", "messages", "instructions", "input", "tools")
    for options in (OPTIONS["default"], OPTIONS["caching-images"], OPTIONS["full-synthesize"]):
        try:
            result = convert_conversation(folder, to=to, options=options)  # type: ignore[arg-type]
        except TrajkitError:
            continue  # compared as errors above
        out = io.BytesIO()
        written = write_conversation(
            folder,
            out,
            to=to,  # type: ignore[arg-type]
            options=options,
            keep_invalid=True,
            line=True,
        )
        assert out.getvalue() == orjson.dumps({k: result[k] for k in keys if k in result})
        assert written.problems == result["problems"]


def _invalid_folder(tmp_path: Path) -> Path:
    """A two-event conversation validate rejects (an index gap), still readable."""
    log = Log()
    log.system()
    log.user(text("hi"))
    folder = log.write(tmp_path / "conv")
    second = next((folder / "events").glob("event-00001-*.json"))
    second.rename(second.with_name(second.name.replace("00001", "00003")))  # an index gap
    return folder


def test_keep_invalid_converts_with_the_errors(tmp_path: Path) -> None:
    folder = _invalid_folder(tmp_path)
    errors = conversation_errors(folder)
    assert errors
    out = io.BytesIO()
    written = write_conversation(folder, out, keep_invalid=True)
    assert written.errors == errors
    assert out.getvalue() == _in_memory(folder, "chat", ConversionOptions())[0]
    with (tmp_path / "out.json").open("wb") as f:  # the first pass wrote there: taken back
        assert write_conversation(folder, f, keep_invalid=True) == written
    assert (tmp_path / "out.json").read_bytes() == out.getvalue()


def test_a_file_with_bytes_after_the_position_gets_no_bytes_before_the_verdict(
    tmp_path: Path,
) -> None:
    """Only a file written at its end takes the first pass's bytes (it is truncated back to
    where it was); a file with bytes after the position is left as it was on an invalid
    conversation, its later bytes included.
    """
    folder = _invalid_folder(tmp_path)
    path = tmp_path / "out.json"
    path.write_bytes(b"before|after")
    with path.open("r+b") as f:
        f.seek(len(b"before|"))
        with pytest.raises(TrajkitError, match="invalid, skipped"):
            write_conversation(folder, f)
    assert path.read_bytes() == b"before|after"


def _condensed_log() -> Log:
    log = Log()
    log.system()
    first = log.user(text("task"))
    forgotten = []
    for n in range(4):
        a = log.action(f"c{n}", f"r{n}", thought=f"step {n}")
        forgotten += [a, log.terminal_result(f"c{n}", a, f"out {n}")]
    log.add(
        "Condensation",
        source="environment",
        forgotten_event_ids=forgotten[:6],
        summary="Ran three steps.",
        summary_offset=2,
        llm_response_id="cond-1",
    )
    log.user(text("more"))
    log.user(text("and more"))  # plain user turns merge
    del first
    return log


def _dangling_middle_log() -> Log:
    log = Log()
    log.system()
    log.action("c1", "r1", thought="Let me look.")
    log.user(text("stop, do something else"))
    log.agent("ok")
    a = log.action("c2", "r2")
    log.action("c3", "r2")
    log.terminal_result("c2", a, "two")
    log.user(text("end"))
    log.action("c4", "r4")  # dangling at the end
    return log


def _thinking_loop_log() -> Log:
    log = Log()
    log.system()
    log.user(text("go"))
    blocks = [{"type": "thinking", "thinking": "hmm", "signature": "s1"}]
    a = log.action("c1", "r1", thought="t", thinking_blocks=blocks)
    log.terminal_result("c1", a, "one")
    b = log.action("c2", "r2")
    log.terminal_result("c2", b, "two")
    log.action("c3", "r3")  # unanswered: the whole tool loop goes in the condensed view
    return log


def _images_log() -> Log:
    log = Log()
    log.system()
    log.user(text("look"), image("data:image/png;base64,AAAA"))
    a = log.action("c1", "r1", tool="browser", action={"kind": "BrowserAction"})
    log.result(
        "c1",
        a,
        {
            "content": [text("shot"), image("data:image/png;base64,BBBB")],
            "is_error": False,
            "kind": "BrowserObservation",
        },
        tool="browser",
    )
    log.agent("done")
    return log


def _branch_log() -> tuple[Log, dict[str, Any]]:
    log = Log()
    root = log.system()
    u = log.user(text("first try"), parent_id=root)
    log.agent("abandoned", parent_id=u)
    second = log.user(text("second try"), parent_id=root)
    leaf = log.agent("kept", parent_id=second)
    log.add("ConversationStateUpdateEvent", source="environment", key="x", value=1)
    log.add("FancyNewEvent", source="agent", stuff=[1, 2])
    return log, {"leaf_event_id": leaf}


def _orphan_log() -> Log:
    log = Log()
    log.system()
    log.user(text("go"))
    a = log.action("c1", "r1")
    log.terminal_result("c1", a, "fine")
    log.add(
        "AgentErrorEvent",
        source="agent",
        tool_name="terminal",
        tool_call_id="c1",
        error="second answer",
    )
    return log


SYNTHETIC = {
    "condensed": lambda: (_condensed_log(), None),
    "dangling-middle": lambda: (_dangling_middle_log(), None),
    "thinking-loop": lambda: (_thinking_loop_log(), None),
    "images": lambda: (_images_log(), None),
    "branch": _branch_log,
    "duplicate-result": lambda: (_orphan_log(), None),
}


@pytest.mark.parametrize("name", sorted(SYNTHETIC))
@pytest.mark.parametrize("to", ["chat", "responses"])
def test_streaming_equals_in_memory_on_hard_cases(
    tmp_path: Path, name: str, to: str, passes: str
) -> None:
    log, state = SYNTHETIC[name]()
    folder = log.write(tmp_path / "conv", state)
    errors = conversation_errors(folder)
    for options in OPTIONS.values():
        if errors:  # compare what --keep-invalid converts
            out = io.BytesIO()
            written = write_conversation(folder, out, to=to, options=options, keep_invalid=True)  # type: ignore[arg-type]
            assert (out.getvalue(), written.problems) == _in_memory(folder, to, options)
        else:
            _assert_same(folder, to, options)


def test_hard_cases_take_the_streaming_path(tmp_path: Path) -> None:
    """The synthetic cases above are valid, so they test the streaming code, not the fallback."""
    valid = []
    for name, build in sorted(SYNTHETIC.items()):
        log, state = build()
        folder = log.write(tmp_path / name, state)
        if not conversation_errors(folder):
            valid.append(name)
    assert {"condensed", "dangling-middle", "thinking-loop", "images", "branch"} <= set(valid)


def test_corpus_fixture_folders_are_conversations() -> None:
    assert FOLDERS and all(
        (f / "events").is_dir() or (f / "base_state.json").exists() for f in FOLDERS
    )
    assert list(find_conversations([fx.SDK_FIXTURES]))


def test_a_regular_conversation_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No second pass when the guess holds: dangling call at the end, parallel calls, images."""
    log = _images_log()
    a = log.action("c7", "r7")
    b = log.action("c8", "r7")
    log.terminal_result("c7", a, "seven")
    log.terminal_result("c8", b, "eight")
    log.action("c9", "r9")  # the run stopped here
    folder = log.write(tmp_path / "conv")
    expected = _in_memory(folder, "chat", ConversionOptions())

    def second_pass(entry: Any) -> Any:
        raise AssertionError(f"read again: {entry.path}")

    monkeypatch.setattr(stream, "_load", second_pass)
    assert _streamed(folder, "chat", ConversionOptions()) == expected
    assert _streamed(folder, "responses", ConversionOptions(view="full")) == _in_memory(
        folder, "responses", ConversionOptions(view="full")
    )
