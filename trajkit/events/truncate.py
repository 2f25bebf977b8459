"""Output truncation exactly as openhands-sdk 1.58.2 renders it (v1-rendering.md section 3).

Pure string functions: computing the saved-output path never writes the file.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import PurePosixPath

BASE_NOTICE = (
    "<response clipped><NOTE>Due to the max output limit, only part of the full response "
    "has been shown to you.</NOTE>"
)
PERSIST_NOTICE = (
    "<response clipped><NOTE>Due to the max output limit, only part of the full response "
    "has been shown to you. The complete output has been saved to {file_path} - you can use "
    "other tools to view the full content (truncated part starts around line {line_num}).</NOTE>"
)
MAX_CMD_OUTPUT_SIZE = 30000
"""Terminal text limit at format time (openhands-tools ``MAX_CMD_OUTPUT_SIZE``)."""
DEFAULT_TEXT_CONTENT_LIMIT = 50000
"""Cap applied to each tool-message text at serialization."""


def saved_output_path(content: str, save_dir: str, prefix: str) -> str:
    """Path of the file the SDK saves the full output to (``<prefix>_output_<sha8>.txt``)."""
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()[:8]
    return str(PurePosixPath(save_dir) / f"{prefix}_output_{digest}.txt")


def maybe_truncate(
    content: str,
    limit: int | None,
    *,
    notice: str = BASE_NOTICE,
    save_dir: str | None = None,
    prefix: str = "output",
) -> str:
    """Keep head and tail of ``content`` around a clipping notice, to exactly ``limit`` chars."""
    if not limit or limit < 0 or len(content) <= limit:
        return content
    if len(notice) >= limit:
        return notice[:limit]
    head0 = math.ceil((limit - len(notice)) / 2)
    final = notice
    if save_dir:
        path = saved_output_path(content, save_dir, prefix)
        line_num = len(content[:head0].splitlines()) + 1
        final = PERSIST_NOTICE.format(file_path=path, line_num=line_num)
    if len(final) >= limit:
        return final[:limit]
    rem = limit - len(final)
    head = min(head0, rem)
    tail = rem - head
    return content[:head] + final + (content[len(content) - tail :] if tail else "")
