"""The formats of other ecosystems `convert` writes, each by its own module (`--to atif`,
`--to anthropic`): a small registry beside the Chat Completions / Responses pipeline.

Each writer takes one conversation and an output, validates the conversation (as `convert`
does), writes one document (indented, or one compact line for JSONL) and returns
`(validate's errors kept with keep_invalid, warnings)`.
"""

from __future__ import annotations

import importlib
import os
from typing import IO, Any

from trajkit.convert.options import ConversionOptions

__all__ = ["OTHER_TARGETS", "write_target"]

OTHER_TARGETS: dict[str, str] = {
    "atif": "trajkit.convert.atif:write_atif",
    "anthropic": "trajkit.convert.anthropic:write_anthropic",
}
"""Target name -> `module:function` (loaded on first use)."""


def write_target(
    to: str,
    conversation: str | os.PathLike[str] | Any,
    out: IO[bytes],
    *,
    options: ConversionOptions,
    keep_invalid: bool = False,
    line: bool = False,
) -> tuple[list[str], list[str]]:
    """Write `conversation` as `to` (a key of `OTHER_TARGETS`) to `out`."""
    module, _, name = OTHER_TARGETS[to].partition(":")
    writer = getattr(importlib.import_module(module), name)
    result: tuple[list[str], list[str]] = writer(
        conversation, out, options=options, keep_invalid=keep_invalid, line=line
    )
    return result
