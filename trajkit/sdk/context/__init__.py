"""The SDK's ``context`` path: skills, triggers and the agent context."""

from trajkit.sdk.skills import (
    AgentContext,
    KeywordTrigger,
    Skill,
    load_skill,
    load_skills,
    load_skills_from_dir,
)

__all__ = [
    "AgentContext",
    "KeywordTrigger",
    "Skill",
    "load_skill",
    "load_skills",
    "load_skills_from_dir",
]
