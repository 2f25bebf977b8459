"""The names of a conversation folder's parts, for every module of `store/` that needs them.

`layout.py` (local folders, which also hands `s3://`/`gs://` paths to `remote.py`) and `remote.py`
(object storage) both spell these out; keeping them in this leaf module lets `layout` use `remote`
without `remote` importing `layout` back. Outside `store/`, import them from `store.layout`.
"""

from __future__ import annotations

import re

BASE_STATE = "base_state.json"
EVENTS_DIR = "events"
SUBAGENTS_DIR = "subagents"
"""Where a conversation keeps the conversations of the sub-agents it started."""
HEX_FOLDER_RE = re.compile(r"\A[0-9a-fA-F]{32}\Z")  # \Z: `$` also matches before a final newline
"""A conversation folder's name: the id's 32 hex digits (the JSON holds the dashed form)."""
