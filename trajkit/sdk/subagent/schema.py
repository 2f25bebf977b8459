"""`AgentDefinition`: a sub-agent described by data, inline or in a Markdown file.

A file is front matter (``name``, ``description``, ``model``, ``tools``, ``skills``,
``max_iteration_per_run``, ``permission_mode``, ``mcp_servers``, ``hooks``, ...) and a body
that becomes the agent's ``system_prompt``, as the SDK's ``.agents/agents/*.md`` files are.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from trajkit.sdk.hooks.config import HookConfig

__all__ = ["AgentDefinition", "AgentDefinitionLevel"]

AgentDefinitionLevel = Literal["project", "user", "builtin", "plugin", "programmatic"]
_PERMISSION_MODES = {
    "always_confirm": "AlwaysConfirm",
    "never_confirm": "NeverConfirm",
    "confirm_risky": "ConfirmRisky",
}


class AgentDefinition(BaseModel):
    """What a sub-agent is: its tools, prompt, model and limits."""

    name: str
    description: str = ""
    model: str = "inherit"
    """``inherit`` (the delegating agent's LLM) or the name of a saved LLM profile."""
    color: str | None = None
    tools: list[str] = Field(default_factory=list)
    """Registered tool names."""
    skills: list[str] = Field(default_factory=list)
    """Skill names, found in the project's and the user's skill folders."""
    system_prompt: str = ""
    """Added to the agent's system prompt."""
    source: str | None = None
    """The file the definition was read from."""
    level: AgentDefinitionLevel | None = None
    when_to_use_examples: list[str] = Field(default_factory=list)
    hooks: HookConfig | None = None
    permission_mode: str | None = None
    """``always_confirm``, ``never_confirm`` or ``confirm_risky``; None inherits the parent's."""
    max_iteration_per_run: int | None = None
    max_budget_per_run: float | None = None
    mcp_config: dict[str, Any] | None = None
    profile_store_dir: str | None = None

    def get_confirmation_policy(self) -> Any:
        """The confirmation policy ``permission_mode`` names; None to inherit the parent's."""
        if self.permission_mode is None:
            return None
        from trajkit.sdk.security.confirmation_policy import parse_confirmation_policy

        return parse_confirmation_policy(_PERMISSION_MODES[self.permission_mode])

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], level: AgentDefinitionLevel | None = None
    ) -> AgentDefinition:
        """Read a Markdown agent file; raises `trajkit.errors.InputError` when malformed."""
        from trajkit.errors import InputError
        from trajkit.sdk.context.skills import parse_front_matter

        file = Path(path)
        meta, body = parse_front_matter(file.read_text(encoding="utf-8"), path=str(file))
        description = str(meta.get("description") or "")
        mode = meta.get("permission_mode")
        if mode is not None and str(mode).lower() not in _PERMISSION_MODES:
            raise InputError(
                str(file),
                "/permission_mode",
                f"expected one of {', '.join(_PERMISSION_MODES)}, got {mode!r}",
            )
        try:
            return cls(
                name=str(meta.get("name") or file.stem),
                description=description,
                model=str(meta.get("model") or "inherit"),
                color=meta.get("color"),
                tools=_names(meta.get("tools")),
                skills=_names(meta.get("skills")),
                system_prompt=body.strip(),
                source=str(file),
                level=level,
                when_to_use_examples=[
                    m.strip()
                    for m in re.findall(r"<example>(.*?)</example>", description, re.S | re.I)
                ],
                hooks=meta.get("hooks"),
                permission_mode=str(mode).lower() if mode is not None else None,
                max_iteration_per_run=meta.get("max_iteration_per_run"),
                max_budget_per_run=meta.get("max_budget_per_run"),
                mcp_config=meta.get("mcp_config", meta.get("mcp_servers")),
                profile_store_dir=meta.get("profile_store_dir"),
            )
        except ValueError as e:
            raise InputError(str(file), "", f"not a valid agent definition: {e}") from None


def _names(raw: Any) -> list[str]:
    if isinstance(raw, str):
        return [s.strip() for s in raw.split(",") if s.strip()]
    return [str(x) for x in raw] if isinstance(raw, list) else []
