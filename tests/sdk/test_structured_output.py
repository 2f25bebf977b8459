"""Structured output (``Tool(params={"response_schema": ...})``, SDK example 56): the schema's
fields are offered with the tool's own, kept apart from the action, read back with
``parse_response``/``parse_last_response``; the spec persists the schema as JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field

from tests.sdk.helpers import make_llm
from tests.support.llm_server import ScriptedLLMServer
from trajkit.events import ActionEvent, AgentErrorEvent, ObservationEvent
from trajkit.sdk import Agent, Conversation, Tool
from trajkit.sdk.conversation.visualizer import describe


class Rationale(BaseModel):
    purpose: str = Field(description="Why.")
    expected_outcome: str


def test_response_fields_are_offered_validated_and_read_back(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    finish_schema = {"type": "object", "properties": {"facts": {"type": "array"}},
                     "required": ["facts"]}  # fmt: skip
    agent = Agent(
        llm=make_llm(llm_server),
        tools=[Tool(name="terminal", params={"response_schema": Rationale}),
               Tool(name="FinishTool", params={"response_schema": finish_schema})],
        include_default_tools=["ThinkTool"],
    )  # fmt: skip
    llm_server.enqueue_tool_call("terminal", {"command": "echo hi"})  # no rationale: refused
    llm_server.enqueue_tool_call(
        "terminal", {"command": "echo hi", "purpose": "greet", "expected_outcome": "hi"}
    )
    llm_server.enqueue_tool_call("finish", {"message": "m", "facts": ["a", "b"]})
    conv = Conversation(
        agent=agent, workspace=tmp_path / "ws", persistence_dir=tmp_path / "c", visualizer=None
    )
    conv.send_message("go")
    conv.run()
    offered = {t["function"]["name"]: t["function"]["parameters"] for t in
               llm_server.bodies("chat")[0]["tools"]}  # fmt: skip
    assert {"purpose", "expected_outcome", "command"} <= set(offered["terminal"]["properties"])
    assert {"command", "purpose", "expected_outcome"} <= set(offered["terminal"]["required"])
    assert offered["finish"]["required"] == ["message", "facts"]
    events = conv.state.events
    errors = [e for e in events if isinstance(e, AgentErrorEvent)]
    assert len(errors) == 1 and "purpose" in errors[0].error
    calls = [e for e in events if isinstance(e, ActionEvent) and e.tool_name == "terminal"]
    assert "purpose" not in calls[-1].action.model_dump()  # the action holds its own fields
    terminal = agent.tools_map["terminal"]
    assert terminal.parse_response(calls[-1].action) == Rationale(
        purpose="greet", expected_outcome="hi"
    )
    assert agent.tools_map["finish"].parse_last_response(events) == {"facts": ["a", "b"]}
    saved = json.loads(next((tmp_path / "c").glob("*/base_state.json")).read_text())
    assert saved["agent"]["tools"][0]["params"]["response_schema"]["required"] == [
        "purpose",
        "expected_outcome",
    ]
    # as in the SDK, finish's result draws no panel
    finished = [e for e in events if isinstance(e, ObservationEvent) and e.tool_name == "finish"]
    assert describe(finished[0]) is None
    conv.close()


def test_response_fields_survive_a_restore(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    """A restored conversation answers ``parse_response(event.action)`` for the calls it
    recorded, as the live one did (the fields are read back from each call's arguments).
    """

    def agent() -> Agent:
        return Agent(llm=make_llm(llm_server),
                     tools=[Tool(name="terminal", params={"response_schema": Rationale})])  # fmt: skip

    llm_server.enqueue_tool_call("terminal", {"command": "echo hi"})  # refused: no rationale
    llm_server.enqueue_tool_call(
        "terminal", {"command": "echo hi", "purpose": "greet", "expected_outcome": "hi"}
    )
    llm_server.enqueue_text("done")
    kept = dict(workspace=tmp_path / "ws", persistence_dir=tmp_path / "c", visualizer=None)
    conv = Conversation(agent=agent(), **kept)  # type: ignore[arg-type]
    conv.send_message("go")
    conv.run()
    conv.close()
    restored = Conversation(agent=agent(), conversation_id=conv.id, **kept)  # type: ignore[arg-type]
    calls = [e for e in restored.state.events if isinstance(e, ActionEvent)]
    assert [c.action is None for c in calls] == [True, False]  # the first was refused
    terminal = restored.agent.tools_map["terminal"]
    assert terminal.parse_response(calls[-1].action) == Rationale(
        purpose="greet", expected_outcome="hi"
    )
    assert terminal.parse_last_response(restored.state.events) == terminal.parse_response(
        calls[-1].action
    )
    restored.close()
