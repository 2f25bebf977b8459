"""The file editor's logic: view, create, str_replace, insert, undo_edit on real files.

Messages follow openhands-tools' ``file_editor`` word for word where the fixtures show them
(``cat -n`` views, the edit snippets), so an LLM sees the same text from trajkit and the SDK.
Each call returns an `EditResult`; errors are results too (``error`` set), never exceptions,
because the LLM has to read them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["EditResult", "FileEditor"]

SNIPPET_CONTEXT_WINDOW = 4
MAX_VIEW_CHARS = 16000
FILE_CLIPPED_NOTICE = (
    "<response clipped><NOTE>Due to the max output limit, only part of this file has been shown "
    "to you. You should retry this tool after you have searched inside the file with `grep -n` "
    "in order to find the line numbers of what you are looking for.</NOTE>"
)
DIR_CLIPPED_NOTICE = (
    "<response clipped><NOTE>Due to the max output limit, only part of this directory has been "
    "shown to you. You should use `view_range` or narrower paths.</NOTE>"
)
MAX_FILE_BYTES = 10 * 1024 * 1024
IMAGE_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"})
"""Files ``view`` returns as an image (as openhands-tools does), not as text."""


def _view_image(p: Path) -> EditResult:
    """The SDK's image view: a notice and the file as a base64 ``data:`` URL."""
    import base64
    import mimetypes

    if p.stat().st_size > MAX_FILE_BYTES:
        return _err(p, f"Image file {p} is too large to display ({p.stat().st_size} bytes).")
    data = base64.b64encode(p.read_bytes()).decode("ascii")
    mime, _ = mimetypes.guess_type(str(p))
    if not mime or not mime.startswith("image/"):
        mime = "image/png"
    return EditResult(
        output=f"Image file {p} read successfully. Displaying image content.",
        path=str(p),
        image_url=f"data:{mime};base64,{data}",
    )


@dataclass
class EditResult:
    """Outcome of one editor command."""

    output: str = ""
    error: str | None = None
    path: str | None = None
    prev_exist: bool = True
    old_content: str | None = None
    new_content: str | None = None
    image_url: str | None = None
    """``data:`` URL of an image file shown by ``view``."""

    @property
    def text(self) -> str:
        return self.error if self.error is not None else self.output


@dataclass
class FileEditor:
    """Stateful editor: remembers previous contents of edited files for ``undo_edit``."""

    working_dir: str | None = None
    history: dict[str, list[str]] = field(default_factory=dict)

    def __call__(
        self,
        command: str,
        path: str,
        *,
        file_text: str | None = None,
        old_str: str | None = None,
        new_str: str | None = None,
        insert_line: int | None = None,
        view_range: list[int] | None = None,
    ) -> EditResult:
        problem = self._check_path(command, path)
        if problem is not None:
            return EditResult(error=problem, path=path, prev_exist=os.path.exists(path))
        p = Path(path)
        try:
            if command == "view":
                return self.view(p, view_range)
            if command == "create":
                if file_text is None:
                    return _err(p, "Parameter `file_text` is required for command: create.")
                return self.create(p, file_text)
            if command == "str_replace":
                if old_str is None:
                    return _err(p, "Parameter `old_str` is required for command: str_replace.")
                return self.str_replace(p, old_str, new_str or "")
            if command == "insert":
                if insert_line is None:
                    return _err(p, "Parameter `insert_line` is required for command: insert.")
                if new_str is None:
                    return _err(p, "Parameter `new_str` is required for command: insert.")
                return self.insert(p, insert_line, new_str)
            if command == "undo_edit":
                return self.undo_edit(p)
        except (OSError, UnicodeDecodeError) as e:
            return _err(p, f"Ran into {type(e).__name__}: {e} while running `{command}` on {p}.")
        return _err(
            p,
            f"Unrecognized command {command}. The allowed commands for the file_editor tool are: "
            "`view`, `create`, `str_replace`, `insert`, `undo_edit`",
        )

    # -- checks ----------------------------------------------------------------------
    def _check_path(self, command: str, path: str) -> str | None:
        p = Path(path)
        if not p.is_absolute():
            hint = ""
            if self.working_dir:
                hint = f" Maybe you meant {Path(self.working_dir) / path}?"
            return (
                f"Invalid `path` parameter: {path}. The path should be an absolute path, "
                f"starting with `/`.{hint}"
            )
        if command == "create":
            if p.is_dir():
                return (
                    f"Invalid `path` parameter: {path}. The path {path} is a directory and only "
                    "the `view` command can be used on directories."
                )
            if p.exists():
                return (
                    f"Invalid `path` parameter: {path}. File already exists at: {path}. "
                    "Cannot overwrite files using command `create`."
                )
            return None
        if not p.exists():
            return (
                f"Invalid `path` parameter: {path}. The path {path} does not exist. "
                "Please provide a valid path."
            )
        if p.is_dir() and command != "view":
            return (
                f"Invalid `path` parameter: {path}. The path {path} is a directory and only the "
                "`view` command can be used on directories."
            )
        return None

    # -- commands --------------------------------------------------------------------
    def view(self, p: Path, view_range: list[int] | None) -> EditResult:
        if p.is_dir():
            if view_range:
                return _err(
                    p,
                    "The `view_range` parameter is not allowed when `path` points to a directory.",
                )
            return EditResult(output=_view_dir(p), path=str(p))
        if p.suffix.lower() in IMAGE_EXTENSIONS:
            return _view_image(p)
        text = _read(p)
        if not view_range:
            return EditResult(output=_make_output(text, str(p), 1), path=str(p))
        lines = (text[:-1] if text.endswith("\n") else text).split("\n")
        n = len(lines)
        if len(view_range) != 2 or not all(isinstance(i, int) for i in view_range):
            return _err(p, "Invalid `view_range` parameter: it should be a list of two integers.")
        start, end = view_range
        if start < 1 or start > n:
            return _err(
                p,
                f"Invalid `view_range` parameter: {view_range}. Its first element `{start}` "
                f"should be within the range of lines of the file: [1, {n}].",
            )
        if end != -1 and (end < start or end > n):
            return _err(
                p,
                f"Invalid `view_range` parameter: {view_range}. Its second element `{end}` "
                f"should be -1 or within [{start}, {n}].",
            )
        chosen = lines[start - 1 :] if end == -1 else lines[start - 1 : end]
        return EditResult(output=_make_output("\n".join(chosen), str(p), start), path=str(p))

    def create(self, p: Path, file_text: str) -> EditResult:
        p.parent.mkdir(parents=True, exist_ok=True)
        _write(p, file_text)
        self.history.setdefault(str(p), [])
        return EditResult(
            output=f"File created successfully at: {p}",
            path=str(p),
            prev_exist=False,
            new_content=file_text,
        )

    def str_replace(self, p: Path, old_str: str, new_str: str) -> EditResult:
        content = _read(p)
        if old_str == new_str:
            return _err(
                p, "No replacement was performed. `new_str` and `old_str` must be different."
            )
        count = content.count(old_str)
        if count == 0:
            return _err(
                p,
                f"No replacement was performed, old_str `{old_str}` did not appear verbatim "
                f"in {p}.",
            )
        if count > 1:
            lines = _occurrence_lines(content, old_str)
            return _err(
                p,
                f"No replacement was performed. Multiple occurrences of old_str `{old_str}` in "
                f"lines {lines}. Please ensure it is unique.",
            )
        new_content = content.replace(old_str, new_str, 1)
        self.history.setdefault(str(p), []).append(content)
        _write(p, new_content)
        line = content.split(old_str)[0].count("\n")
        start = max(0, line - SNIPPET_CONTEXT_WINDOW)
        end = line + SNIPPET_CONTEXT_WINDOW + new_str.count("\n")
        snippet = "\n".join(new_content.split("\n")[start : end + 1])
        out = (
            f"The file {p} has been edited. "
            + _make_output(snippet, f"a snippet of {p}", start + 1)
            + "Review the changes and make sure they are as expected. Edit the file again if "
            "necessary."
        )
        return EditResult(output=out, path=str(p), old_content=content, new_content=new_content)

    def insert(self, p: Path, insert_line: int, new_str: str) -> EditResult:
        content = _read(p)
        lines = content.split("\n")
        if content.endswith("\n"):
            lines = lines[:-1]
        n = len(lines)
        if insert_line < 0 or insert_line > n:
            return _err(
                p,
                f"Invalid `insert_line` parameter: {insert_line}. It should be within the range "
                f"of allowed values: [0, {n}]",
            )
        new_lines = new_str.split("\n")
        merged = lines[:insert_line] + new_lines + lines[insert_line:]
        new_content = "\n".join(merged) + ("\n" if content.endswith("\n") or not content else "")
        self.history.setdefault(str(p), []).append(content)
        _write(p, new_content)
        start = max(0, insert_line - SNIPPET_CONTEXT_WINDOW)
        snippet_lines = (
            lines[start:insert_line]
            + new_lines
            + lines[insert_line : insert_line + SNIPPET_CONTEXT_WINDOW]
        )
        out = (
            f"The file {p} has been edited. "
            + _make_output("\n".join(snippet_lines), "a snippet of the edited file", start + 1)
            + "Review the changes and make sure they are as expected (correct indentation, no "
            "duplicate lines, etc). Edit the file again if necessary."
        )
        return EditResult(output=out, path=str(p), old_content=content, new_content=new_content)

    def undo_edit(self, p: Path) -> EditResult:
        stack = self.history.get(str(p))
        if not stack:
            return _err(p, f"No edit history found for {p}.")
        current = _read(p)
        previous = stack.pop()
        _write(p, previous)
        out = f"Last edit to {p} undone successfully. " + _make_output(previous, str(p), 1)
        return EditResult(output=out, path=str(p), old_content=current, new_content=previous)


def _err(p: Path, message: str) -> EditResult:
    return EditResult(error=message, path=str(p), prev_exist=p.exists())


def _read(p: Path) -> str:
    if p.stat().st_size > MAX_FILE_BYTES:
        raise OSError(f"file is larger than {MAX_FILE_BYTES} bytes")
    with open(p, encoding="utf-8", newline="") as f:
        return f.read()


def _write(p: Path, text: str) -> None:
    with open(p, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def _make_output(content: str, description: str, start_line: int) -> str:
    if len(content) > MAX_VIEW_CHARS:
        content = content[:MAX_VIEW_CHARS] + FILE_CLIPPED_NOTICE
    if content.endswith("\n"):
        content = content[:-1]
    numbered = "\n".join(
        f"{i + start_line:6}\t{line}" for i, line in enumerate(content.expandtabs().split("\n"))
    )
    return f"Here's the result of running `cat -n` on {description}:\n{numbered}\n"


def _occurrence_lines(content: str, old_str: str) -> list[int]:
    lines: list[int] = []
    pos = content.find(old_str)
    while pos >= 0:
        line = content.count("\n", 0, pos) + 1
        if line not in lines:
            lines.append(line)
        pos = content.find(old_str, pos + 1)
    return lines


def _view_dir(p: Path) -> str:
    entries: list[str] = [f"{p}/"]
    for child in sorted(p.iterdir()):
        if child.name.startswith("."):
            continue
        entries.append(f"{child}/" if child.is_dir() else str(child))
        if child.is_dir():
            try:
                grand = sorted(child.iterdir())
            except OSError:
                continue
            for g in grand:
                if not g.name.startswith("."):
                    entries.append(f"{g}/" if g.is_dir() else str(g))
    body = "\n".join(entries)
    if len(body) > MAX_VIEW_CHARS:
        body = body[:MAX_VIEW_CHARS] + DIR_CLIPPED_NOTICE
    return (
        f"Here's the files and directories up to 2 levels deep in {p}, excluding hidden "
        f"items:\n{body}\n"
    )
