"""Knowledge skills and the agent context that carries them (the SDK's ``AgentContext``).

A `Skill` has a name, Markdown content and an optional `KeywordTrigger`. A skill with a trigger
is *knowledge*: when a user message contains one of its keywords (case-insensitive) its content
is attached to that message, once per conversation. A skill without a trigger is *always on*: its
content is part of the system prompt.

Attaching follows the SDK: the user ``MessageEvent`` keeps the user's text in ``llm_message`` and
gets the skill text in ``extended_content`` (which ``to_llm_message`` appends to the message
content) and the skill names in ``activated_skills``; the conversation adds the names to
``state.activated_knowledge_skills`` so a later message does not inject them again, also after a
restore. ``agent_context`` is persisted with the agent under the SDK's field names
(``skills[].trigger = {"type": "keyword", "keywords": [...]}``).

Skills load from Markdown files with front matter (`load_skill`, `load_skills`)::

    ---
    name: github
    triggers: [github, pull request]
    ---
    Use the GitHub API with $GITHUB_TOKEN ...

``triggers`` (or ``keywords``) may be a YAML list or a single string; without ``name`` the file
name is used (the folder name for ``SKILL.md``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from trajkit.errors import InputError
from trajkit.events import Message, TextContent

__all__ = [
    "AgentContext",
    "KeywordTrigger",
    "Skill",
    "load_skill",
    "load_skills",
    "load_skills_from_dir",
    "parse_front_matter",
    "render_skill_knowledge",
]


class KeywordTrigger(BaseModel):
    """Activate a skill when a user message contains one of the keywords."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    type: Literal["keyword"] = "keyword"
    """Trigger kind."""
    keywords: list[str]
    """Words or phrases, matched case-insensitively as substrings."""


class Skill(BaseModel):
    """A named piece of guidance for the agent."""

    model_config = ConfigDict(frozen=True, extra="ignore", use_attribute_docstrings=True)

    name: str
    """Unique name (recorded in ``activated_knowledge_skills``)."""
    content: str
    """Markdown text given to the LLM."""
    trigger: KeywordTrigger | None = None
    """When to activate; None means always on (system prompt)."""
    source: str | None = None
    """File the skill was loaded from."""
    description: str | None = None
    """One-line summary."""

    def match_trigger(self, text: str) -> str | None:
        """The first keyword found in ``text``, or None."""
        if self.trigger is None:
            return None
        lowered = text.lower()
        return next((k for k in self.trigger.keywords if k and k.lower() in lowered), None)


def render_skill_knowledge(matches: Sequence[tuple[Skill, str]]) -> str:
    """The ``<EXTRA_INFO>`` blocks for activated skills (the SDK's skill_knowledge_info)."""
    blocks = []
    for skill, keyword in matches:
        lines = [
            "<EXTRA_INFO>",
            f'The following information has been included based on a keyword match for "{keyword}".',
            "It may or may not be relevant to the user's request.",
        ]
        if skill.source:
            lines.append(f"Skill location: {skill.source}")
        lines += ["", skill.content.strip(), "</EXTRA_INFO>"]
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


class AgentContext(BaseModel):
    """Skills and prompt suffixes (persisted as ``agent.agent_context``)."""

    model_config = ConfigDict(frozen=True, extra="ignore", use_attribute_docstrings=True)

    skills: list[Skill] = Field(default_factory=list)
    """Knowledge (triggered) and always-on skills."""
    system_message_suffix: str | None = None
    """Text appended to the system prompt."""
    user_message_suffix: str | None = None
    """Text appended to every user message."""

    def system_prompt_suffix(self) -> str | None:
        """Always-on skills and the system suffix, appended to the system prompt."""
        parts = []
        always = [s for s in self.skills if s.trigger is None]
        if always:
            body = "\n\n".join(
                f"[BEGIN context from {s.name}]\n{s.content.strip()}\n[END Context]" for s in always
            )
            parts.append(f"<REPO_CONTEXT>\n{body}\n</REPO_CONTEXT>")
        if self.system_message_suffix:
            parts.append(self.system_message_suffix)
        return "\n\n".join(parts) or None

    def user_message_extension(
        self, message: Message, *, skip: Iterable[str] = ()
    ) -> tuple[list[TextContent], list[str]]:
        """Extended content and activated skill names for one user message.

        Skills named in ``skip`` (already activated in this conversation) are not repeated.
        """
        text = message.text.strip()
        skipped = set(skip)
        matches: list[tuple[Skill, str]] = []
        if text:
            for skill in self.skills:
                keyword = skill.match_trigger(text)
                if keyword is not None and skill.name not in skipped:
                    matches.append((skill, keyword))
                    skipped.add(skill.name)
        parts = [render_skill_knowledge(matches)] if matches else []
        if self.user_message_suffix:
            parts.append(self.user_message_suffix)
        content = [TextContent(text="\n".join(parts))] if parts else []
        return content, [s.name for s, _ in matches]


def parse_front_matter(text: str, *, path: str = "<skill>") -> tuple[dict[str, Any], str]:
    """Split ``---`` front matter (YAML) from the body; no front matter gives ``{}``."""
    if not text.startswith("---"):
        return {}, text
    lines = text.splitlines(keepends=True)
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise InputError(path, "", "front matter starts with '---' but has no closing '---'")
    import yaml

    try:
        meta = yaml.safe_load("".join(lines[1:end])) or {}
    except yaml.YAMLError as e:
        raise InputError(path, "", f"front matter is not valid YAML: {e}") from None
    if not isinstance(meta, dict):
        raise InputError(path, "", f"front matter must be a mapping, got {type(meta).__name__}")
    return meta, "".join(lines[end + 1 :]).lstrip("\n")


def load_skill(path: str | os.PathLike[str]) -> Skill:
    """A skill from a Markdown file with front matter."""
    file = Path(path)
    meta, body = parse_front_matter(file.read_text(encoding="utf-8"), path=str(file))
    default_name = file.parent.name if file.name.upper() == "SKILL.MD" else file.stem
    name = meta.get("name") or default_name
    raw = meta.get("triggers", meta.get("keywords"))
    if isinstance(raw, str):
        raw = [raw]
    if raw is not None and (
        not isinstance(raw, list) or not all(isinstance(k, str | int | float) for k in raw)
    ):
        raise InputError(file, "/triggers", f"expected a list of keywords, got {raw!r}")
    trigger = KeywordTrigger(keywords=[str(k) for k in raw]) if raw else None
    description = meta.get("description")
    return Skill(
        name=str(name),
        content=body.strip(),
        trigger=trigger,
        source=str(file),
        description=None if description is None else str(description),
    )


def load_skills(folder: str | os.PathLike[str]) -> list[Skill]:
    """Every ``*.md`` skill under ``folder`` (recursively, README.md excepted), by path order."""
    root = Path(folder)
    if not root.is_dir():
        raise InputError(root, "", "expected a folder of Markdown skill files")
    files = sorted(p for p in root.rglob("*.md") if p.name.lower() != "readme.md")
    return [load_skill(p) for p in files]


def load_skills_from_dir(
    skill_dir: str | os.PathLike[str],
) -> tuple[dict[str, Skill], dict[str, Skill], dict[str, Skill]]:
    """The SDK's split of `load_skills`: ``(repo, knowledge, agent)`` skills by name.

    ``repo`` skills have no trigger (always in the system prompt), ``knowledge`` skills a
    keyword trigger, and ``agent`` skills are the AgentSkills-format ``<name>/SKILL.md``
    folders (whatever their trigger).
    """
    repo: dict[str, Skill] = {}
    knowledge: dict[str, Skill] = {}
    agent: dict[str, Skill] = {}
    for skill in load_skills(skill_dir):
        if skill.source and Path(skill.source).name.upper() == "SKILL.MD":
            agent[skill.name] = skill
        elif skill.trigger is None:
            repo[skill.name] = skill
        else:
            knowledge[skill.name] = skill
    return repo, knowledge, agent
