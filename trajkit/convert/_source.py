"""The conversation a writer of another format converts: opened and checked (`opened`), and
its messages prepared as `convert` prepares them (`prepared`). Kept apart from the registry
(`trajkit.convert.targets`), which `convert_conversation` imports.
"""

from __future__ import annotations

from typing import Any

from trajkit.convert.options import ConversionOptions

__all__ = ["opened", "prepared"]


def opened(conversation: Any, *, keep_invalid: bool) -> tuple[Any, list[str]]:
    """`(the conversation opened, validate's errors)`; raises `TrajkitError` (the first error)
    when it is invalid, unless `keep_invalid`. One in memory is checked as it is.
    """
    from trajkit.errors import TrajkitError
    from trajkit.shapes.memory import MemoryConversation
    from trajkit.store import StoredConversation, open_conversation
    from trajkit.validate.verdict import conversation_errors, invalid_reason

    given = conversation
    conv = given if isinstance(given, StoredConversation) else open_conversation(given)
    if isinstance(conv, MemoryConversation):
        errors = conversation_errors(conv)  # checked as it is, in memory
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
