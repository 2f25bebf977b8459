"""Agent definition files: ``<root>/.agents/agents/*.md`` and ``<root>/.openhands/agents/*.md``."""

from __future__ import annotations

from pathlib import Path

from trajkit.sdk.subagent.schema import AgentDefinition, AgentDefinitionLevel

__all__ = ["load_agents_from_dir", "load_project_agents", "load_user_agents"]


def load_agents_from_dir(
    folder: str | Path, level: AgentDefinitionLevel | None = None
) -> list[AgentDefinition]:
    """The definitions of ``folder``'s Markdown files (README.md excepted), by file name."""
    root = Path(folder)
    if not root.is_dir():
        return []
    return [
        AgentDefinition.load(p, level)
        for p in sorted(root.glob("*.md"))
        if p.name.lower() != "readme.md"
    ]


def _agents_of(root: Path, level: AgentDefinitionLevel) -> list[AgentDefinition]:
    return [
        *load_agents_from_dir(root / ".agents" / "agents", level),
        *load_agents_from_dir(root / ".openhands" / "agents", level),
    ]


def load_project_agents(work_dir: str | Path) -> list[AgentDefinition]:
    return _agents_of(Path(work_dir), "project")


def load_user_agents() -> list[AgentDefinition]:
    return _agents_of(Path.home(), "user")
