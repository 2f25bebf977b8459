"""``planning_file_editor``: the file editor of a planning agent, which may view any file but
change only its plan (``<workspace>/.agents_tmp/PLAN.md`` unless ``plan_path`` says otherwise;
created with the plan's section headers when missing).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trajkit.events import Action, FileEditorAction, FileEditorObservation, TextContent
from trajkit.sdk.tool import RuntimeTool, ToolContext, register_tool
from trajkit.tools.file_editor.definition import FileEditorTool

__all__ = ["PlanningFileEditorTool"]


@register_tool
class PlanningFileEditorTool(FileEditorTool):
    """Views files; edits only the plan."""

    name = "planning_file_editor"
    annotations = {**FileEditorTool.annotations, "title": "planning_file_editor"}

    def __init__(self, ctx: ToolContext, *, plan_path: str | None = None) -> None:
        super().__init__(ctx)
        if plan_path is not None and not Path(plan_path).is_absolute():
            raise ValueError(f"plan_path must be an absolute path, got {plan_path!r}")
        plan = Path(plan_path or Path(ctx.working_dir).resolve() / ".agents_tmp" / "PLAN.md")
        if not plan.exists():
            from trajkit.tools.preset.planning import get_plan_headers

            plan.parent.mkdir(parents=True, exist_ok=True)
            plan.write_text(get_plan_headers())
        self.plan_path = str(plan)
        self.description += f"\n\nOnly the plan can be changed: {self.plan_path}"

    @classmethod
    def create(cls, ctx: ToolContext, **params: Any) -> list[RuntimeTool]:
        return [cls(ctx, **params)]

    def __call__(self, action: Action) -> FileEditorObservation:
        assert isinstance(action, FileEditorAction)
        target = Path(self.ctx.working_dir, action.path).resolve()
        if action.command != "view" and target != Path(self.plan_path).resolve():
            return FileEditorObservation(
                content=[TextContent(text=f"Only the plan ({self.plan_path}) can be changed; {action.path} can only be viewed.")],
                is_error=True, command=action.command, path=str(target),
            )  # fmt: skip
        return super().__call__(action)
