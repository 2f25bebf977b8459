"""`trajkit validate`'s library: check conversations and event files, yielding problem records.

- `problems.py`: the `Problem` record (path, JSON pointer, message, severity).
- `files.py`: one file at a time (size, UTF-8, JSON, object, JSON Schema, model).
- `conversation.py`: across the files of one conversation (indices, ids, tree, pairing,
  base state, secrets).
- `corpus.py`: what the user named (folders of many conversations, single files), on two
  processes, one report per conversation.

Nothing here prints or modifies a file.
"""

from trajkit.validate.conversation import (
    ConversationReport,
    iter_conversation_problems,
    validate_conversation,
    validate_file,
)
from trajkit.validate.corpus import Summary, iter_targets, validate_paths
from trajkit.validate.files import MAX_FILE_BYTES, check_base_state_file, check_event_file
from trajkit.validate.problems import Problem, Severity

__all__ = [
    "MAX_FILE_BYTES",
    "ConversationReport",
    "Problem",
    "Severity",
    "Summary",
    "check_base_state_file",
    "check_event_file",
    "iter_conversation_problems",
    "iter_targets",
    "validate_conversation",
    "validate_file",
    "validate_paths",
]
