"""The user-model tools (issue 27, SDK example 30): ``sleeptime_compute`` indexes the user's
messages of saved conversations, ``tom_consult`` asks an LLM (loopback) with them."""

from __future__ import annotations

import json

from tests.sdk.helpers import make_agent


def test_index_then_consult(llm_server, tmp_path, monkeypatch):
    from trajkit.sdk import Conversation, Tool
    from trajkit.tools.tom_consult import SleeptimeComputeAction, SleeptimeComputeObservation

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    params = {"llm_model": "openai/gpt-4o", "api_key": "k", "api_base": llm_server.base_url}
    agent = make_agent(llm_server, tools=("terminal",))
    agent = agent.model_copy(update={"tools": [*agent.tools, Tool(name="tom_consult", params=params),
                                               Tool(name="sleeptime_compute", params=params)]})  # fmt: skip
    llm_server.enqueue_text("ok")
    earlier = Conversation(
        agent=agent, workspace=tmp_path, persistence_dir=tmp_path / "c", visualizer=None
    )
    earlier.send_message("I always want type hints in Python code.")
    earlier.run()
    earlier.close()
    conv = Conversation(
        agent=agent, workspace=tmp_path, persistence_dir=tmp_path / "c", visualizer=None
    )
    first = conv.execute_tool("sleeptime_compute", SleeptimeComputeAction())
    # the tool's own observation, as the SDK's execute_tool returns it
    assert isinstance(first, SleeptimeComputeObservation) and first.sessions_processed == 1
    again = conv.execute_tool("sleeptime_compute", SleeptimeComputeAction())
    assert again.message == "All conversations already indexed"
    llm_server.enqueue_tool_call("tom_consult", {"reason": "vague", "use_user_message": True})
    llm_server.enqueue_text("They want type hints.")
    llm_server.enqueue_text("Added hints.")
    conv.send_message("clean up the code")
    conv.run()
    consult = llm_server.bodies("chat")[2]["messages"][1]
    assert "type hints" in json.dumps(consult) and "clean up the code" in json.dumps(consult)
    obs = [e.observation for e in conv.state.events if e.kind == "ObservationEvent"][-1]
    assert obs.extra_fields()["suggestions"] == "They want type hints."
    conv.close()
