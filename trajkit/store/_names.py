"""The names of a conversation folder's parts, for every module of `store/` that needs them.

`layout.py` (local folders, which also hands `s3://`/`gs://` paths to `remote.py`) and `remote.py`
(object storage) both spell these out; keeping them in this leaf module lets `layout` use `remote`
without `remote` importing `layout` back. Outside `store/`, import them from `store.layout`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

BASE_STATE = "base_state.json"
EVENTS_DIR = "events"
SUBAGENTS_DIR = "subagents"
"""Where a conversation keeps the conversations of the sub-agents it started."""
HEX_FOLDER_RE = re.compile(r"\A[0-9a-fA-F]{32}\Z")  # \Z: `$` also matches before a final newline
"""A conversation folder's name: the id's 32 hex digits (the JSON holds the dashed form)."""
V0_METADATA = "metadata.json"
"""Beside `events/`, the mark of an OpenHands V0 session (whose events are `0.json`, `1.json`)."""
_V0_EVENT_NAME_RE = re.compile(r"^\d+\.json$")


def v0_event_names(names: Iterable[str]) -> bool:
    """True when a listing of `events/` is a V0 session's: the first name that tells is a V0
    event file (`12.json`), not a V1 one (`event-…`).
    """
    for name in names:
        if name.startswith("event-"):
            return False
        if _V0_EVENT_NAME_RE.match(name):
            return True
    return False
