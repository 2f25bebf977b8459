"""The system prompt: bundled Jinja templates and the SDK's knobs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from tests.sdk.helpers import make_agent, make_llm
from tests.support.llm_server import ScriptedLLMServer
from trajkit.sdk import Agent, Conversation, Tool
from trajkit.sdk.prompt import PROMPT_DIR, render_system_prompt

TOPICS = [
    "ROLE", "EFFICIENCY", "FILE_SYSTEM_GUIDELINES", "CODE_QUALITY", "VERSION_CONTROL",
    "PULL_REQUESTS", "PROBLEM_SOLVING_WORKFLOW", "SECURITY", "SECURITY_RISK_ASSESSMENT",
    "EXTERNAL_SERVICES", "ENVIRONMENT_SETUP", "TROUBLESHOOTING", "PROCESS_MANAGEMENT",
    "TASK_MANAGEMENT", "MEMORY", "ENVIRONMENT",
]  # fmt: skip
TOOLS = ["terminal", "file_editor", "task_tracker", "finish", "think"]


def sections(text: str) -> list[str]:
    return re.findall(r"^<([A-Z_]+)>$", text, flags=re.M)


def render(**kw) -> str:
    kw.setdefault("working_dir", "/work/project")
    kw.setdefault("tool_names", TOOLS)
    return render_system_prompt(**kw)


def test_default_prompt_covers_every_topic_in_order() -> None:
    text = render()
    assert sections(text) == TOPICS
    for tag in TOPICS:
        assert text.count(f"<{tag}>") == 1 and text.count(f"</{tag}>") == 1
    assert "Working directory: /work/project" in text
    assert "{{" not in text and "{%" not in text  # everything rendered
    assert "\n\n\n" not in text
    assert 12_000 < len(text) < 16_000
    # the bundled security policy is inserted in <SECURITY>
    policy = (PROMPT_DIR / "security_policy.j2").read_text().strip()
    security = text.split("<SECURITY>\n", 1)[1].split("</SECURITY>", 1)[0]
    assert security.startswith(policy)


def test_cli_mode_switches_environment_and_risk_tiers() -> None:
    local = render(system_prompt_kwargs={"cli_mode": True})
    sandbox = render(system_prompt_kwargs={"cli_mode": False})
    assert "the user's own machine, not in a sandbox" in local
    assert "sandboxed environment" in sandbox and "not in a sandbox" not in sandbox
    assert "inside the sandbox" in sandbox and "inside the sandbox" not in local
    assert render() == local  # cli_mode defaults to true, as the SDK's template


def test_security_risk_section_follows_llm_security_analyzer() -> None:
    off = render(system_prompt_kwargs={"llm_security_analyzer": False})
    assert "SECURITY_RISK_ASSESSMENT" not in off and "<SECURITY>" in off
    assert "SECURITY_RISK_ASSESSMENT" in render(system_prompt_kwargs={"llm_security_analyzer": 1})


def test_task_tracker_section_only_with_the_tool() -> None:
    assert "TASK_MANAGEMENT" not in render(tool_names=["terminal", "file_editor"])


def test_security_policy_filename_none_custom_or_missing(tmp_path: Path) -> None:
    assert "Security policy:" not in render(security_policy_filename="")
    custom = tmp_path / "policy.md"
    custom.write_text("Only touch files under /work. {{ not_rendered }}\n")
    text = render(security_policy_filename=str(custom))
    assert "Only touch files under /work. {{ not_rendered }}" in text  # inserted, not rendered
    assert "Security policy:" not in text
    with pytest.raises(ValueError, match="security_policy_filename 'nope.md'"):
        render(security_policy_filename="nope.md")


def test_custom_template_gets_kwargs_and_can_include_bundled_parts(tmp_path: Path) -> None:
    tpl = tmp_path / "mine.j2"
    tpl.write_text(
        "Team {{ team }} in {{ working_dir }}; tools: {{ tool_names | join(', ') }}.\n"
        "{{ missing_variable }}|{{ security_policy[:15] }}"
    )
    text = render(system_prompt_filename=str(tpl), system_prompt_kwargs={"team": "blue"})
    assert text == (
        "Team blue in /work/project; tools: terminal, file_editor, task_tracker, finish, think.\n"
        "|Security policy"
    )
    with pytest.raises(ValueError, match="no such template"):
        render(system_prompt_filename="system_prompt_missing.j2")


def test_agent_knobs_persist_as_the_sdk_writes_them(llm_server: ScriptedLLMServer) -> None:
    agent = make_agent(llm_server)
    dumped = json.loads(agent.model_dump_json())
    assert dumped["system_prompt_kwargs"] == {"llm_security_analyzer": True}
    assert dumped["system_prompt_filename"] == "system_prompt.j2"
    assert dumped["security_policy_filename"] == "security_policy.j2"
    kept = Agent(llm=make_llm(llm_server), system_prompt_kwargs={"llm_security_analyzer": False})
    assert kept.system_prompt_kwargs == {"llm_security_analyzer": False}
    assert (
        Agent(llm=make_llm(llm_server), security_policy_filename=None).security_policy_filename
        == ""
    )
    with pytest.raises(ValidationError, match="Cannot set both 'system_prompt'"):
        Agent(llm=make_llm(llm_server), system_prompt="x", system_prompt_filename="/a.j2")


def test_conversation_sends_the_rendered_prompt(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    agent = Agent(
        llm=make_llm(llm_server),
        tools=[Tool(name="terminal"), Tool(name="file_editor")],
        system_prompt_kwargs={"cli_mode": False},
    )
    llm_server.enqueue_text("hello")
    conv = Conversation(agent=agent, workspace=ws, persistence_dir=tmp_path / "c")
    conv.send_message("hi")
    conv.run()
    system = llm_server.bodies("chat")[0]["messages"][0]
    text = system["content"] if isinstance(system["content"], str) else system["content"][0]["text"]
    assert text == render_system_prompt(
        working_dir=str(ws.resolve()),
        tool_names=["terminal", "file_editor", "finish", "think"],
        system_prompt_kwargs={"cli_mode": False, "llm_security_analyzer": True},
    )
    assert "TASK_MANAGEMENT" not in text and "sandboxed environment" in text


def test_inline_system_prompt_is_used_verbatim(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = Agent(llm=make_llm(llm_server), system_prompt="Be brief. {{ not_a_template }}")
    llm_server.enqueue_text("ok")
    conv = Conversation(agent=agent, workspace=tmp_path, persistence_dir=tmp_path / "c")
    conv.send_message("hi")
    conv.run()
    system = llm_server.bodies("chat")[0]["messages"][0]
    text = system["content"] if isinstance(system["content"], str) else system["content"][0]["text"]
    assert text == "Be brief. {{ not_a_template }}"
