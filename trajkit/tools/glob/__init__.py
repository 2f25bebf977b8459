"""``glob`` and ``grep``: read-only file search for agents without a terminal (the planning
agent). Both answer with at most 100 paths, newest first.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import Field

from trajkit.sdk.tool import (
    Action,
    Observation,
    RuntimeTool,
    ToolContext,
    ToolDefinition,
    ToolExecutor,
    register_tool,
)

__all__ = ["GlobAction", "GlobTool", "GrepAction", "GrepTool", "SearchObservation"]

LIMIT = 100
_SKIP = {".git", "node_modules", "__pycache__", ".venv"}


class GlobAction(Action):
    pattern: str = Field(description="A glob such as `**/*.py` or `src/**/test_*.ts`.")
    path: str | None = Field(
        default=None, description="The folder to search (default: the workspace)."
    )


class GrepAction(Action):
    pattern: str = Field(description="A regular expression to look for in file contents.")
    path: str | None = Field(
        default=None, description="The folder to search (default: the workspace)."
    )
    include: str | None = Field(
        default=None, description="Only files whose name matches this glob, e.g. `*.py`."
    )


class SearchObservation(Observation):
    files: list[str] = Field(default_factory=list)
    truncated: bool = False


def _files(root: Path) -> Iterator[Path]:
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIP]
        for name in names:
            yield Path(folder) / name


def _answer(found: list[Path], what: str) -> Any:
    found.sort(key=lambda p: p.stat().st_mtime if p.exists() else 0, reverse=True)
    paths = [str(p) for p in found[:LIMIT]]
    more = len(found) > LIMIT
    if not paths:
        return SearchObservation.from_text(f"No files {what}.")
    text = "\n".join(paths) + (
        f"\n[{len(found) - LIMIT} more not shown: narrow the search]" if more else ""
    )
    return SearchObservation.from_text(text, files=paths, truncated=more)


class _Search(ToolExecutor[Any, Any]):
    def __init__(self, working_dir: str) -> None:
        self.working_dir = working_dir

    def __call__(self, action: Any, conversation: Any = None) -> Any:
        root = Path(self.working_dir, action.path or ".").resolve()
        if not root.is_dir():
            return SearchObservation.from_text(f"{root} is not a folder.", is_error=True)
        if isinstance(action, GlobAction):
            return _answer(
                [p for p in root.glob(action.pattern) if p.is_file()],
                f"match {action.pattern!r} in {root}",
            )
        try:
            rx = re.compile(action.pattern)
        except re.error as e:
            return SearchObservation.from_text(f"Invalid regular expression: {e}", is_error=True)
        found = []
        for file in _files(root):
            if action.include and not file.match(action.include):
                continue
            try:
                if rx.search(file.read_text(errors="ignore")):
                    found.append(file)
            except OSError:
                continue
        return _answer(found, f"contain {action.pattern!r} in {root}")


def _make(cls: Any, action: type[Action], description: str, ctx: ToolContext) -> list[RuntimeTool]:
    annotations = {
        "title": cls.name,
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    return [cls(description=description, action_type=action, observation_type=SearchObservation,
                annotations=annotations, executor=_Search(ctx.working_dir))]  # fmt: skip


@register_tool
class GlobTool(ToolDefinition[GlobAction, SearchObservation]):
    """Finds files by name pattern."""

    @classmethod
    def create(cls, ctx: ToolContext, **params: Any) -> list[RuntimeTool]:
        return _make(
            cls,
            GlobAction,
            f"Finds files whose path matches a glob pattern, newest first (at most {LIMIT}).",
            ctx,
        )


@register_tool
class GrepTool(ToolDefinition[GrepAction, SearchObservation]):
    """Finds files whose contents match a regular expression."""

    @classmethod
    def create(cls, ctx: ToolContext, **params: Any) -> list[RuntimeTool]:
        return _make(
            cls,
            GrepAction,
            f"Finds files whose contents match a regular expression, newest first (at most {LIMIT}).",
            ctx,
        )
