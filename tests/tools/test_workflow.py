"""The workflow tool (issue 27, SDK example 52): a script the model writes fans work out to
registered sub-agents, each a task conversation persisted under the parent's ``subagents/``;
refused scripts and failing items are error observations. Against the loopback LLM server.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.sdk.helpers import make_llm
from tests.tools.test_task import run_interrupted, runner
from trajkit.cli import main
from trajkit.convert import convert_conversation
from trajkit.sdk import Agent, Conversation, Tool
from trajkit.sdk.subagent import register_agent
from trajkit.sdk.subagent.registry import _reset_registry_for_tests
from trajkit.tools.workflow import WorkflowContext, WorkflowScriptError, WorkflowToolSet
from trajkit.tools.workflow.impl import (
    MAX_REDUCE_INPUT_CHARS,
    _bounded_json,
    check_workflow_script,
)

MAP_AND_REDUCE = """
async def main(wf):
    notes = await wf.map_agents(["alpha", {"area": "beta"}], "Audit {item}.",
                                subagent_type="auditor", max_concurrency=1)
    return await wf.reduce_agent(wf.flatten([notes]), "Rank them.", subagent_type="auditor")
"""


@pytest.fixture(autouse=True)
def _registry():
    _reset_registry_for_tests()
    register_agent("auditor", lambda llm: Agent(llm=llm, tools=[]), "Audits one area.")
    yield
    _reset_registry_for_tests()


def _run(server, tmp_path, script, replies=()):
    server.enqueue_tool_call("workflow", {"name": "audit", "script": script})
    for reply in replies:
        server.enqueue_text(reply)
    agent = Agent(llm=make_llm(server), tools=[Tool(name=WorkflowToolSet.name)])
    conv = Conversation(agent=agent, workspace=tmp_path, persistence_dir=tmp_path / "c")
    conv.send_message("audit the repo")
    conv.run()
    conv.close()
    obs = [e for e in conv.state.events if e.kind == "ObservationEvent"]
    assert len(obs) == 1
    return conv, obs[0].observation


def test_map_and_reduce_run_sub_agents_persisted_under_the_parent(llm_server, tmp_path):
    replies = ("alpha is fine", "beta lacks tests", "beta first", "Report: beta first.")
    conv, obs = _run(llm_server, tmp_path, MAP_AND_REDUCE, replies)
    bodies = llm_server.bodies("chat")
    offered = bodies[0]["tools"][0]["function"]
    assert offered["name"] == "workflow"
    assert sorted(offered["parameters"]["properties"]) == [
        "max_concurrency", "name", "script", "security_risk", "summary"
    ]  # fmt: skip
    # one item at a time, in order; a non-string item is given as JSON
    prompts = [b["messages"][-1]["content"][0]["text"] for b in bodies[1:4]]
    assert prompts[:2] == ["Audit alpha.", 'Audit {"area": "beta"}.']
    assert prompts[2] == 'Rank them.\n\nInput:\n[\n  "alpha is fine",\n  "beta lacks tests"\n]'
    dumped = obs.model_dump(mode="json")
    assert dumped["kind"] == "WorkflowObservation"
    assert (dumped["name"], dumped["status"], obs.is_error) == ("audit", "completed", False)
    assert obs.content[0].text == "beta first"
    # the parent's model reads the script's return value
    assert bodies[4]["messages"][-1]["content"][0]["text"] == "beta first"
    folder = Path(conv.state.persistence_dir)
    subs = sorted((folder / "subagents").iterdir())
    assert len(subs) == 3
    stats = conv.conversation_stats.usage_to_metrics
    assert sum(k.startswith("task:") for k in stats) >= 1
    # the stored folder converts back to the messages the parent's model was sent (the
    # tools' schemas are not recorded for tools outside the SDK's built-ins)
    converted = convert_conversation(folder, to="chat")
    assert converted["messages"][: len(bodies[4]["messages"])] == bodies[4]["messages"]
    checked = CliRunner().invoke(main, ["validate", str(folder)])  # custom kinds: warnings
    assert checked.exit_code == 0 and "unknown action kind 'WorkflowAction'" in checked.output


@pytest.mark.parametrize(
    ("script", "why"),
    [
        ("import os\nasync def main(wf):\n    return 1", "cannot import"),
        ("async def main(wf):\n    return wf._manager", "`wf._manager` is not part"),
        ("async def main(wf):\n    wf.close()", "`wf.close` is not part"),
        ("async def main(wf):\n    return open('x').read()", "cannot call `open`"),
        ("async def main(wf):\n    return ().__class__", "attribute `__class__`"),
        ("def main(wf):\n    return 1", "must define `async def main(wf):`"),
        ("async def main(wf, x=1):\n    return 1", "one argument"),
        ("async def main(wf):\n    return (", "not valid Python"),
    ],
)
def test_refused_scripts(script, why):
    with pytest.raises(WorkflowScriptError, match=re.escape(why)):
        check_workflow_script(script)


def test_a_refused_script_or_a_failed_item_is_an_error_observation(llm_server, tmp_path):
    script = "async def main(wf):\n    return len(__name__)"
    _, obs = _run(llm_server, tmp_path / "a", script, ["ok"])
    assert obs.is_error and obs.model_dump()["status"] == "error"
    assert "`__name__` is not available" in obs.content[0].text
    assert len(llm_server.bodies("chat")) == 2  # no sub-agent started

    script = (
        "async def main(wf):\n"
        "    return await wf.map_agents(['a', 'b'], 'x {item}', subagent_type='nobody')"
    )
    _, obs = _run(llm_server, tmp_path / "b", script, ["ok"])
    assert obs.is_error
    lines = obs.content[0].text.splitlines()
    assert lines[0] == "map_agents: 2 of 2 items failed"
    assert lines[1].startswith("  - item 1:") and "nobody" in lines[1]


def test_pipeline_and_flatten_need_no_agent():
    wf = WorkflowContext(None)

    def double(x):
        return x * 2

    async def check(x):
        if x == 4:
            raise ValueError("four")
        return x + 1

    async def main():
        return await wf.pipeline([1, 2, 3], double, check)

    assert asyncio.run(main()) == [3, None, 7]
    assert wf.flatten([[1, 2], 3, [[4]]]) == [1, 2, 3, [4]]
    wf.close()


def test_reduce_input_is_bounded_by_dropping_whole_items():
    items = [f"finding {i}: " + "x" * 500 for i in range(100)]
    text = _bounded_json(items)
    body, note = text.rsplit("\n", 1)
    assert len(body) <= MAX_REDUCE_INPUT_CHARS
    kept = json.loads(body)
    assert kept == items[: len(kept)] and 0 < len(kept) < 100
    assert note == f"[{100 - len(kept)} of 100 items left out: too long]"
    assert _bounded_json({"a": 1}) == '{\n  "a": 1\n}'
    long = _bounded_json("y" * (MAX_REDUCE_INPUT_CHARS + 10))
    assert long.endswith("[cut: the input was too long]")


def test_interrupting_the_parent_stops_the_workflow(llm_server, tmp_path):
    """``interrupt()`` reaches the workflow's running sub-agent and no further one starts."""
    register_agent("runner", runner, "Runs.")
    script = (
        "async def main(wf):\n"
        "    return await wf.map_agents(['a', 'b'], 'wait {item}', subagent_type='runner',\n"
        "                               max_concurrency=1)"
    )
    llm_server.enqueue_tool_call("workflow", {"name": "slow", "script": script})
    llm_server.enqueue_tool_call("terminal", {"command": "sleep 60"})
    agent = Agent(llm=make_llm(llm_server), tools=[Tool(name=WorkflowToolSet.name)])
    conv = Conversation(agent=agent, workspace=tmp_path, persistence_dir=tmp_path / "c")
    run_interrupted(conv, "go")
    assert len(list((Path(conv.state.persistence_dir) / "subagents").iterdir())) == 1
    conv.close()
