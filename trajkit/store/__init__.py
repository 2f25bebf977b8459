"""The store: the only code that knows file names and writes into a conversation or output folder.

- `layout`: event file names, sidecars, `<uuid hex>/` folders, `find_conversations()`.
- `atomic`: `atomic_write()`/`atomic_writer()` (temp, fsync, rename, fsync folder; the temp file
  next to the target or in a chosen staging folder), `staged_folder()` + `write_new_file()` (a
  whole folder published in one rename), `move_file()`, `make_folder()` (a folder trajkit
  writes into), and `conversation_lock()`.
- `scan`: the one listing of `events/` and the one reading pass over a folder (each file's
  bytes and event, or why not), which `validate`, `convert`, `export` and the reader share.
- `reader`: `open_conversation()` -> `StoredConversation` (streaming reads, cheap `header()`).
- `writer`: `ConversationWriter` (`create()`, `append(event)`, `save_base_state(state)`).
- `location`: one interface to local paths and object storage (`remote`: `s3://`, `gs://`).
"""

from trajkit.store.atomic import atomic_write, atomic_writer, conversation_lock
from trajkit.store.layout import (
    event_file_name,
    find_conversations,
    folder_name,
    parse_event_file_name,
)
from trajkit.store.reader import (
    ConversationHeader,
    EventFile,
    StoredConversation,
    open_conversation,
    read_file_bytes,
)
from trajkit.store.writer import ConversationWriter

__all__ = [
    "ConversationHeader",
    "ConversationWriter",
    "EventFile",
    "StoredConversation",
    "atomic_write",
    "atomic_writer",
    "conversation_lock",
    "event_file_name",
    "find_conversations",
    "folder_name",
    "open_conversation",
    "parse_event_file_name",
    "read_file_bytes",
]
