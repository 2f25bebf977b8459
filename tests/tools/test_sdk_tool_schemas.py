"""Each built-in tool's schema in trajkit's request equals the one openhands-sdk 1.58.2 sends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.sdk.helpers import make_llm
from tests.support.llm_server import ScriptedLLMServer
from trajkit.convert import convert_conversation
from trajkit.sdk import Conversation
from trajkit.tools.preset.default import get_default_agent

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures/sdk_tool_schemas/tools.chat.json"


def structure(node: Any) -> Any:
    """The schema without its prose: descriptions become a marker that one was present."""
    if isinstance(node, dict):
        return {k: ("<text>" if k == "description" else structure(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [structure(v) for v in node]
    return node


def test_default_agent_tools_match_the_sdk_request(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    sdk = json.loads(FIXTURE.read_text())
    llm_server.enqueue_text("done")
    agent = get_default_agent(make_llm(llm_server), cli_mode=True)
    conv = Conversation(agent=agent, workspace=tmp_path, persistence_dir=tmp_path / "c")
    conv.send_message("hello")
    conv.run()
    sent = llm_server.bodies("chat")[0]["tools"]
    assert [t["function"]["name"] for t in sent] == [t["function"]["name"] for t in sdk]
    for ours, theirs in zip(sent, sdk, strict=True):
        name = ours["function"]["name"]
        assert structure(ours) == structure(theirs), name
        # our descriptions are complete texts of our own, never empty
        assert len(ours["function"]["description"]) > 300, name
        for prop in ours["function"]["parameters"]["properties"].values():
            assert prop["description"].strip(), name
    # and trajkit convert rebuilds exactly what was sent
    folder = Path(conv.state.persistence_dir)
    assert convert_conversation(folder, to="chat")["tools"] == sent
