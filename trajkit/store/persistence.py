"""Where the runtime keeps a conversation, and what it reads back to restore one.

A runtime conversation lives in ``<persistence_dir>/<id hex>/`` (the SDK's layout). This module
says which folder that is and reads its ``base_state.json`` for a restore; the runtime
(`trajkit.sdk.conversation`) decides nothing about paths or bytes itself:

- `persistence_base`: ``persistence_dir`` as a folder. A NUL character is refused, and so is a
  relative path that climbs out of the current directory (``../x``: pass an absolute path if
  that folder is really meant).
- `conversation_folder`: ``<base>/<id hex>``; a folder that is a link leading outside ``base``
  is refused, and so is a ``base_state.json`` or ``events/`` linking outside the folder
  (nothing is read or written through them).
- `read_state_object`: ``base_state.json`` as a JSON object, through the store's one reader of
  it (guards: a FIFO or device is never read, a document with more values than the budget is
  refused before parsing; older SDKs' field names upgraded); None when the file is missing or
  empty, the SDK's "new conversation". A bad file is an `InputError` naming it.
- `read_events`: the events already in the folder, in log order.

The process lock that keeps one live writer per conversation is `trajkit.store.writer_lock`.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from trajkit.errors import UnsafePath
from trajkit.events import Event
from trajkit.store.guard import refuse_outside_links
from trajkit.store.layout import EVENTS_DIR, folder_name
from trajkit.store.reader import StoredConversation, open_conversation

__all__ = ["conversation_folder", "persistence_base", "read_events", "read_state_object"]


def persistence_base(persistence_dir: str | os.PathLike[str]) -> Path:
    """The folder conversations are kept in (absolute; see the module docstring)."""
    raw = os.fspath(persistence_dir)
    if "\x00" in raw:
        raise UnsafePath(raw, "", "persistence_dir contains a NUL character")
    path = Path(raw).expanduser()
    if path.is_absolute():
        return path
    normalized = os.path.normpath(raw)
    if normalized == ".." or normalized.startswith(".." + os.sep):
        raise UnsafePath(
            raw,
            "",
            "persistence_dir climbs out of the current directory; pass an absolute path "
            "if that folder is really meant",
        )
    return Path.cwd() / normalized


def conversation_folder(base: Path, conversation_id: uuid.UUID) -> Path:
    """``<base>/<id hex>``, refused when it (or its state or events) links outside."""
    folder = base / folder_name(conversation_id)
    if folder.exists() or folder.is_symlink():
        real = folder.resolve()
        if real.parent != base.resolve():
            raise UnsafePath(
                folder, "", f"the conversation folder leads outside {base} (to {real}); refusing it"
            )
    refuse_outside_links(folder)
    return folder


def read_state_object(folder: Path) -> dict[str, Any] | None:
    """``base_state.json`` of ``folder`` as a JSON object (older SDKs' field names upgraded),
    or None when missing or empty; read by the store's one reader
    (`StoredConversation.read_base_state`), so a bad file is worded as everywhere else.
    """
    refuse_outside_links(folder)
    data, _ = StoredConversation(folder).read_base_state()
    return data


def read_events(folder: Path) -> list[Event]:
    """The events of ``folder`` in log order (empty files skipped, as the SDK skips them);
    none when it has no ``events/`` yet.
    """
    if not (folder / EVENTS_DIR).is_dir():
        return []
    return list(open_conversation(folder).iter_events(skip_empty=True))
