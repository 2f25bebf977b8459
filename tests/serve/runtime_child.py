"""trajkit's runtime as a separate process, for the live-follow test: a scripted LLM on
127.0.0.1 (tests/support) asks for STEPS terminal commands that each take about a second
(real bash), then finishes. Prints `folder <path>` once the conversation exists, `done` at
the end.

usage: runtime_child.py PERSISTENCE_DIR STEPS
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from pydantic import SecretStr

from tests.support.llm_server import ScriptedLLMServer
from trajkit.sdk import LLM, Agent, Conversation, Tool


def main() -> None:
    out, steps = Path(sys.argv[1]), int(sys.argv[2])
    workspace = Path(tempfile.mkdtemp(prefix="trajkit-live-ws-"))
    with ScriptedLLMServer() as server:
        for n in range(steps):
            server.enqueue_tool_call("terminal", {"command": f"sleep 1; echo RUNTIMESTEP-{n}"})
        server.enqueue_tool_call("finish", {"message": "All steps done."})
        llm = LLM(
            model="openai/gpt-4o",
            base_url=server.base_url,
            api_key=SecretStr("x"),
            usage_id="agent",
        )
        conv = Conversation(
            agent=Agent(llm=llm, tools=[Tool(name="terminal")]),
            workspace=workspace,
            persistence_dir=out,
            visualizer=None,  # the test reads this process's stdout
        )
        conv.send_message("Run the steps one by one.")
        print(f"folder {conv.state.persistence_dir}", flush=True)
        conv.run()
        conv.close()
    print("done", flush=True)


if __name__ == "__main__":
    main()
