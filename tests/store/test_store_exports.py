"""The store's public names are declared once, and importing it stays light."""

from __future__ import annotations

import subprocess
import sys

import trajkit.store
from tests.support.fixtures import REPO


def test_exported_names():
    assert sorted(trajkit.store.__all__) == [
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
    for name in trajkit.store.__all__:
        assert getattr(trajkit.store, name) is not None


def test_listing_and_headers_do_not_import_pydantic_or_litellm():
    code = (
        "import sys\n"
        "from trajkit.store import find_conversations, open_conversation\n"
        "from tests.support.fixtures import SDK_FIXTURES\n"
        "hs = [open_conversation(f).header() for f in find_conversations([SDK_FIXTURES])]\n"
        "assert len(hs) == 8 and all(h.n_events for h in hs)\n"
        "print(sorted(m for m in ('pydantic', 'litellm', 'trajkit.events') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert out.stdout.strip() == "[]"
