"""``FileEditorTool``: view, create, str_replace, insert and undo_edit, as the SDK's ``file_editor``.

Observations carry the editor's message as ``content``; errors are observations with
``is_error`` set and the message as content, as the SDK stores them. ``old_content`` and
``new_content`` record the file before and after an edit.
"""

from __future__ import annotations

import os
from typing import Any

from trajkit.events import (
    Action,
    FileEditorAction,
    FileEditorObservation,
    ImageContent,
    TextContent,
)
from trajkit.sdk.tool import RuntimeTool, ToolContext, register_tool
from trajkit.tools.file_editor.editor import FileEditor

__all__ = ["FileEditorTool"]

DESCRIPTION = """Views, creates and edits files; the editor remembers earlier versions so an edit can be undone.

Commands:
* `view`: for a file, its lines numbered like `cat -n` (use `view_range` for part of a long file);
  for a directory, the files and folders in it up to two levels deep, hidden ones left out;
  for an image (`.png`, `.jpg`, `.jpeg`, `.gif`, `.webp`, `.bmp`), the image itself, when the
  model accepts images.
  Very long results are cut and marked `<response clipped>`: search with `grep -n` and view the
  lines you need.
* `create`: writes `file_text` to a new file. It refuses to overwrite a file that exists; edit
  that one instead.
* `str_replace`: replaces `old_str` with `new_str`. `old_str` must appear exactly once in the
  file, character for character, whitespace and indentation included; otherwise nothing is
  changed and you are told why. Give enough surrounding lines (typically three to five) to make
  it unique. An empty or missing `new_str` deletes the text.
* `insert`: inserts `new_str` after line `insert_line` (0 puts it at the top).
* `undo_edit`: restores the file as it was before your last edit to it.

Good practice:
* Paths are absolute (they start with `/`).
* View a file before you edit it, and check that the folder exists before you create a file.
* Keep every edit correct on its own: idiomatic code, nothing left half-changed or broken.
* Several edits to one file: send them as several calls in the same response rather than one
  call per response.
* Text files and images only; use the terminal for other binary files.

Your current working directory is: {cwd}
Start exploring the project from there, not from the root of the file system."""

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

    def resource_key(self, action: Action | None) -> str | None:
        """Edits of one file take turns; different files may be edited at once."""
        path = getattr(action, "path", None)
        return f"file_editor:{os.path.abspath(path)}" if isinstance(path, str) else self.name

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
        content: list[TextContent | ImageContent] = [TextContent(text=r.text)]
        if r.image_url is not None:
            content.append(ImageContent(image_urls=[r.image_url]))
        return FileEditorObservation(
            content=content,
            is_error=r.error is not None,
            command=action.command,
            path=r.path,
            prev_exist=r.prev_exist,
            old_content=r.old_content,
            new_content=r.new_content,
        )
