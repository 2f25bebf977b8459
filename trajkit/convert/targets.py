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

__all__ = ["OTHER_TARGETS", "opened", "prepared", "write_target"]

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


def opened(conversation: Any, *, keep_invalid: bool) -> tuple[Any, list[str]]:
    """`(the conversation opened, validate's errors)`; raises `TrajkitError` (the first error)
    when it is invalid, unless `keep_invalid`. One in memory is checked as it is.
    """
    from trajkit.errors import TrajkitError
    from trajkit.shapes.memory import MemoryConversation
    from trajkit.store import StoredConversation, open_conversation
    from trajkit.validate.verdict import conversation_errors, invalid_reason, opened_errors

    given = conversation
    conv = given if isinstance(given, StoredConversation) else open_conversation(given)
    if isinstance(conv, MemoryConversation):
        errors = opened_errors(conv, conv.label)
    else:
        errors = conversation_errors(conv.path if isinstance(given, StoredConversation) else given)
    if errors and not keep_invalid:
        raise TrajkitError(invalid_reason(errors))
    return conv, errors


def prepared(conv: Any, options: ConversionOptions) -> tuple[Any, Any]:
    """`(base state, prepare_messages of the conversation)`; broken parent links raise the
    `InputError` `convert_conversation` raises (file and pointer).
    """
    from trajkit.convert.conversation import branch_input_error, prepare_messages
    from trajkit.convert.view import BranchError

    state = conv.base_state()
    events = list(conv.iter_events(skip_empty=True))
    try:
        return state, prepare_messages(events, state=state, options=options)
    except BranchError as exc:
        raise branch_input_error(
            exc, events, base_state_path=conv.base_state_path, files=conv.event_files()
        ) from None
