"""``FileEditorTool``: view, create, str_replace, insert and undo_edit, as the SDK's ``file_editor``.

Observations carry the editor's message as ``content``; errors are observations with
``is_error`` set and the message as content, as the SDK stores them. ``old_content`` and
``new_content`` record the file before and after an edit.
"""

from __future__ import annotations

from typing import Any

from trajkit.events import Action, FileEditorAction, FileEditorObservation, TextContent
from trajkit.sdk.tool import RuntimeTool, ToolContext, register_tool
from trajkit.tools.file_editor.editor import FileEditor

__all__ = ["FileEditorTool"]

DESCRIPTION = """Custom editing tool for viewing, creating and editing files in plain-text format
* State is persistent across command calls and discussions with the user
* If `path` is a text file, `view` displays the result of applying `cat -n`. If `path` is a directory, `view` lists non-hidden files and directories up to 2 levels deep
* The `create` command cannot be used if the specified `path` already exists as a file
* If a `command` generates a long output, it will be truncated and marked with `<response clipped>`
* The `undo_edit` command will revert the last edit made to the file at `path`
* This tool can be used for creating and editing files in plain-text format.


Before using this tool:
1. Use the view tool to understand the file's contents and context
2. Verify the directory path is correct (only applicable when creating new files):
   - Use the view tool to verify the parent directory exists and is the correct location

When making edits:
   - Ensure the edit results in idiomatic, correct code
   - Do not leave the code in a broken state
   - Always use absolute file paths (starting with /)

CRITICAL REQUIREMENTS FOR USING THIS TOOL:

1. EXACT MATCHING: The `old_str` parameter must match EXACTLY one or more consecutive lines from the file, including all whitespace and indentation. The tool will fail if `old_str` matches multiple locations or doesn't match exactly with the file content.

2. UNIQUENESS: The `old_str` must uniquely identify a single instance in the file:
   - Include sufficient context before and after the change point (3-5 lines recommended)
   - If not unique, the replacement will not be performed

3. REPLACEMENT: The `new_str` parameter should contain the edited lines that replace the `old_str`. Both strings must be different.

Remember: when making multiple file edits in a row to the same file, you should prefer to send all edits in a single message with multiple calls to this tool, rather than multiple messages with a single call each.


Your current working directory is: {cwd}
When exploring project structure, start with this directory instead of the root filesystem."""

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {
            "type": "string",
            "description": "The commands to run. Allowed options are: `view`, `create`, "
            "`str_replace`, `insert`, `undo_edit`.",
            "enum": ["view", "create", "str_replace", "insert", "undo_edit"],
        },
        "path": {"type": "string", "description": "Absolute path to file or directory."},
        "file_text": {
            "type": "string",
            "description": "Required parameter of `create` command, with the content of the "
            "file to be created.",
        },
        "old_str": {
            "type": "string",
            "description": "Required parameter of `str_replace` command containing the string "
            "in `path` to replace.",
        },
        "new_str": {
            "type": "string",
            "description": "Optional parameter of `str_replace` command containing the new "
            "string (if not given, no string will be added). Required parameter of `insert` "
            "command containing the string to insert.",
        },
        "insert_line": {
            "type": "integer",
            "description": "Required parameter of `insert` command. The `new_str` will be "
            "inserted AFTER the line `insert_line` of `path`.",
        },
        "view_range": {
            "type": "array",
            "items": {"type": "integer"},
            "description": "Optional parameter of `view` command when `path` points to a file. "
            "If none is given, the full file is shown. If provided, the file will be shown in "
            "the indicated line number range, e.g. [11, 12] will show lines 11 and 12. Indexing "
            "at 1 to start. Setting `[start_line, -1]` shows all lines from `start_line` to the "
            "end of the file.",
        },
    },
    "required": ["command", "path"],
}


@register_tool
class FileEditorTool(RuntimeTool):
    """Views and edits files; remembers earlier contents for ``undo_edit``."""

    name = "file_editor"
    action_type = FileEditorAction
    observation_type = FileEditorObservation
    annotations = {
        "title": "file_editor",
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": False,
    }
    parameters = PARAMETERS

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.description = DESCRIPTION.format(cwd=ctx.working_dir)
        self.editor = FileEditor(ctx.working_dir)

    def __call__(self, action: Action) -> FileEditorObservation:
        assert isinstance(action, FileEditorAction)
        r = self.editor(
            action.command,
            action.path,
            file_text=action.file_text,
            old_str=action.old_str,
            new_str=action.new_str,
            insert_line=action.insert_line,
            view_range=action.view_range,
        )
        return FileEditorObservation(
            content=[TextContent(text=r.text)],
            is_error=r.error is not None,
            command=action.command,
            path=r.path,
            prev_exist=r.prev_exist,
            old_content=r.old_content,
            new_content=r.new_content,
        )
