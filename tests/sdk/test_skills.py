"""Skills: loading from Markdown, keyword matching, the text attached to a user message."""

from __future__ import annotations

import pytest

from trajkit.errors import InputError
from trajkit.events import Message, TextContent
from trajkit.sdk.context.skills import (
    AgentContext,
    KeywordTrigger,
    Skill,
    load_skill,
    load_skills,
    parse_front_matter,
)

GITHUB_MD = """---
name: github
triggers:
  - github
  - pull request
description: Working with GitHub
---

Use the GitHub API with $GITHUB_TOKEN.
"""


def _msg(text):
    return Message(role="user", content=[TextContent(text=text)])


def test_load_skill_from_markdown(tmp_path):
    path = tmp_path / "github.md"
    path.write_text(GITHUB_MD)
    skill = load_skill(path)
    assert skill.name == "github"
    assert skill.content == "Use the GitHub API with $GITHUB_TOKEN."
    assert skill.trigger == KeywordTrigger(keywords=["github", "pull request"])
    assert skill.description == "Working with GitHub"
    assert skill.source == str(path)


def test_load_skills_folder_names_and_always_on(tmp_path):
    (tmp_path / "github.md").write_text(GITHUB_MD)
    (tmp_path / "style").mkdir()
    (tmp_path / "style" / "SKILL.md").write_text("Always use type hints.\n")
    (tmp_path / "README.md").write_text("not a skill")
    (tmp_path / "npm.md").write_text("---\ntriggers: npm\n---\nUse npm ci.\n")
    skills = {s.name: s for s in load_skills(tmp_path)}
    assert sorted(skills) == ["github", "npm", "style"]
    assert skills["style"].trigger is None
    assert skills["npm"].trigger == KeywordTrigger(keywords=["npm"])


def test_bad_front_matter_names_the_file(tmp_path):
    path = tmp_path / "bad.md"
    path.write_text("---\nname: x\nno closing line\n")
    with pytest.raises(InputError, match="bad.md"):
        load_skill(path)
    path.write_text("---\ntriggers: {a: 1}\n---\nbody\n")
    with pytest.raises(InputError, match="/triggers"):
        load_skill(path)
    assert parse_front_matter("no front matter") == ({}, "no front matter")


def test_extension_for_matching_message_and_skip():
    ctx = AgentContext(
        skills=[
            Skill(name="github", content="GH guide", trigger=KeywordTrigger(keywords=["GitHub"])),
            Skill(name="npm", content="NPM guide", trigger=KeywordTrigger(keywords=["npm"])),
            Skill(name="style", content="Type hints"),
        ]
    )
    content, names = ctx.user_message_extension(_msg("open a github issue"))
    assert names == ["github"]
    assert len(content) == 1
    text = content[0].text
    assert text.startswith("<EXTRA_INFO>\n")
    assert 'keyword match for "GitHub"' in text
    assert "GH guide" in text
    assert "NPM guide" not in text
    assert ctx.user_message_extension(_msg("github again"), skip=["github"]) == ([], [])
    assert ctx.user_message_extension(_msg("nothing here")) == ([], [])
    assert "Type hints" in (ctx.system_prompt_suffix() or "")


def test_agent_context_round_trips_with_sdk_field_names():
    ctx = AgentContext(
        skills=[Skill(name="g", content="c", trigger=KeywordTrigger(keywords=["k"]))],
        user_message_suffix="be brief",
    )
    data = ctx.model_dump(mode="json", exclude_none=True)
    assert data["skills"][0]["trigger"] == {"type": "keyword", "keywords": ["k"]}
    assert AgentContext.model_validate(data) == ctx
    content, names = ctx.user_message_extension(_msg("K please"))
    assert names == ["g"]
    assert content[0].text.endswith("be brief")


# -- in a conversation ---------------------------------------------------------------------


def test_triggered_skill_reaches_the_llm_and_survives_restore(llm_server, tmp_path):
    import json
    import uuid
    from pathlib import Path

    from tests.sdk.helpers import make_llm
    from tests.sdk.test_state_restore import strict_validate
    from trajkit.events import MessageEvent
    from trajkit.sdk import Agent, Conversation, Tool

    (tmp_path / "skills").mkdir()
    (tmp_path / "skills" / "github.md").write_text(GITHUB_MD)
    (tmp_path / "skills" / "style.md").write_text("---\nname: style\n---\nPrefer small commits.\n")
    context = AgentContext(skills=load_skills(tmp_path / "skills"))
    cid = uuid.uuid4()

    def open_conv():
        agent = Agent(
            llm=make_llm(llm_server), tools=[Tool(name="terminal")], agent_context=context
        )
        return Conversation(
            agent=agent,
            workspace=tmp_path / "ws",
            persistence_dir=tmp_path / "convs",
            conversation_id=cid,
        )

    llm_server.enqueue_text("Will do.")
    conv = open_conv()
    conv.send_message("Open a GitHub pull request for this")
    conv.run()
    user = next(e for e in conv.state.events if isinstance(e, MessageEvent) and e.source == "user")
    assert user.activated_skills == ["github"]
    assert "Use the GitHub API" in user.extended_content[0].text
    assert user.llm_message.content[0].text == "Open a GitHub pull request for this"
    assert conv.state.activated_knowledge_skills == ["github"]
    messages = llm_server.bodies()[0]["messages"]
    assert "Prefer small commits." in json.dumps(messages[0])  # always-on skill: system prompt
    user_parts = messages[1]["content"]
    assert user_parts[0]["text"] == "Open a GitHub pull request for this"
    assert user_parts[1]["text"].startswith("<EXTRA_INFO>")
    folder = Path(conv.state.persistence_dir)
    state = json.loads((folder / "base_state.json").read_text())
    assert state["activated_knowledge_skills"] == ["github"]
    persisted_skills = state["agent"]["agent_context"]["skills"]
    assert persisted_skills[0]["trigger"] == {
        "type": "keyword",
        "keywords": ["github", "pull request"],
    }
    conv.close()
    del conv

    restored = open_conv()
    assert restored.state.activated_knowledge_skills == ["github"]
    llm_server.enqueue_text("Again.")
    restored.send_message("another github question")
    restored.run()
    last_user = [
        e for e in restored.state.events if isinstance(e, MessageEvent) and e.source == "user"
    ][-1]
    assert last_user.activated_skills == []  # already active in this conversation
    assert last_user.extended_content == []
    restored.close()
    strict_validate(folder)
