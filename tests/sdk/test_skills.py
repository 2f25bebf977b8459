"""Skills: loading from Markdown, keyword matching, the text attached to a user message."""

from __future__ import annotations

import pytest

from trajkit.errors import InputError
from trajkit.events import Message, TextContent
from trajkit.sdk.skills import (
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
