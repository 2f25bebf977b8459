"""Parallel tool calls: with tool_concurrency_limit, the calls of one model response run at
once (terminal calls take turns in their one shell, file edits go per path); the results are
persisted in call order. The persisted files then show which calls came as one batch."""

import json
import os
from collections import defaultdict
from pathlib import Path

from _common import make_llm

from trajkit.sdk import Agent, Conversation, Tool
from trajkit.tools.file_editor import FileEditorTool
from trajkit.tools.terminal import TerminalTool

agent = Agent(
    llm=make_llm(),
    tools=[Tool(name=TerminalTool.name), Tool(name=FileEditorTool.name)],
    tool_concurrency_limit=4,
)
conversation = Conversation(
    agent=agent,
    workspace=os.getcwd(),
    persistence_dir="./.conversations",
    max_iteration_per_run=10,
    visualizer=None,
)
conversation.send_message(
    "Create a.txt, b.txt and c.txt (one line each) in a single response with parallel "
    "tool calls, then count their lines with the terminal."
)
conversation.run()

# Which tool calls came in one response: group the persisted ActionEvents by llm_response_id.
batches: dict[str, list[str]] = defaultdict(list)
results: list[str] = []
events_dir = Path(conversation.state.persistence_dir) / "events"
for path in sorted(events_dir.glob("event-*.json")):
    data = json.loads(path.read_text())
    if data["kind"] == "ActionEvent":
        batches[data["llm_response_id"]].append(data["tool_call_id"])
    elif data["kind"] == "ObservationEvent":
        results.append(data["tool_call_id"])
parallel = [calls for calls in batches.values() if len(calls) > 1]
print(f"Parallel batches: {len(parallel)}, calls in the first: {len(parallel[0])}")
print(f"Results in call order: {results[: len(parallel[0])] == parallel[0]}")
print(f"Files: {sorted(p.name for p in Path().glob('?.txt'))}")
print(f"Status: {conversation.state.execution_status.value}")
