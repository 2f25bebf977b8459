"""Checks across the files of one conversation folder.

Per file (see `files.py`), then across files (`crossfile.py`: indices, ids, parents, pairing):
- `events/` exists; every name in it is an event file (`event-<index>-<id>.json`) or a sidecar;
- the id in the file name is the event's id;
- `base_state.json` is valid, its id agrees with the folder name, and its `leaf_event_id` and
  `last_user_message_id` name events on disk;
- no secret in clear: credential fields in `base_state.json` are masked (`**********`) or
  encrypted (Fernet `gAAAAA…`); registered secret values found in clear never appear in
  events; API-key-looking strings in events are warnings.

Memory per conversation is a small record per event (`crossfile.Facts`); event contents are dropped as soon as
their file is checked.
"""

from __future__ import annotations

import errno
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from trajkit import redact
from trajkit.errors import value_at_pointer
from trajkit.gc_pause import paused_gc
from trajkit.store.layout import (
    BASE_STATE,
    EVENTS_DIR,
    conversation_id_from_folder,
    link_outside,
    parse_event_file_name,
)
from trajkit.store.location import exists, is_link
from trajkit.store.scan import Listing, ScannedFile, list_event_files, scan_events
from trajkit.validate.crossfile import CrossFile, Facts
from trajkit.validate.files import (
    MAX_FILE_BYTES,
    EventFacts,
    FileCheck,
    check_base_state_file,
    check_event_file,
    check_scanned,
)
from trajkit.validate.problems import Problem, error, warning


@dataclass(slots=True)
class ConversationReport:
    """What validating one conversation (or one loose file) found."""

    path: Path
    events: int = 0
    """Event files checked."""
    problems: list[Problem] = field(default_factory=list)
    is_conversation: bool = True
    """False for a single file given on the command line."""


@paused_gc()
def validate_conversation(
    folder: Path,
    *,
    strict: bool = False,
    max_file_bytes: int = MAX_FILE_BYTES,
    thorough: bool = False,
) -> ConversationReport:
    """Check one conversation folder; problems in file order, then the cross-file ones."""
    report = ConversationReport(path=folder)
    check = ConversationCheck(folder, max_file_bytes=max_file_bytes, thorough=thorough)
    check.report = report
    for problem in check.problems():
        report.problems.append(problem.promoted() if strict else problem)
    return report


def iter_conversation_problems(
    folder: Path, *, max_file_bytes: int = MAX_FILE_BYTES, thorough: bool = False
) -> Iterator[Problem]:
    """Yield every problem of the conversation in `folder`.

    `thorough` also runs `jsonschema` on files the model accepts (see `files.py`).
    """
    check = ConversationCheck(folder, max_file_bytes=max_file_bytes, thorough=thorough)
    return check.problems()


class ConversationCheck:
    """The rules of a sound conversation over the store's scan of one folder, a file at a time.

    `start()` checks `base_state.json` and lists `events/`; `files()` is the store's scan of
    the listed files (`trajkit.store.scan`), each handed to `add()`; `finish()` gives the
    cross-file problems. `validate` runs it whole (`problems()`); `convert` and `export`
    iterate `files()` for their own work and ask the verdict (`validate.verdict`).
    """

    def __init__(
        self, folder: Path, *, max_file_bytes: int = MAX_FILE_BYTES, thorough: bool = False
    ) -> None:
        self.folder = folder
        self.max_file_bytes = max_file_bytes
        self.thorough = thorough
        self.report: ConversationReport | None = None
        self.state: FileCheck | None = None
        self.listing: Listing | None = None
        """The listing of `events/` (None when there is none to read)."""
        self.cross = CrossFile()
        """The rules across files, fed each file's facts (`crossfile.py`)."""
        self.upgrades: Counter[str] = Counter()
        self.secrets: dict[str, str] = {}
        """Registered secret values (from `base_state.json`) no event may hold in clear."""
        self.events: Path | None = folder / EVENTS_DIR
        """Where index gaps and interleaved branches are reported (None: not checked)."""
        self.interleave = True
        """Whether to look for interleaved branches (a shape's events are not a log)."""
        self.head: tuple[Path, dict[str, Any]] | None = None
        """The base state whose head must name events on disk: its path and object."""

    def problems(self) -> Iterator[Problem]:
        """Every problem: the state and listing, each file in index order, then across files."""
        yield from self.start()
        add = self.add
        for scanned in self.files():
            if problems := add(scanned):
                yield from problems
        yield from self.finish()

    def start(self) -> Iterator[Problem]:
        """Problems of `base_state.json` and of the listing of `events/`."""
        state = yield from _base_state_problems(self.folder, self.max_file_bytes, self.thorough)
        self.state = state
        if state is not None:
            self.secrets = redact.registered_secret_values(state.data)
            self.upgrades.update(state.upgrades)
        fresh = (
            state is not None
            and isinstance(state.data, dict)
            and not state.data.get("leaf_event_id")
        )
        self.listing = yield from _list_event_files(self.folder, fresh=fresh)
        if self.listing is not None:
            self.cross = CrossFile(self.listing)
        if state is not None and state.data is not None and self.listing is not None:
            self.head = (self.folder / BASE_STATE, state.data)

    def files(self) -> Iterator[ScannedFile]:
        """The store's scan of the listed event files, in index order."""
        if self.listing is None:
            return iter(())
        events = self.folder / EVENTS_DIR
        return scan_events(events, self.listing, root=self.folder, max_bytes=self.max_file_bytes)

    def add(self, scanned: ScannedFile) -> list[Problem]:
        """The problems of one scanned event file (usually none); its facts are kept."""
        if scanned.outside is not None:
            path = scanned.path
            self.cross.add(EventFacts(path, scanned.index, scanned.event_id))
            return [_outside_problem(path, scanned.outside)]  # unreadable, like a broken file
        check, fact = check_scanned(scanned, thorough=self.thorough)
        problems = check.problems
        if found := _event_secret_problems(fact, check, self.secrets):
            problems.extend(found)
        if check.upgrades:
            self.upgrades.update(check.upgrades)
        self.cross.add(fact)
        if self.report is not None:
            self.report.events += 1
        return problems

    def finish(self) -> Iterator[Problem]:
        """The problems across files (indices, ids, parents, pairing, the head)."""
        yield from upgrade_problems(self.folder, self.upgrades)
        yield from self.cross.finish(self.events, interleave=self.interleave)
        if self.head is not None:
            yield from _head_problems(*self.head, self.cross.facts)


def _base_state_problems(
    folder: Path, max_bytes: int, thorough: bool
) -> Generator[Problem, None, FileCheck | None]:
    """Check `base_state.json` (generator returning the FileCheck, or None when absent)."""
    path = folder / BASE_STATE
    if not exists(path):
        yield warning(
            path,
            "",
            "no base_state.json: the SDK would start this conversation afresh",
            "no-base-state",
        )
        return None
    if is_link(path) and (real := link_outside(path, folder)):
        yield _outside_problem(path, real)
        return None
    check = check_base_state_file(path, max_bytes=max_bytes, thorough=thorough)
    yield from check.problems
    if check.data is None:
        return check
    yield from state_secret_problems(path, check.data, check.raw)
    folder_id = conversation_id_from_folder(folder.name)
    state_id = check.data.get("id")
    if (
        folder_id is not None
        and isinstance(state_id, str)
        and state_id.replace("-", "").lower() != folder_id.replace("-", "")
    ):
        yield error(
            path,
            "/id",
            f"id {state_id!r} does not match the folder name {folder.name!r}",
            "folder-id",
        )
    return check


def state_secret_problems(path: Path, data: dict[str, Any], raw: bytes = b"") -> Iterator[Problem]:
    """Secrets in clear in `base_state.json`: a credential field neither masked nor encrypted;
    found *by value*, a registered secret or such a credential found again anywhere else (an
    MCP `env` value, a URL); a secret-looking URL query parameter in clear; a secret field
    holding a clear value that a later duplicate key hides from the parsed object.
    """
    clear = list(redact.find_clear_secrets(data))
    for pointer, field_name in clear:
        message = f"secret {field_name!r} in clear: expected {redact.MASK!r} or an encrypted (gAAAAA…) value"
        yield error(path, pointer, message, "secret")
    fields = dict(clear)
    values = dict(redact.registered_secret_values(data))
    for pointer, name in fields.items():
        value = value_at_pointer(data, pointer)
        if isinstance(value, str) and len(value) >= redact.MIN_SECRET_LENGTH:
            values.setdefault(name, value)
    maskers = {name: redact.SecretMasker([v]) for name, v in values.items()}
    state = {k: v for k, v in data.items() if k != "stats"}
    # With no value to look for, only a secret-looking URL query can be reported: one walk
    # over the strings without building a pointer for each (the pointers are built, by the
    # loop below, only when some string holds one).
    if maskers or _any_string(state, redact.has_secret_query):
        yield from _value_problems(path, state, fields, maskers)
    if raw:
        parsed = set(fields.values())
        for name in redact.raw_clear_secret_fields(raw):
            if name not in parsed:
                message = f"secret {name!r} in clear in the file text (a duplicate key hides it)"
                yield error(path, "", message, "secret")


def _any_string(data: Any, test: Callable[[str], bool]) -> bool:
    """True when `test` holds for some string of `data` (object keys included)."""
    stack = [data]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        item = pop()
        if isinstance(item, str):
            if test(item):
                return True
        elif isinstance(item, dict):
            for key, value in item.items():
                if isinstance(key, str) and test(key):
                    return True
                push(value)
        elif isinstance(item, list):
            extend(item)
    return False


def _value_problems(
    path: Path,
    state: dict[str, Any],
    fields: dict[str, str],
    maskers: dict[str, redact.SecretMasker],
) -> Iterator[Problem]:
    for pointer, text in redact.iter_strings(state):
        if pointer in fields:
            continue
        for name, masker in maskers.items():
            if masker.found_in(text):
                message = f"holds the value of secret {name!r} in clear"
                yield error(path, pointer, message, "secret")
        if redact.has_secret_query(text):
            message = "a URL query parameter with a secret-looking name holds a value in clear"
            yield error(path, pointer, message, "secret")


def upgrade_problems(where: Path, upgrades: Counter[str]) -> Iterator[Problem]:
    """One warning per upgrade rule the conversation needed (an older SDK's shapes)."""
    from trajkit.events.upgrade import RULES, describe

    for rule in RULES:
        if rule.name in upgrades:
            count = upgrades[rule.name] if rule.target == "event" else None
            yield warning(where, "", describe(rule.name, count), "sdk-version")


def _outside_problem(path: Path, real: Path) -> Problem:
    message = f"symlink to {real}, outside the conversation folder: not read"
    return error(path, "", message, "outside-link")


def _list_event_files(
    folder: Path, *, fresh: bool = False
) -> Generator[Problem, None, Listing | None]:
    """List `events/` (generator returning the store's listing, None if there is none).

    A `base_state.json` naming no head (`fresh`) without `events/` is a conversation with no
    events yet (the SDK creates `events/` with the first event): a warning, and an empty
    listing.
    """
    events = folder / EVENTS_DIR
    try:
        listing = list_event_files(events)
    except FileNotFoundError:
        if is_link(events):
            yield error(events, "", "broken symlink: events/ points nowhere", "no-events")
        elif fresh:
            message = "no events/ folder: a conversation with no events yet (base_state.json only)"
            yield warning(events, "", message, "no-events")
            return Listing()
        else:
            yield error(
                events,
                "",
                "missing events/ folder: a conversation keeps its events there",
                "no-events",
            )
        return None
    except NotADirectoryError:
        yield error(events, "", "expected the events/ folder, got a file", "no-events")
        return None
    except OSError as exc:
        reason = "symlink loop" if exc.errno == errno.ELOOP else (exc.strerror or str(exc))
        yield error(events, "", f"cannot list events/: {reason}", "no-events")
        return None
    for name in listing.strangers:
        message = "not an event file name (event-<index>-<id>.json): the SDK ignores this file"
        yield warning(events / name, "", message, "file-name")
    return listing


def _event_secret_problems(
    facts: EventFacts, check: FileCheck, secrets: dict[str, str]
) -> list[Problem]:
    """Secrets in an event file's text (registered values, API keys); the text is let go.

    A list, usually empty, and `facts.path` made only for a problem: this runs per file.
    """
    raw = check.raw
    if not raw:
        return []
    check.raw = b""
    found = list(_secret_value_problems(facts.path, raw, secrets)) if secrets else []
    described = redact.contains_api_key(raw)
    if described is not None:
        found.append(_api_key_problem(facts.path, described))
    return found


def _secret_value_problems(path: Path, raw: bytes, secrets: dict[str, str]) -> Iterator[Problem]:
    for name, value in secrets.items():
        if (
            value.encode() in raw
            or orjson.dumps(value)[1:-1] in raw
            or (
                b"\\" in raw
                and redact.SecretMasker([value]).found_in(raw.decode("utf-8", "replace"))
            )
        ):
            yield error(path, "", f"contains the value of secret {name!r} in clear", "secret")


def _api_key_problem(path: Path, described: str) -> Problem:
    return warning(
        path, "", f"contains what looks like an API key ({described}) in clear", "api-key"
    )


def _head_problems(path: Path, state: dict[str, object], facts: Facts) -> Iterator[Problem]:
    leaf = state.get("leaf_event_id")
    if isinstance(leaf, str) and facts.find(leaf) < 0:
        yield error(
            path,
            "/leaf_event_id",
            f"names no event on disk ({leaf!r}): the SDK cannot resume",
            "leaf",
        )
    last_user = state.get("last_user_message_id")
    if isinstance(last_user, str) and facts.n and facts.find(last_user) < 0:
        yield warning(
            path, "/last_user_message_id", f"names no event on disk ({last_user!r})", "last-user"
        )


def validate_file(
    path: Path,
    *,
    strict: bool = False,
    max_file_bytes: int = MAX_FILE_BYTES,
    thorough: bool = False,
) -> ConversationReport:
    """Check one loose file: an event file, or a `base_state.json`."""
    report = ConversationReport(path=path, is_conversation=False)
    if path.name == BASE_STATE:
        check = check_base_state_file(path, max_bytes=max_file_bytes, thorough=thorough)
        problems = list(check.problems)
        if check.data is not None:
            problems.extend(state_secret_problems(path, check.data, check.raw))
    else:
        parsed = parse_event_file_name(path.name)
        index, name_id = parsed if parsed else (None, None)
        check, facts = check_event_file(
            path, index=index, name_id=name_id, max_bytes=max_file_bytes, thorough=thorough
        )
        problems = [_v0_hint(p) for p in check.problems]
        problems.extend(_event_secret_problems(facts, check, {}))
        report.events = 1
    report.problems = [p.promoted() for p in problems] if strict else problems
    return report


def _v0_hint(problem: Problem) -> Problem:
    """A loose JSON array is most likely an OpenHands V0 trajectory: say where to go."""
    if problem.code != "not-an-object" or not problem.message.endswith("got array"):
        return problem
    message = f"{problem.message} (an OpenHands V0 trajectory? `trajkit migrate` converts it)"
    return Problem(problem.path, problem.pointer, message, problem.severity, problem.code)


__all__ = [
    "ConversationCheck",
    "ConversationReport",
    "iter_conversation_problems",
    "validate_conversation",
    "validate_file",
]
