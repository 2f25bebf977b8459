"""A custom tool written the SDK's way (its example's pattern, imports renamed) runs, persists
with its own kinds, restores, and converts to the tool results openhands-sdk 1.58.2 sent."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from pydantic import Field

from tests.sdk.helpers import make_llm
from tests.support.llm_server import ScriptedLLMServer
from trajkit.convert import convert_conversation
from trajkit.events import ActionEvent, ObservationEvent, UnknownAction, UnknownObservation
from trajkit.sdk import (
    Action,
    Agent,
    Conversation,
    ImageContent,
    Observation,
    TextContent,
    ToolDefinition,
)
from trajkit.sdk.tool import Tool, ToolContext, ToolExecutor, register_tool, resolve_tool
from trajkit.store import open_conversation
from trajkit.validate import validate_conversation

SDK = Path(__file__).resolve().parents[2] / "fixtures/sdk_tool_schemas/custom_tool"


class CountWordAction(Action):
    word: str = Field(description="word to count")
    path: str = Field(description="file to read")
    ignore_case: bool = Field(default=False, description="match case-insensitively")


class CountWordObservation(Observation):
    word: str = ""
    count: int = 0

    @property
    def to_llm_content(self) -> Sequence[TextContent | ImageContent]:
        if self.is_error:
            return [TextContent(text=self.ERROR_MESSAGE_HEADER), *self.content]
        return [TextContent(text=f"'{self.word}' occurs {self.count} time(s).")]


class CountWordExecutor(ToolExecutor[CountWordAction, CountWordObservation]):
    def __init__(self) -> None:
        self.seen: list[object] = []

    def __call__(self, action, conversation=None):
        self.seen.append(conversation)
        try:
            text = Path(action.path).read_text()
        except OSError as e:
            return CountWordObservation.from_text(
                text=f"cannot read {action.path}: {e.strerror}", is_error=True, word=action.word
            )
        words = text.lower().split() if action.ignore_case else text.split()
        target = action.word.lower() if action.ignore_case else action.word
        return CountWordObservation(word=action.word, count=words.count(target))


class CountWordTool(ToolDefinition[CountWordAction, CountWordObservation]):
    @classmethod
    def create(cls, conv_state, **params) -> Sequence[ToolDefinition]:
        assert Path(conv_state.workspace.working_dir).is_dir()
        return [
            cls(
                description="Counts a word in a file.",
                action_type=CountWordAction,
                observation_type=CountWordObservation,
                executor=CountWordExecutor(),
            )
        ]


register_tool("CountWordTool", CountWordTool)


def _script(server: ScriptedLLMServer, ws: Path) -> None:
    server.enqueue_tool_call(
        "count_word", {"word": "apple", "path": f"{ws}/notes.txt", "ignore_case": True}
    )
    server.enqueue_tool_call("count_word", {"word": "x", "path": f"{ws}/missing.txt"})
    server.enqueue_text("done")


def _tool_messages(body: dict, ws: str) -> list:
    return [
        json.loads(json.dumps(m).replace(ws, "<ws>"))
        for m in body["messages"]
        if m["role"] == "tool"
    ]


def test_custom_tool_runs_persists_restores_and_converts(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("apple pear Apple apple\n")
    agent = Agent(llm=make_llm(llm_server), tools=[Tool(name="CountWordTool")])
    _script(llm_server, ws)
    conv = Conversation(agent=agent, workspace=ws, persistence_dir=tmp_path / "c")
    conv.send_message("count apples")
    conv.run()
    assert conv.state.execution_status == "finished"
    assert conv.tools["count_word"].executor.seen == [conv, conv]  # executor got the conversation

    # the request's tool results are the ones the SDK sent for the same tool and calls
    sdk_bodies = json.loads((SDK / "requests.json").read_text())
    sdk_ws = json.loads(sdk_bodies[1]["messages"][2]["tool_calls"][0]["function"]["arguments"])
    sdk_ws = str(Path(sdk_ws["path"]).parent)
    ours = llm_server.bodies("chat")
    assert _tool_messages(ours[-1], str(ws)) == _tool_messages(sdk_bodies[-1], sdk_ws)
    # the tool is offered with the SDK's schema for it
    assert ours[0]["tools"][0] == sdk_bodies[0]["tools"][0]

    # persisted with the custom kinds; the toolkit reads them without the classes
    folder = Path(conv.state.persistence_dir)
    events = list(open_conversation(folder).iter_events())
    actions = [e for e in events if isinstance(e, ActionEvent)]
    observations = [e for e in events if isinstance(e, ObservationEvent)]
    assert (
        isinstance(actions[0].action, UnknownAction) and actions[0].action.kind == "CountWordAction"
    )
    first = observations[0].observation
    assert isinstance(first, UnknownObservation) and first.kind == "CountWordObservation"
    assert first.extra_fields() == {"word": "apple", "count": 3}
    raw = json.loads(next((folder / "events").glob(f"*-{actions[0].id}.json")).read_text())
    assert raw["action"] == {
        "word": "apple", "path": f"{ws}/notes.txt", "ignore_case": True, "kind": "CountWordAction",
    }  # fmt: skip
    assert observations[1].observation.is_error
    problems = validate_conversation(folder).problems
    assert not [p for p in problems if str(p.severity).endswith("error")]

    # trajkit convert gives exactly the messages that were sent
    converted = convert_conversation(folder, to="chat")
    n = len(ours[-1]["messages"])
    assert converted["messages"][:n] == ours[-1]["messages"]

    # restore: a new Conversation continues with the custom tool
    cid = conv.id
    conv.close()
    llm_server.enqueue_tool_call("count_word", {"word": "pear", "path": f"{ws}/notes.txt"})
    llm_server.enqueue_text("again")
    again = Conversation(
        agent=agent, workspace=ws, persistence_dir=tmp_path / "c", conversation_id=cid
    )
    again.send_message("and pears?")
    again.run()
    last = [e for e in open_conversation(folder).iter_events() if isinstance(e, ObservationEvent)]
    assert last[-1].observation.text == "'pear' occurs 1 time(s)."
    assert llm_server.bodies("chat")[-1]["messages"][:n] == ours[-1]["messages"]


def test_sdk_custom_tool_folder_converts_where_the_sdk_stored_the_text() -> None:
    # The SDK stores a computed to_llm_content nowhere (content is []), so only results built
    # from content (here the error) can be rebuilt without the tool's class.
    bodies = json.loads((SDK / "requests.json").read_text())
    folder = next(p for p in SDK.iterdir() if p.is_dir())
    converted = convert_conversation(folder, to="chat")
    sent = [m for m in bodies[-1]["messages"] if m["role"] == "tool"]
    rebuilt = [m for m in converted["messages"] if m["role"] == "tool"]
    assert rebuilt[1] == sent[1]
    assert rebuilt[0]["content"] in ([], "", [{"type": "text", "text": ""}])
    assert sent[0]["content"] == [{"type": "text", "text": "'apple' occurs 3 time(s)."}]


def test_one_registry_for_classes_instances_and_factories(tmp_path: Path) -> None:
    ctx = ToolContext(str(tmp_path))
    (tool,) = resolve_tool("CountWordTool", ctx)
    assert tool.name == "count_word" and tool.definition().kind == "CountWordTool"
    register_tool("CountWordInstance", tool)
    assert resolve_tool("CountWordInstance", ctx) == [tool]
    register_tool(
        "TerminalAndCount", lambda conv_state: [*resolve_tool("terminal", conv_state), tool]
    )
    assert [t.name for t in resolve_tool("TerminalAndCount", ctx)] == ["terminal", "count_word"]
    with pytest.raises(TypeError, match="register_tool accepts"):
        register_tool("Bad", 42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-empty"):
        register_tool("", CountWordTool)


class ShellCountAction(Action):
    pattern: str = Field(description="text to count in the workspace's files")


class ShellCountObservation(Observation):
    count: int = 0


class ShellCountExecutor(ToolExecutor[ShellCountAction, ShellCountObservation]):
    def __init__(self, terminal) -> None:
        self.terminal = terminal

    def __call__(self, action, conversation=None):
        from trajkit.tools.terminal import TerminalAction

        result = self.terminal(TerminalAction(command=f"grep -rc {action.pattern} . | wc -l"))
        return ShellCountObservation(count=int(result.text.strip()))


class ShellCountTool(ToolDefinition[ShellCountAction, ShellCountObservation]):
    pass


class ShellAndCountToolSet(ToolDefinition[Action, Observation]):
    """The SDK example's toolset: the terminal and a custom tool sharing one executor."""

    @classmethod
    def create(cls, conv_state, **params) -> Sequence[ToolDefinition]:
        from trajkit.tools.terminal import TerminalExecutor, TerminalTool

        shared = TerminalExecutor(working_dir=conv_state.workspace.working_dir)
        terminal = TerminalTool.create(conv_state, executor=shared, **params)[0]
        count = ShellCountTool(
            description="Counts files.",
            action_type=ShellCountAction,
            observation_type=ShellCountObservation,
            executor=ShellCountExecutor(shared),
        )
        return [terminal, count]


def test_a_custom_tool_shares_the_terminal_executor(llm_server, tmp_path):
    register_tool(ShellAndCountToolSet.name, ShellAndCountToolSet)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("needle\n")
    llm_server.enqueue_tool_call("terminal", {"command": "cd sub 2>/dev/null || mkdir sub"})
    llm_server.enqueue_tool_call("terminal", {"command": "cd sub && echo needle > b.txt"})
    llm_server.enqueue_tool_call("shell_count", {"pattern": "needle"})
    llm_server.enqueue_text("done")
    agent = Agent(llm=make_llm(llm_server), tools=[Tool(name=ShellAndCountToolSet.name)])
    conv = Conversation(agent=agent, workspace=ws)
    conv.send_message("count")
    conv.run()
    assert set(conv.tools) >= {"terminal", "shell_count"}
    assert conv.tools["terminal"].executor is conv.tools["shell_count"].executor.terminal
    count = [e for e in conv.state.events if isinstance(e, ObservationEvent)][-1]
    # one shell: the custom tool's grep ran in sub/, where the terminal's `cd` left it
    assert count.observation.extra_fields()["count"] == 1
    conv.close()
