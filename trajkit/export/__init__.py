"""Export conversations to Parquet datasets: `conversations/` and `events/` tables.

`export_dataset()` runs a whole export; `conversation_rows()` is the per-conversation job
(pure: a location in, rows out), usable on any executor; `arrow_schema` holds the stable schemas.
"""

from trajkit.export.dataset import TABLES, ExportInterrupted, ExportReport, export_dataset
from trajkit.export.rows import (
    ConversationRows,
    Filtered,
    RowOptions,
    Skipped,
    Unchanged,
    conversation_rows,
)

__all__ = [
    "TABLES",
    "ConversationRows",
    "ExportInterrupted",
    "ExportReport",
    "Filtered",
    "RowOptions",
    "Skipped",
    "Unchanged",
    "conversation_rows",
    "export_dataset",
]
