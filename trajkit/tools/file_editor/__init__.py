"""The ``file_editor`` tool: view, create, str_replace, insert, undo_edit."""

from trajkit.tools.file_editor.definition import FileEditorTool
from trajkit.tools.file_editor.editor import EditResult, FileEditor

__all__ = ["EditResult", "FileEditor", "FileEditorTool"]
