"""The planning preset (issue 27, SDK example 24): ``glob``, ``grep`` and the planning file
editor, offered with the SDK's parameters, on real files."""

from __future__ import annotations

from trajkit.events import FileEditorAction
from trajkit.sdk.tool import ToolContext, resolve_tool


def _tools(ws):
    from trajkit.tools.preset.planning import get_planning_tools

    ctx = ToolContext(working_dir=str(ws))
    return {t.name: t for spec in get_planning_tools() for t in resolve_tool(spec, ctx)}


def test_planning_tools_search_and_only_edit_the_plan(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("def scrape():\n    pass\n")
    (tmp_path / "notes.md").write_text("scrape later\n")
    tools = _tools(tmp_path)
    params = {n: sorted(t.parameters_schema()["properties"]) for n, t in tools.items()}
    assert params["glob"] == ["path", "pattern", "summary"]
    assert params["grep"] == ["include", "path", "pattern", "summary"]
    plan = tmp_path / ".agents_tmp" / "PLAN.md"
    assert plan.read_text().startswith("# 1. GOAL")  # created with the section headers

    def call(name, **args):
        return tools[name].execute(tools[name].action_from_arguments(args))

    assert call("glob", pattern="**/*.py").text == str(tmp_path / "src" / "a.py")
    assert call("grep", pattern=r"scrape", include="*.py").text == str(tmp_path / "src" / "a.py")
    assert "No files" in call("grep", pattern="nothing-here").text
    editor = tools["planning_file_editor"]
    refused = editor(FileEditorAction(command="create", path=str(tmp_path / "x.py"), file_text="x"))
    assert refused.is_error and not (tmp_path / "x.py").exists()
    edited = editor(
        FileEditorAction(
            command="str_replace",
            path=str(plan),
            old_str="# 1. GOAL\n",
            new_str="# 1. GOAL\nScrape.\n",
        )
    )
    assert not edited.is_error and plan.read_text().startswith("# 1. GOAL\nScrape.\n")
