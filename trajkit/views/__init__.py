"""Views of conversations for people: `ls` rows, `stats` summaries, the terminal transcript
and the self-contained HTML report.

- `load`: read one conversation for viewing (V1 folder, or V0 migrated in memory).
- `entries`: one display `Entry` per event, shared by both renderers.
- `summary`: data for `ls` and `stats` (no printing).
- `tables`: `ls` lines and `stats` tables; `terminal`: `inspect` (rich); `html`: `view`.

Importing this package loads neither rich nor pygments; the renderers import them.
"""

from trajkit.views.load import Broken, LoadedConversation, load_conversation
from trajkit.views.summary import (
    ConversationRow,
    ConversationStats,
    CorpusStats,
    conversation_stats,
    iter_rows,
)

__all__ = [
    "Broken",
    "ConversationRow",
    "ConversationStats",
    "CorpusStats",
    "LoadedConversation",
    "conversation_stats",
    "iter_rows",
    "load_conversation",
]
