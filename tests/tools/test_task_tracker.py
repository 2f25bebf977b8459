"""TaskTrackerTool: view/plan, TASKS.json as the SDK writes it, restore, the default preset."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import SecretStr

from tests.sdk.helpers import make_llm
from tests.support.llm_server import ScriptedLLMServer
from trajkit.convert import convert_conversation
from trajkit.events import ObservationEvent, TaskTrackerAction
from trajkit.sdk import LLM, Conversation
from trajkit.sdk.tool import ToolContext, resolve_tool
from trajkit.store import open_conversation
from trajkit.tools.preset.default import get_default_agent
from trajkit.tools.task_tracker import TaskTrackerTool

PLAN = [
    {"title": "Explore the parser", "notes": "start at parse.py", "status": "in_progress"},
    {"title": "Fix the bug", "status": "pending"},
    {"title": "Run tests", "status": "Completed"},
]


def test_plan_and_view_and_tasks_json(tmp_path: Path) -> None:
    (tool,) = resolve_tool("task_tracker", ToolContext(str(tmp_path), str(tmp_path / "conv")))
    assert isinstance(tool, TaskTrackerTool) and tool.definition().kind == "TaskTrackerTool"
    empty = tool(TaskTrackerAction(command="view"))
    assert empty.text == 'No task list found. Use the "plan" command to create one.'
    action = tool.action_from_arguments({"command": "plan", "task_list": PLAN, "summary": "s"})
    planned = tool(action)
    assert planned.text == "Task list has been updated with 3 item(s)."
    assert [t.status for t in planned.task_list] == ["in_progress", "todo", "done"]
    view = tool(TaskTrackerAction(command="view"))
    assert view.text == (
        "# Task List\n\n1. \U0001f504 Explore the parser\n   start at parse.py\n\n"
        "2. \u23f3 Fix the bug\n\n3. \u2705 Run tests"
    )
    stored = (tmp_path / "conv" / "TASKS.json").read_text()
    assert stored == json.dumps(
        [
            {"title": "Explore the parser", "notes": "start at parse.py", "status": "in_progress"},
            {"title": "Fix the bug", "notes": "", "status": "todo"},
            {"title": "Run tests", "notes": "", "status": "done"},
        ],
        indent=2,
    )
    # a new tool for the same conversation reads the list back; a damaged file starts empty
    (again,) = resolve_tool("TaskTrackerTool", ToolContext(str(tmp_path), str(tmp_path / "conv")))
    assert again(TaskTrackerAction(command="view")).text == view.text
    (tmp_path / "conv" / "TASKS.json").write_text("{not json")
    (broken,) = resolve_tool("task_tracker", ToolContext(str(tmp_path), str(tmp_path / "conv")))
    assert broken.tasks == []


def test_task_list_survives_restore_and_converts(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    agent = get_default_agent(make_llm(llm_server), cli_mode=True)
    llm_server.enqueue_tool_call("task_tracker", {"command": "plan", "task_list": PLAN[:2]})
    llm_server.enqueue_text("planned")
    first = Conversation(agent=agent, workspace=ws, persistence_dir=tmp_path / "c")
    first.send_message("plan the work")
    first.run()
    cid = first.id
    first.close()

    llm_server.enqueue_tool_call("task_tracker", {"command": "view"})
    llm_server.enqueue_text("viewed")
    again = Conversation(
        agent=agent, workspace=ws, persistence_dir=tmp_path / "c", conversation_id=cid
    )
    again.send_message("what is left?")
    again.run()
    folder = Path(again.state.persistence_dir)
    observations = [
        e for e in open_conversation(folder).iter_events() if isinstance(e, ObservationEvent)
    ]
    assert observations[-1].observation.text.startswith("# Task List\n\n1. \U0001f504 Explore")
    assert [t.title for t in observations[-1].observation.task_list] == [
        "Explore the parser", "Fix the bug",
    ]  # fmt: skip
    body = llm_server.bodies("chat")[-1]
    converted = convert_conversation(folder, to="chat")
    n = len(body["messages"])
    assert converted["messages"][:n] == body["messages"] and converted["tools"] == body["tools"]


def test_default_agent_is_the_sdk_preset() -> None:
    llm = LLM(model="openai/gpt-4o", api_key=SecretStr("sk-preset-test-000"), usage_id="agent")
    agent = get_default_agent(llm, cli_mode=True)
    assert [t.name for t in agent.tools] == ["terminal", "file_editor", "task_tracker"]
    assert agent.include_default_tools == ["FinishTool", "ThinkTool"]
    assert agent.system_prompt_kwargs == {"cli_mode": True, "llm_security_analyzer": True}
    dumped = json.loads(agent.model_dump_json())
    condenser = dumped["condenser"]
    assert condenser["kind"] == "LLMSummarizingCondenser"
    assert (condenser["max_size"], condenser["keep_first"]) == (80, 4)
    assert condenser["llm"]["usage_id"] == "condenser" and "sk-preset" not in json.dumps(dumped)
    assert get_default_agent(llm).system_prompt_kwargs["cli_mode"] is False


SDK_TASKS = Path(__file__).resolve().parents[2] / "fixtures/sdk_tool_schemas/task_tracker"


def _sdk_folder() -> Path:
    return next(p for p in SDK_TASKS.iterdir() if p.is_dir())


def test_sdk_task_tracker_conversation_converts_to_what_the_sdk_sent() -> None:
    request = json.loads((SDK_TASKS / "request.json").read_text())
    converted = convert_conversation(_sdk_folder(), to="chat")
    assert converted["tools"] == request["tools"]
    n = len(request["messages"])
    assert converted["messages"][:n] == request["messages"]
    assert converted["problems"] == []


def test_sdk_task_list_is_restored_by_trajkit(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    import shutil

    folder = tmp_path / "c" / _sdk_folder().name
    shutil.copytree(_sdk_folder(), folder)
    agent = get_default_agent(make_llm(llm_server), cli_mode=True)
    llm_server.enqueue_tool_call("task_tracker", {"command": "view"})
    llm_server.enqueue_text("ok")
    conv = Conversation(
        agent=agent, workspace=tmp_path, persistence_dir=tmp_path / "c", conversation_id=folder.name
    )
    conv.send_message("and now?")
    conv.run()
    last = [e for e in open_conversation(folder).iter_events() if isinstance(e, ObservationEvent)]
    assert (
        last[-1].observation.text
        == "# Task List\n\n1. \U0001f504 Explore\n   read code\n\n2. \u23f3 Fix"
    )
