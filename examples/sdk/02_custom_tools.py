"""Custom tools: an Action, an Observation that decides what the model reads, an executor, a
ToolDefinition, and a tool set registered under one name next to the built-in terminal."""

import os
import re
from collections.abc import Sequence
from pathlib import Path

from _common import make_llm
from pydantic import Field

from trajkit.sdk import (
    Action,
    Agent,
    Conversation,
    Event,
    ImageContent,
    LLMConvertibleEvent,
    Observation,
    TextContent,
    ToolDefinition,
)
from trajkit.sdk.tool import Tool, ToolExecutor, register_tool
from trajkit.tools.file_editor import FileEditorTool
from trajkit.tools.terminal import TerminalTool


class FindTextAction(Action):
    pattern: str = Field(description="Regular expression to look for, line by line")
    path: str = Field(default=".", description="Folder to search, absolute or relative")
    include: str | None = Field(default=None, description="Only files matching this glob")


class FindTextObservation(Observation):
    hits: list[str] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)

    @property
    def to_llm_content(self) -> Sequence[TextContent | ImageContent]:
        if not self.hits:
            return [TextContent(text="Nothing matched.")]
        listing = "\n".join(self.hits[:20])
        return [
            TextContent(
                text=f"{len(self.hits)} matching line(s) in {len(self.files)} file(s):\n{listing}"
            )
        ]


class FindTextExecutor(ToolExecutor[FindTextAction, FindTextObservation]):
    def __init__(self, root: str) -> None:
        self.root = Path(root)

    def __call__(self, action: FindTextAction, conversation=None) -> FindTextObservation:  # noqa: ARG002
        base = (self.root / action.path).resolve()
        rx = re.compile(action.pattern)
        hits: list[str] = []
        files: set[str] = set()
        for file in sorted(base.rglob(action.include or "*")):
            if not file.is_file():
                continue
            lines = file.read_text(errors="replace").splitlines()
            for number, line in enumerate(lines, start=1):
                if rx.search(line):
                    name = str(file.relative_to(base))
                    hits.append(f"{name}:{number}: {line.strip()}")
                    files.add(name)
        return FindTextObservation(hits=hits, files=sorted(files))


class FindTextTool(ToolDefinition[FindTextAction, FindTextObservation]):
    """Searches file contents with a regular expression."""

    @classmethod
    def create(cls, conv_state, **params) -> Sequence[ToolDefinition]:  # noqa: ARG003
        return [
            cls(
                description="Search the contents of files with a regular expression; "
                "returns the matching lines with file and line number.",
                action_type=FindTextAction,
                observation_type=FindTextObservation,
                executor=FindTextExecutor(conv_state.workspace.working_dir),
            )
        ]


def terminal_and_search(conv_state, **params) -> list:
    """A tool set: the built-in terminal and the search tool, registered as one name."""
    return [*TerminalTool.create(conv_state, **params), *FindTextTool.create(conv_state)]


register_tool("TerminalAndSearch", terminal_and_search)

# a small project to search
Path("project").mkdir(exist_ok=True)
Path("project/shapes.py").write_text("class Circle:\n    pass\n\n\nclass Square:\n    pass\n")
Path("project/notes.txt").write_text("class notes are not code\n")

seen: list[str] = []


def remember(event: Event) -> None:
    if isinstance(event, LLMConvertibleEvent):
        seen.append(str(event.to_llm_message())[:120])


agent = Agent(
    llm=make_llm(),
    tools=[Tool(name=FileEditorTool.name), Tool(name="TerminalAndSearch")],
)
conversation = Conversation(
    agent=agent, callbacks=[remember], workspace=os.getcwd(), visualizer=None
)
print(f"Tools offered: {sorted(conversation.tools)}")
conversation.send_message(
    "Use find_text to list the classes defined in the Python files of ./project, "
    "then write their names into CLASSES.txt."
)
conversation.run()
result = next(e for e in conversation.state.events if type(e).__name__ == "ObservationEvent")
print(f"The model read: {result.to_llm_message().content[0].text.splitlines()[0]}")
print(f"CLASSES.txt: {Path('CLASSES.txt').read_text().split()}")
conversation.send_message("Thanks. Now delete CLASSES.txt.")
conversation.run()
print(f"CLASSES.txt still there: {Path('CLASSES.txt').exists()}")
print(f"LLM-convertible events seen: {len(seen)}")
print(f"EXAMPLE_COST: {conversation.conversation_stats.get_combined_metrics().accumulated_cost}")
