"""Skills, triggers and the agent context (`trajkit.sdk.context.skills`), the condensers
(`context.condenser`) and the request's view (`context.view`), at the SDK's ``context`` paths.
"""

from trajkit.sdk.context.skills import (
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
