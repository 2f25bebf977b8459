"""Run the runtime end to end without a network or an API key.

Starts the scripted OpenAI-compatible server from tests/support on 127.0.0.1, runs a
conversation with the terminal and file editor (real bash, real files, litellm over real HTTP),
persists it, restores it from disk in a new Conversation and continues it, then validates the
folder and checks that converting it gives exactly the messages the server received.

Usage:
    python examples/scripted_demo.py [OUT_DIR]      (default: out/demo-runtime)

Prints a short account (one line per step of the agent: what it was asked, which tool it
called with what, what came back), the checks and the conversation folder; exits 1 if a check
fails. The account is a visualizer of our own (the SDK's pattern: subclass
`ConversationVisualizerBase`, implement `on_event`) instead of the default one, which prints a
panel per event, the whole system prompt included.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pydantic import SecretStr  # noqa: E402

from tests.support.llm_server import ScriptedLLMServer  # noqa: E402
from trajkit.convert import convert_conversation  # noqa: E402
from trajkit.events import (  # noqa: E402
    ActionEvent,
    Event,
    MessageEvent,
    ObservationEvent,
    SystemPromptEvent,
    TextContent,
)
from trajkit.sdk import LLM, Agent, Conversation, Tool  # noqa: E402
from trajkit.sdk.conversation import ConversationVisualizerBase  # noqa: E402
from trajkit.validate import validate_conversation  # noqa: E402

WIDTH = 100
"""Characters per account line; longer texts are cut with `...`."""


def _short(text: str) -> str:
    """The first line, cut to `WIDTH`, saying how many lines follow."""
    first, *rest = text.strip().splitlines() or [""]
    more = f" (+{len(rest)} lines)" if rest else ""
    room = WIDTH - len(more)
    return (first if len(first) <= room else first[: room - 3] + "...") + more


def _texts(content: Sequence[object]) -> str:
    return "\n".join(c.text for c in content if isinstance(c, TextContent))


class StepAccount(ConversationVisualizerBase):
    """One line per event: who did what (the system prompt is summed up, not printed)."""

    def __init__(self, workspace: Path) -> None:
        super().__init__()
        self.workspace = f"{workspace}/"

    def on_event(self, event: Event) -> None:
        if isinstance(event, SystemPromptEvent):
            tools = ", ".join(t.title for t in event.tools)
            line = f"system prompt ({len(event.system_prompt.text):,} characters); tools: {tools}"
        elif isinstance(event, MessageEvent):
            line = f"{event.source} says: {_texts(event.llm_message.content)}"
        elif isinstance(event, ActionEvent):
            args = json.loads(event.tool_call.arguments or "{}")
            shown = ", ".join(f"{k}={v!r}" for k, v in args.items())  # one line: repr
            line = f"agent calls {event.tool_name}({shown})"
        elif isinstance(event, ObservationEvent):
            line = f"{event.tool_name} returns: {_texts(event.to_llm_message().content)}"
        else:
            line = event.kind
        print(f"   {_short(line.replace(self.workspace, 'ws/'))}")


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "out/demo-runtime").resolve()
    out.mkdir(parents=True, exist_ok=True)
    workspace = Path(tempfile.mkdtemp(prefix="trajkit-demo-ws-"))
    with ScriptedLLMServer() as server:
        notes = str(workspace / "notes.txt")
        server.enqueue_tool_call("file_editor", {"command": "create", "path": notes,
                                                 "file_text": "alpha\nbeta\n"})  # fmt: skip
        server.enqueue_tool_call("terminal", {"command": "wc -l notes.txt"})
        server.enqueue_tool_call("finish", {"message": "Created notes.txt with two lines."})
        server.enqueue_tool_call("file_editor", {"command": "str_replace", "path": notes,
                                                 "old_str": "beta", "new_str": "BETA"})  # fmt: skip
        server.enqueue_text("Changed beta to BETA.")

        def agent() -> Agent:
            llm = LLM(model="openai/gpt-4o", base_url=server.base_url, api_key=SecretStr("demo"),
                      usage_id="agent")  # fmt: skip
            return Agent(llm=llm, tools=[Tool(name="terminal"), Tool(name="file_editor")])

        print(f"scripted LLM at {server.base_url}; workspace {workspace} (ws/ below)")
        print("run 1: a new conversation")
        conv = Conversation(agent=agent(), workspace=workspace, persistence_dir=out,
                            visualizer=StepAccount(workspace))  # fmt: skip
        conv.send_message("Create notes.txt with two lines and count them.")
        conv.run()
        cid, folder = conv.id, Path(conv.state.persistence_dir or "")
        print(f"   -> {conv.state.execution_status.value}, {len(conv.state.events)} events saved")
        conv.close()
        del conv

        restored = Conversation(agent=agent(), workspace=workspace, persistence_dir=out,
                                conversation_id=cid, visualizer=StepAccount(workspace))  # fmt: skip
        print(f"run 2: the same conversation restored from disk ({len(restored.state.events)} "
              "events), continued")  # fmt: skip
        restored.send_message("Now change beta to BETA.")
        restored.run()
        print(f"   -> {restored.state.execution_status.value}, {len(restored.state.events)} events saved")
        restored.close()
        sent = server.bodies("chat")

    print("checks:")
    report = validate_conversation(folder)
    errors = [p for p in report.problems if str(p.severity).endswith("error")]
    print(f"   validate: {len(errors)} errors, {len(report.problems) - len(errors)} other notes")
    converted = convert_conversation(folder, to="chat")
    same = all(converted["messages"][: len(b["messages"])] == b["messages"] for b in sent)
    same = same and all(converted["tools"] == b["tools"] for b in sent)
    print(f"   convert: {len(converted['messages'])} messages; equal to the {len(sent)} requests "
          f"the server received: {same}")  # fmt: skip
    print(f"   ws/notes.txt holds: {(workspace / 'notes.txt').read_text()!r}")
    print(f"conversation folder: {folder}")
    return 0 if same and not errors else 1


if __name__ == "__main__":
    raise SystemExit(main())
