"""Conversations built for the view tests: every role the views draw, in a temporary folder.

`make_conversation(folder)` writes a V1 conversation (base_state copied from the b_terminal
fixture, so its stats hold two responses whose ids the actions reuse) with: a system prompt,
a user message with a data-URL image and an http image, an agent message with reasoning, a
terminal call whose output is `LONG_LINES` lines long, a file edit, an agent error, a rejected
call, a condensation, an event of an unknown kind and, optionally, a broken event file.
"""

from __future__ import annotations

import base64
import json
import struct
import uuid
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import fixtures as fx
from tests.views._browser import Browser, Page, find_chromium
from trajkit.events import (
    ActionEvent,
    AgentErrorEvent,
    Condensation,
    FileEditorAction,
    FileEditorObservation,
    ImageContent,
    Message,
    MessageEvent,
    MessageToolCall,
    ObservationEvent,
    SystemPromptEvent,
    TerminalAction,
    TerminalObservation,
    TextContent,
    UserRejectObservation,
    dump_event,
)
from trajkit.store.layout import event_file_name

LONG_LINES = 40
USER_TEXT = "Please count to forty and fix the greeting."
AGENT_TEXT = "Counted to forty; the greeting now says hello."
HTTP_IMAGE = "https://example.invalid/never-fetched.png"
RESPONSES = ("chatcmpl-b_terminal-0", "chatcmpl-b_terminal-1")


def png_data_url(width: int = 24, height: int = 16) -> str:
    """A valid red PNG as a data URL (built here: no file needed)."""
    raw = b"".join(b"\x00" + b"\xdc\x26\x26" * width for _ in range(height))

    def chunk(tag: bytes, data: bytes) -> bytes:
        body = tag + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    png = b"\x89PNG\r\n\x1a\n" + chunk(
        b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    )
    png += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return "data:image/png;base64," + base64.b64encode(png).decode()


def _call(name: str, call_id: str, args: dict) -> MessageToolCall:
    return MessageToolCall(id=call_id, name=name, arguments=json.dumps(args))


def build_events() -> list:
    """The events of the synthetic conversation, in order (ids are uuid4)."""
    long_output = "\n".join(f"line {n}" for n in range(1, LONG_LINES + 1))
    ev: list = [
        SystemPromptEvent(system_prompt=TextContent(text="You are a test agent."), tools=[]),
        MessageEvent(
            source="user",
            llm_message=Message(
                role="user",
                content=[
                    TextContent(text=USER_TEXT),
                    ImageContent(image_urls=[png_data_url(), HTTP_IMAGE]),
                ],
            ),
        ),
    ]
    a1 = ActionEvent(
        thought=[TextContent(text="Counting with seq.")],
        reasoning_content="The user wants numbers; seq is simplest.",
        action=TerminalAction(command="seq -f 'line %g' 1 40"),
        tool_name="terminal",
        tool_call_id="call_1",
        tool_call=_call("terminal", "call_1", {"command": "seq -f 'line %g' 1 40"}),
        llm_response_id=RESPONSES[0],
    )
    o1 = ObservationEvent(
        tool_name="terminal",
        tool_call_id="call_1",
        action_id=a1.id,
        observation=TerminalObservation(
            content=[TextContent(text=long_output)], command="seq", exit_code=0
        ),
    )
    a2 = ActionEvent(
        thought=[],
        action=FileEditorAction(
            command="str_replace",
            path="/w/greet.py",
            old_str="print('hi')",
            new_str="print('hello')",
        ),
        tool_name="file_editor",
        tool_call_id="call_2",
        tool_call=_call("file_editor", "call_2", {"command": "str_replace", "path": "/w/greet.py"}),
        llm_response_id=RESPONSES[1],
    )
    o2 = ObservationEvent(
        tool_name="file_editor",
        tool_call_id="call_2",
        action_id=a2.id,
        observation=FileEditorObservation(
            content=[TextContent(text="The file /w/greet.py has been edited.")],
            command="str_replace",
            path="/w/greet.py",
        ),
    )
    a3 = ActionEvent(
        thought=[],
        action=TerminalAction(command="rm -rf /"),
        tool_name="terminal",
        tool_call_id="call_3",
        tool_call=_call("terminal", "call_3", {"command": "rm -rf /"}),
        llm_response_id="resp-3",
    )
    r3 = UserRejectObservation(
        tool_name="terminal",
        tool_call_id="call_3",
        action_id=a3.id,
        rejection_reason="too dangerous",
    )
    e4 = AgentErrorEvent(
        tool_name="terminal", tool_call_id="call_4", error="Tool 'terminal' crashed: boom"
    )
    cond = Condensation(
        forgotten_event_ids=[a1.id, o1.id],
        summary="Summary: counted to forty.",
        llm_response_id="cond-1",
    )
    final = MessageEvent(
        source="agent",
        llm_message=Message(
            role="assistant",
            content=[TextContent(text=AGENT_TEXT)],
            reasoning_content="Done; report back.",
        ),
        llm_response_id="resp-5",
    )
    ev += [a1, o1, a2, o2, a3, r3, e4, cond, final]
    return ev


UNKNOWN_EVENT = {
    "id": "0f0e0d0c-0b0a-4908-8706-050403020100",
    "timestamp": "2026-11-29T09:00:00.000000",
    "source": "environment",
    "kind": "FancyFutureEvent",
    "sparkle_level": 11,
}


def make_conversation(folder: Path, *, broken: bool = False, unknown: bool = True) -> Path:
    """Write the synthetic conversation into `folder` (created) and return it."""
    events_dir = folder / "events"
    events_dir.mkdir(parents=True)
    state = json.loads((fx.sdk_conversation("b_terminal") / "base_state.json").read_text())
    state["id"] = str(uuid.UUID(hex=folder.name)) if len(folder.name) == 32 else state["id"]
    state.pop("leaf_event_id", None)
    (folder / "base_state.json").write_text(json.dumps(state))
    texts = [dump_event(e) for e in build_events()]
    ids = [json.loads(t)["id"] for t in texts]
    if unknown:
        texts.append(json.dumps(UNKNOWN_EVENT))
        ids.append(UNKNOWN_EVENT["id"])
    if broken:
        texts.insert(3, '{"id": "broken", "kind": "ActionEvent", ')
        ids.insert(3, "abcdef01-2345-4678-9abc-def012345678")
    for index, (event_id, text) in enumerate(zip(ids, texts, strict=True)):
        (events_dir / event_file_name(index, event_id)).write_text(text)
    return folder


@pytest.fixture
def conversation(tmp_path: Path) -> Path:
    """The synthetic conversation (no broken file)."""
    return make_conversation(tmp_path / "5d3c1b2a4f6e48d79a0b1c2d3e4f5a6b")


@pytest.fixture
def broken_conversation(tmp_path: Path) -> Path:
    """The synthetic conversation with an unreadable event file at index 3."""
    return make_conversation(tmp_path / "6d3c1b2a4f6e48d79a0b1c2d3e4f5a6b", broken=True)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """One headless Chromium per test module (skips when none is installed)."""
    binary = find_chromium()
    if binary is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium; .ci/run does it)")
    b = Browser(binary, tmp_path_factory.mktemp("chromium-profile"))
    yield b
    b.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh tab."""
    p = browser.new_page()
    yield p
    p.close()


UNIQUE_WORD = "zanzibarquokka"
"""Occurs in one conversation of `make_corpus` only."""
MARKDOWN_TEXT = (
    "Done. **Fixed** the bug:\n\n- first item\n- `code` item\n\n"
    "<script>alert(1)</script> <img src=x onerror=alert(2)> [link](javascript:alert(3))"
)


def write_conversation(
    folder: Path, events: list, *, model: str | None = None, status: str | None = None
) -> Path:
    """A V1 conversation of `events` (base_state from b_terminal, model/status replaced)."""
    events_dir = folder / "events"
    events_dir.mkdir(parents=True)
    state = json.loads((fx.sdk_conversation("b_terminal") / "base_state.json").read_text())
    state["id"] = str(uuid.UUID(hex=folder.name))
    state.pop("leaf_event_id", None)
    if model:
        state["agent"]["llm"]["model"] = model
    if status:
        state["execution_status"] = status
    (folder / "base_state.json").write_text(json.dumps(state))
    for index, event in enumerate(events):
        (events_dir / event_file_name(index, event.id)).write_text(dump_event(event))
    return folder


def failing_command_events(word: str = "") -> list:
    """User asks, the agent runs a command that exits 2, then answers in Markdown."""
    action = ActionEvent(
        thought=[TextContent(text="Run the tests.")],
        action=TerminalAction(command="pytest -q"),
        tool_name="terminal",
        tool_call_id="call_f",
        tool_call=_call("terminal", "call_f", {"command": "pytest -q"}),
        llm_response_id="resp-f1",
    )
    obs = ObservationEvent(
        tool_name="terminal",
        tool_call_id="call_f",
        action_id=action.id,
        observation=TerminalObservation(
            content=[TextContent(text="1 failed")], command="pytest -q", exit_code=2
        ),
    )
    return [
        SystemPromptEvent(system_prompt=TextContent(text="You are a test agent."), tools=[]),
        MessageEvent(
            source="user",
            llm_message=Message(
                role="user", content=[TextContent(text=f"Run the tests please {word}".strip())]
            ),
        ),
        action,
        obs,
        MessageEvent(
            source="agent",
            llm_message=Message(role="assistant", content=[TextContent(text=MARKDOWN_TEXT)]),
            llm_response_id="resp-f2",
        ),
    ]


def make_corpus(root: Path) -> dict[str, Path]:
    """Three conversations: `errors` (make_conversation), `unique` (claude, status error, a
    failing command, the unique word) and `plain` (the failing command, gpt-4o-mini, running)."""
    root.mkdir(parents=True, exist_ok=True)
    return {
        "errors": make_conversation(root / "1a2b3c4d5e6f47a8b9c0d1e2f3a4b5c6"),
        "unique": write_conversation(
            root / "2a2b3c4d5e6f47a8b9c0d1e2f3a4b5c6",
            failing_command_events(UNIQUE_WORD),
            model="anthropic/claude-sonnet-4",
            status="error",
        ),
        "plain": write_conversation(
            root / "3a2b3c4d5e6f47a8b9c0d1e2f3a4b5c6",
            failing_command_events()[:2],
            model="openai/gpt-4o-mini",
            status="running",
        ),
    }
