"""``FileEditorTool``: view, create, str_replace, insert and undo_edit, as the SDK's ``file_editor``.

Observations carry the editor's message as ``content``; errors are observations with
``is_error`` set and the message as content, as the SDK stores them. ``old_content`` and
``new_content`` record the file before and after an edit.
"""

from __future__ import annotations

import os

from trajkit.convert.tools import BUILTIN_PARAMETERS
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
    parameters = BUILTIN_PARAMETERS["FileEditorAction"]

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
