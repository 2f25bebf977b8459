"""Run the runtime end to end without a network or an API key.

Starts the scripted OpenAI-compatible server from tests/support on 127.0.0.1, runs a
conversation with the terminal and file editor (real bash, real files, litellm over real HTTP),
persists it, restores it from disk in a new Conversation and continues it, then validates the
folder and checks that converting it gives exactly the messages the server received.

Usage:
    python examples/scripted_demo.py [OUT_DIR]      (default: out/demo-runtime)

Prints what happened and the conversation folder; exits 1 if a check fails.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pydantic import SecretStr  # noqa: E402

from tests.support.llm_server import ScriptedLLMServer  # noqa: E402
from trajkit.convert import convert_conversation  # noqa: E402
from trajkit.sdk import LLM, Agent, Conversation, Tool  # noqa: E402
from trajkit.validate import validate_conversation  # noqa: E402


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

        conv = Conversation(agent=agent(), workspace=workspace, persistence_dir=out)
        conv.send_message("Create notes.txt with two lines and count them.")
        conv.run()
        cid, folder = conv.id, Path(conv.state.persistence_dir or "")
        print(f"run 1: {conv.state.execution_status}, {len(conv.state.events)} events in {folder}")
        conv.close()
        del conv

        restored = Conversation(agent=agent(), workspace=workspace, persistence_dir=out,
                                conversation_id=cid)  # fmt: skip
        print(f"restored: {len(restored.state.events)} events from disk")
        restored.send_message("Now change beta to BETA.")
        restored.run()
        print(f"run 2: {restored.state.execution_status}, {len(restored.state.events)} events")
        restored.close()
        sent = server.bodies("chat")

    report = validate_conversation(folder)
    errors = [p for p in report.problems if str(p.severity).endswith("error")]
    print(f"validate: {len(errors)} errors, {len(report.problems) - len(errors)} other notes")
    converted = convert_conversation(folder, to="chat")
    same = all(converted["messages"][: len(b["messages"])] == b["messages"] for b in sent)
    same = same and all(converted["tools"] == b["tools"] for b in sent)
    print(f"convert: {len(converted['messages'])} messages; equal to the {len(sent)} requests "
          f"the server received: {same}")  # fmt: skip
    print(f"workspace file: {(workspace / 'notes.txt').read_text()!r}")
    print(f"conversation folder: {folder}")
    return 0 if same and not errors else 1


if __name__ == "__main__":
    raise SystemExit(main())
