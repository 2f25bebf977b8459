"""Which conversations a command works on: `--status`, `--model`, `--since/--until`, `--tool`.

One definition for every command (`export` builds rows with it; `ls`, `stats`, `validate`,
`convert` and `view` pick conversation folders with it), so an option means the same thing
everywhere:

- `--status S`: `base_state.json`'s `execution_status` is one of the given ones;
- `--model M`: the agent's model is `M` exactly, or without its provider (`gpt-4o` for
  `openai/gpt-4o`), or matches `M` as a glob (`claude-*`);
- `--since T` / `--until T`: the first event's timestamp is at or after `T` / before `T` (naive
  times; a zoned time is compared in UTC);
- `--tool NAME`: the conversation called at least one of the given tools.

A field left empty lets everything through. A conversation that cannot be read well enough to
decide is kept, so the command reports what is wrong with it instead of hiding it.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["ConversationFilters", "filter_paths", "model_matches", "parse_timestamp"]


@dataclass(frozen=True)
class ConversationFilters:
    """Which conversations to keep; an empty field lets everything through."""

    statuses: tuple[str, ...] = ()
    """Execution statuses to keep (`finished`, `error`, ...)."""
    models: tuple[str, ...] = ()
    """Model names to keep: exact (`openai/gpt-4o`), without provider (`gpt-4o`), or a glob."""
    since: datetime | None = None
    """Keep conversations whose first event is at or after this (naive) time."""
    until: datetime | None = None
    """Keep conversations whose first event is before this time."""
    tools: tuple[str, ...] = ()
    """Keep conversations that called at least one of these tools."""

    def __bool__(self) -> bool:
        return bool(self.statuses or self.models or self.since or self.until or self.tools)

    def state_reason(self, status: str | None, model: str | None) -> str | None:
        """Why a conversation with this status and model is left out (None: it is kept)."""
        if self.statuses and status not in self.statuses:
            return f"status {status or 'unknown'} not in {', '.join(self.statuses)}"
        if self.models and not any(model_matches(model, m) for m in self.models):
            return f"model {model or 'unknown'} does not match {', '.join(self.models)}"
        return None

    def event_reason(self, created: datetime | None, tools_used: set[str]) -> str | None:
        """Why a conversation started at `created` that used `tools_used` is left out."""
        if self.since is not None and (created is None or created < self.since):
            return f"started {created or 'at an unknown time'}, before {self.since}"
        if self.until is not None and (created is None or created >= self.until):
            return f"started {created or 'at an unknown time'}, not before {self.until}"
        if self.tools and not tools_used.intersection(self.tools):
            return f"used none of the tools {', '.join(self.tools)}"
        return None


def model_matches(model: str | None, pattern: str) -> bool:
    """`pattern` names `model` exactly, without its provider prefix, or as a glob."""
    if not model:
        return False
    short = model.split("/", 1)[-1]
    return any(fnmatch.fnmatchcase(name, pattern) for name in (model, short))


def parse_timestamp(text: str | None) -> datetime | None:
    """An event timestamp as a naive datetime (zoned ones in UTC); None when absent or bad."""
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value


def filter_paths(
    paths: Iterable[Any], filters: ConversationFilters
) -> Iterator[tuple[Any, str | None]]:
    """Each conversation under `paths` with the reason it is left out (None: kept).

    Without filters the paths are given back as they are. With filters, each conversation the
    input registry finds (`trajkit.shapes.resolve_inputs`, any shape) is given with its reason;
    what it does not read is given back as a path, for the command to report under its policy.
    """
    import os

    from trajkit.shapes import SkippedInput, resolve_inputs

    for raw in paths:
        if not filters:
            yield raw, None
            continue
        for item in resolve_inputs([raw]):
            if isinstance(item, SkippedInput):
                yield (raw if item.path == os.fspath(raw) else item.path), None
            else:
                yield item, _reason(item, filters)


def _reason(folder: Path | Any, filters: ConversationFilters) -> str | None:
    from trajkit.errors import TrajkitError
    from trajkit.store import open_conversation

    try:
        conv = open_conversation(folder)
        header = conv.header()
        reason = filters.state_reason(header.execution_status, header.model)
        if reason or not (filters.since or filters.until or filters.tools):
            return reason
        tools: set[str] = set()
        if filters.tools:
            tools = _tools_used(conv)
        return filters.event_reason(parse_timestamp(header.first_timestamp), tools)
    except (TrajkitError, OSError, ValueError):
        return None  # unreadable: kept, so the command says what is wrong with it


def _tools_used(conv: Any) -> set[str]:
    import orjson

    used: set[str] = set()
    for event_file in conv.iter_event_files():
        try:
            data = orjson.loads(event_file.read_bytes())
        except (orjson.JSONDecodeError, OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("kind") == "ActionEvent":
            name = data.get("tool_name")
            if isinstance(name, str):
                used.add(name)
    return used


def describe(path: str | os.PathLike[str], reason: str) -> str:
    """The line a command prints (with `-v`) for a conversation left out by a filter."""
    return f"{os.fspath(path)}: filtered out ({reason})"
