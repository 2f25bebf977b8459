"""Which hooks run when: `HookConfig` maps each hook point to `HookMatcher`s, each naming the
tools it applies to and the `HookDefinition`s to run.

The JSON form is the SDK's (and Claude Code's) ``hooks.json``: ``{"hooks": {"PreToolUse":
[{"matcher": "terminal", "hooks": [{"command": "check.sh", "timeout": 10}]}]}}``; the wrapper is
optional and keys may be the PascalCase event names or the snake_case field names.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trajkit.sdk.hooks.types import HookEventType

__all__ = ["HOOK_EVENT_FIELDS", "HookConfig", "HookDefinition", "HookMatcher", "HookType"]

_FIELD_OF = {e.value: re.sub(r"(?<!^)(?=[A-Z])", "_", e.value).lower() for e in HookEventType}
"""Hook point name (``PreToolUse``) -> `HookConfig` field (``pre_tool_use``)."""
HOOK_EVENT_FIELDS = frozenset(_FIELD_OF.values())
"""The `HookConfig` fields, one per hook point."""


class HookType(StrEnum):
    """How a hook decides: a shell command, one LLM completion, or a small agent."""

    COMMAND = "command"
    PROMPT = "prompt"
    AGENT = "agent"


class HookDefinition(BaseModel):
    """One hook. ``command`` runs in a shell with the event as JSON on stdin; ``prompt`` is the
    policy a single LLM completion judges the event by; ``system_prompt`` (and ``tools``,
    ``max_iterations``) configure the agent that judges it. ``timeout`` is in seconds; an
    ``async`` command hook runs in the background and never blocks.
    """

    model_config = ConfigDict(populate_by_name=True)

    type: HookType = HookType.COMMAND
    name: str | None = None
    command: str = ""
    prompt: str | None = None
    system_prompt: str | None = None
    tools: list[str] = Field(default_factory=list)
    timeout: int = 60
    max_iterations: int = 3
    async_: bool = Field(default=False, alias="async")

    @model_validator(mode="after")
    def _fields_of_its_type(self) -> HookDefinition:
        if self.type == HookType.COMMAND and not self.command:
            raise ValueError("a command hook needs 'command'")
        if self.type == HookType.PROMPT and not self.prompt:
            raise ValueError("a prompt hook needs 'prompt'")
        if self.type != HookType.COMMAND and self.command:
            raise ValueError(f"a {self.type.value} hook takes no 'command'")
        if self.type != HookType.COMMAND and self.async_:
            raise ValueError(f"a {self.type.value} hook cannot be 'async'")
        return self

    @property
    def display_command(self) -> str:
        """What events and logs call this hook: its command, else ``<type>-hook:<name>``."""
        if self.command:
            return self.command
        label = self.name or (self.prompt or self.system_prompt or self.type.value)[:20]
        return f"{self.type.value}-hook:{label}"


class HookMatcher(BaseModel):
    """Hooks for the tools ``matcher`` names: ``*`` (or empty) for all, an exact name, or a
    regular expression (``/.../`` or any pattern with regex characters), matched in full.
    """

    matcher: str = "*"
    hooks: list[HookDefinition] = Field(default_factory=list)

    def matches(self, tool_name: str | None) -> bool:
        if self.matcher in ("*", ""):
            return True
        if tool_name is None:
            return False
        pattern = self.matcher
        if len(pattern) > 2 and pattern.startswith("/") and pattern.endswith("/"):
            pattern = pattern[1:-1]
        elif not set(pattern) & set("|.*+?[]()^$\\"):
            return pattern == tool_name
        try:
            return re.fullmatch(pattern, tool_name) is not None
        except re.error:
            return self.matcher == tool_name


class HookConfig(BaseModel):
    """The hooks of a conversation, by hook point."""

    model_config = ConfigDict(extra="forbid")

    pre_tool_use: list[HookMatcher] = Field(default_factory=list)
    """Before a tool runs; a deny (exit code 2) rejects the action."""
    post_tool_use: list[HookMatcher] = Field(default_factory=list)
    """After a tool ran, with its observation."""
    user_prompt_submit: list[HookMatcher] = Field(default_factory=list)
    """When a user message arrives; may add context to it or block it."""
    session_start: list[HookMatcher] = Field(default_factory=list)
    """When the conversation starts; may add context."""
    session_end: list[HookMatcher] = Field(default_factory=list)
    """When the conversation is closed."""
    stop: list[HookMatcher] = Field(default_factory=list)
    """When the agent finishes; a deny sends the agent back to work with the hook's feedback."""

    @model_validator(mode="before")
    @classmethod
    def _hooks_json_form(cls, data: Any) -> Any:
        # hooks.json files (the SDK's, Claude Code plugins') wrap the map in "hooks" and use
        # the PascalCase event names
        if not isinstance(data, dict):
            return data
        if isinstance(data.get("hooks"), dict):
            data = data["hooks"]
        out: dict[str, Any] = {}
        for key, value in data.items():
            field = _FIELD_OF.get(key, key)
            if key[:1].isupper() and key not in _FIELD_OF:
                raise ValueError(f"unknown hook event {key!r}; known: {', '.join(_FIELD_OF)}")
            if field in out:
                raise ValueError(f"hook event {key!r} is given twice")
            out[field] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HookConfig:
        return cls.model_validate(data)

    @classmethod
    def load(
        cls, path: str | Path | None = None, working_dir: str | Path | None = None
    ) -> HookConfig:
        """From ``path``, else ``<working_dir>/.openhands/hooks.json`` or
        ``~/.openhands/hooks.json``; empty when none exists.
        """
        candidates = (
            [Path(path)]
            if path is not None
            else [Path(working_dir or ".") / ".openhands" / "hooks.json",
                  Path.home() / ".openhands" / "hooks.json"]
        )  # fmt: skip
        for candidate in candidates:
            if candidate.is_file():
                return cls.model_validate(json.loads(candidate.read_text()))
        return cls()

    def is_empty(self) -> bool:
        return not any(getattr(self, f) for f in HOOK_EVENT_FIELDS)

    def get_hooks_for_event(
        self, event_type: HookEventType | str, tool_name: str | None = None
    ) -> list[HookDefinition]:
        """The hooks to run for one event, in configuration order."""
        matchers: list[HookMatcher] = getattr(self, _FIELD_OF[HookEventType(event_type)])
        return [h for m in matchers if m.matches(tool_name) for h in m.hooks]

    def has_hooks_for_event(self, event_type: HookEventType | str) -> bool:
        return bool(getattr(self, _FIELD_OF[HookEventType(event_type)]))

    @classmethod
    def merge(cls, configs: list[HookConfig]) -> HookConfig | None:
        """All matchers of ``configs`` per hook point, in order; None when nothing is left."""
        merged = cls(**{f: [m for c in configs for m in getattr(c, f)] for f in HOOK_EVENT_FIELDS})
        return None if merged.is_empty() else merged
