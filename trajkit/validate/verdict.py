"""Is a conversation valid? The one answer `validate`, `convert` and `export` share.

`convert` and `export` call `conversation_errors()` before they read a conversation for their
own work, so a conversation `trajkit validate` rejects is rejected by them too, with the same
first message: skipped with its reason, or kept with `--keep-invalid` and its problems recorded
(in `convert`'s warnings and in the export row's `problems`). Warnings (unknown kinds, stray
files) never make a conversation invalid, as in `validate` without `--strict`.

One kind of error is left to the command: a secret in clear (`code == "secret"`). The structure
is sound, and what to do is each command's job: export masks the value in every column
(`trajkit.redact`), convert's payloads carry no credentials; skipping the conversation would
only lose it.
"""

from __future__ import annotations

import os

__all__ = ["conversation_errors", "invalid_reason"]


def conversation_errors(folder: str | os.PathLike[str]) -> list[str]:
    """The errors `trajkit validate` reports for this conversation folder, formatted; [] if valid."""
    from pathlib import Path

    from trajkit.validate.conversation import validate_conversation

    path = folder if not isinstance(folder, str) else Path(folder)
    report = validate_conversation(path)  # type: ignore[arg-type]
    return [p.format() for p in report.problems if p.severity == "error" and p.code != "secret"]


def invalid_reason(errors: list[str]) -> str:
    """One line for a skipped invalid conversation: its first error and how many more."""
    more = len(errors) - 1
    tail = f" (and {more} more problem(s): trajkit validate lists them)" if more else ""
    return f"{errors[0]}{tail}; invalid, skipped (--keep-invalid keeps it)"
