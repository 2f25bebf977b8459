"""File editor tool payloads (openhands-tools ``file_editor``)."""

from __future__ import annotations

from typing import Literal

from trajkit.events.payloads.base import Action, Observation

FileEditorCommand = Literal["view", "create", "str_replace", "insert", "undo_edit"]


class FileEditorAction(Action):
    """View, create or edit a file."""

    command: FileEditorCommand
    """Editor command."""
    path: str
    """Absolute path to the file or folder."""
    file_text: str | None = None
    """Content for ``create``."""
    old_str: str | None = None
    """Text to replace for ``str_replace`` (must match once)."""
    new_str: str | None = None
    """Replacement for ``str_replace``, or the text for ``insert``."""
    insert_line: int | None = None
    """``insert`` puts ``new_str`` after this line."""
    view_range: list[int] | None = None
    """``view`` line range, 1-based, ``-1`` for the end."""
    kind: Literal["FileEditorAction"] = "FileEditorAction"
    """Payload class name."""


class FileEditorObservation(Observation):
    """Result of a file editor command; rendered from ``content`` only."""

    command: FileEditorCommand
    """The command that ran."""
    path: str | None = None
    """The path it ran on."""
    prev_exist: bool = True
    """Whether the file existed before."""
    old_content: str | None = None
    """File content before the edit."""
    new_content: str | None = None
    """File content after the edit."""
    kind: Literal["FileEditorObservation"] = "FileEditorObservation"
    """Payload class name."""
