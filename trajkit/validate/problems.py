"""Problem records: what `validate` finds, as values (finding problems is its job, not an error).

A `Problem` names the file, an RFC 6901 JSON pointer inside it ("" for the whole file or
folder), a message saying what was expected and what was found, and a severity. Only the CLI
turns them into text (`format()`), JSON (`to_json()`), a summary and an exit code.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from trajkit.controls import visible_controls

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong (error) or suspicious (warning) in a file or folder."""

    path: Path
    """The file or folder the problem is in."""
    pointer: str
    """JSON pointer inside the file; "" when it concerns the whole file or folder."""
    message: str
    """What was expected and what was found."""
    severity: Severity = "error"
    """`error` makes `validate` fail; `warning` does too under `--strict`."""
    code: str = field(default="", compare=False)
    """A short stable tag for the check (`json`, `schema`, `index-gap`, …) for machine readers."""

    def format(self, path_text: str | None = None) -> str:
        """`file:pointer: message`, or `file: message` for whole-file problems."""
        where = path_text if path_text is not None else os.fspath(self.path)
        prefix = f"{where}:{self.pointer}" if self.pointer else where
        tag = "" if self.severity == "error" else "warning: "
        # one problem, one line: a newline or escape in a file name cannot forge another
        return visible_controls(f"{prefix}: {tag}{self.message}", keep_layout=False)

    def to_json(self, path_text: str | None = None) -> dict[str, str]:
        """A plain dict for JSON reports."""
        return {
            "path": path_text if path_text is not None else os.fspath(self.path),
            "pointer": self.pointer,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
        }

    def promoted(self) -> Problem:
        """This problem as an error (what `--strict` does to warnings)."""
        if self.severity == "error":
            return self
        return Problem(self.path, self.pointer, self.message, "error", self.code)


def error(path: Path, pointer: str, message: str, code: str) -> Problem:
    """An error record."""
    return Problem(path, pointer, message, "error", code)


def warning(path: Path, pointer: str, message: str, code: str) -> Problem:
    """A warning record."""
    return Problem(path, pointer, message, "warning", code)


__all__ = ["Problem", "Severity", "error", "warning"]
