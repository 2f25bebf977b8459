"""The rules across the files of one conversation, fed one file's facts at a time.

- indices run 0..n-1 with no gap and no index used twice (the SDK stops reading at a gap);
- ids are unique; every `parent_id` names an event of this conversation, written before it,
  and following parents never loops;
- every `ObservationEvent`/`UserRejectObservation` names an earlier `ActionEvent` in `action_id`
  with the same `tool_call_id`, every `AgentErrorEvent` answers an earlier tool call, and a
  tool call has one result;
- two branches from one fork do not interleave in the log (two writers at once).

Memory stays flat in a conversation's length (issue 31): what a file leaves behind is a record
in `Facts` (its index, kind, id, and where its parent and action are), about 60 bytes for a
file the SDK wrote, and a rule resolves a reference when the file is added, keeping only its
problems; a reference to a later event waits, with its text, until `finish`.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from pathlib import Path

from trajkit.store.layout import pack_event_id, unpack_event_id, unpack_event_name
from trajkit.store.scan import Listing
from trajkit.validate.files import EventFacts
from trajkit.validate.problems import Problem, error, warning

__all__ = ["CrossFile", "Facts", "ToolCalls"]

_RESULT_KINDS = frozenset({"ObservationEvent", "UserRejectObservation"})
_ROOT_PARENT = "__root__"  # trajkit.events.base.ROOT_PARENT (not imported: no event model here)

# `Facts.parent` codes besides a record's position
NO_PARENT = -1
"""`parent_id` absent or null: a legacy event, whose parent is the one before it."""
ROOT = -2
"""`parent_id` is the explicit root."""
NO_ID = -3
"""The event has no id (an unreadable file): no parent rule applies."""
LATER = -4
"""`parent_id` names no event added before: its text is in `Facts.later`."""
_NO_KEY = bytes(16)


class Facts:
    """What the rules across files keep of each event file, in the order added.

    A file the SDK wrote (its id a lowercase uuid, the one its name holds) is a few numbers:
    its index, a kind code, the id's 16 bytes, the position of its parent's record; an
    `ActionEvent` also its tool call's number. Any other file keeps its whole `EventFacts` in
    `odd`. Given the listing the files come from (in its order, as the scan reads them), the
    index and id columns are the listing's own (`Listing.indices`, `Listing.ids`) until a file
    disagrees with it (a file name's id that is not the event's), when they are copied. Ids are
    found by an open-addressing table of positions over the packed ids (`find`, which asks a
    small dict of the last few hundred first), an id that does not pack in a dict.
    """

    RECENT = 512
    """Ids kept in the dict of recent ones (a parent, an action: usually a few files back)."""

    def __init__(self, listing: Listing | None = None) -> None:
        self.n = 0
        self.index: array[int] | list[int] = array("q")
        """Index from the file name, -1 for none."""
        self.kind = bytearray()
        self.kinds: list[str | None] = [None]
        self._codes: dict[str | None, int] = {None: 0}
        self.keys = bytearray()
        """16 bytes a record: its key (the id, or the name's id for a file with none) packed."""
        self._listed: dict[int, tuple[str, str, bool]] | None = None
        """The listing's names that do not pack, while `index` and `keys` are the listing's."""
        if listing is not None:
            self.index, self.keys, self._listed = listing.indices, listing.ids, listing.odd
        self._listed_n = len(self.index)
        self.parent = array("i")
        """The position of the first record with the parent's id, or a code (`NO_PARENT`, ...)."""
        self.later: dict[int, str] = {}
        """Position -> a `parent_id` no record added before it holds (`LATER`)."""
        self.tool_calls = array("i")
        """An `ActionEvent`'s tool call id, as its number in `CrossFile.calls` (else -1)."""
        self.odd: dict[int, EventFacts] = {}
        """The records that do not pack, as given."""
        self.first: dict[int, int] = {}
        """Position -> the first record with the same key (a key used twice)."""
        self.text_keys: dict[str, int] = {}
        """Keys that do not pack -> the first record holding them."""
        self._recent: dict[str, int] = {}
        self.folder: Path | None = None
        size, expected = 1024, len(self.index)
        while size < 2 * expected:
            size *= 2
        self._table = array("i", [-1]) * size

    def add(self, fact: EventFacts) -> tuple[int, int]:
        """Keep `fact`: its position, and the first earlier record with its key (else -1)."""
        p = self.n
        self.n = p + 1
        key, listed, keys = fact.id, self._listed, self.keys
        if (  # the listing's file p as the SDK names it (the usual case): nothing to pack
            listed is not None
            and key is not None
            and key == fact.name_id
            and fact.where is self.folder  # (a file whose path was made is not: `EventFacts`)
            and p < self._listed_n
            and fact.index == self.index[p]
            and p not in listed
        ):
            packed: bytes | bytearray | None = keys[16 * p : 16 * p + 16]
        else:
            key = key if key is not None else fact.name_id
            packed = None if key is None else pack_event_id(key)
            self._add_odd(p, fact, key, packed)
            keys = self.keys
        code = self._codes.get(fact.kind)
        if code is None:
            code = self._codes[fact.kind] = len(self.kinds)
            self.kinds.append(fact.kind)
        self.kind.append(code)
        self.parent.append(NO_ID)
        self.tool_calls.append(-1)
        if packed is not None:
            table = self._table
            mask = len(table) - 1
            i = int.from_bytes(packed[:8], "little") & mask
            while (first := table[i]) >= 0 and keys[16 * first : 16 * first + 16] != packed:
                i = (i + 1) & mask
            if first < 0:
                table[i] = p
                if 2 * self.n > len(table):
                    self._grow()
        elif key is not None:
            first = self.text_keys.setdefault(key, p)
            first = -1 if first == p else first
        else:
            return p, -1
        if first >= 0:
            self.first[p] = first
        recent = self._recent
        if len(recent) >= self.RECENT:
            recent.clear()
        recent[key] = p if first < 0 else first  # type: ignore[index]  # (None: returned above)
        return p, first

    def _add_odd(self, p: int, fact: EventFacts, key: str | None, packed: bytes | None) -> None:
        """`add` of a file off the usual case: the columns, and `odd` when it does not pack."""
        if self._listed is not None and not self._as_listed(p, fact, key, packed):
            self._copy_columns(p)
        if self._listed is None:
            self._append(p, fact, packed)
        if (
            packed is None
            or fact.id is None
            or fact.name_id != fact.id
            or not self._in_folder(fact)
        ):
            self.odd[p] = fact  # its name and id are not spelled again from the columns

    def _as_listed(self, p: int, fact: EventFacts, key: str | None, packed: bytes | None) -> bool:
        """Whether record `p` is the listing's file `p`, its key the id in the file's name."""
        return (
            packed is not None
            and key == fact.name_id
            and p < len(self.index)
            and fact.index == self.index[p]
            and p not in self._listed  # type: ignore[operator]
            and self.keys[16 * p : 16 * p + 16] == packed
        )

    def _copy_columns(self, p: int) -> None:
        """Stop sharing the listing's columns (a file that disagrees with it)."""
        self.index = self.index[:p]
        self.keys = self.keys[: 16 * p]
        self._listed = None

    def _append(self, p: int, fact: EventFacts, packed: bytes | None) -> None:
        try:
            self.index.append(-1 if fact.index is None else fact.index)
        except OverflowError:  # an index past 64 bits: no longer an array
            self.index = [*self.index, fact.index]  # type: ignore[list-item]
        self.keys += _NO_KEY if packed is None else packed
        name, index = fact.file_name, fact.index
        spelled = name is not None and index is not None and packed is not None
        if not spelled or name != unpack_event_name(index, packed)[0]:  # type: ignore[arg-type]
            self.odd[p] = fact  # a name not spelled again from the index and id

    def _in_folder(self, fact: EventFacts) -> bool:
        if fact.file_name is None:
            return False
        if self.folder is None:
            self.folder = fact.where
        return fact.where is self.folder

    def _grow(self) -> None:
        old, keys = self._table, self.keys
        table = self._table = array("i", [-1]) * (2 * len(old))
        mask = len(table) - 1
        for p in old:
            if p >= 0:
                i = int.from_bytes(keys[16 * p : 16 * p + 8], "little") & mask
                while table[i] >= 0:
                    i = (i + 1) & mask
                table[i] = p

    def find(self, event_id: str) -> int:
        """The position of the first record whose key is `event_id`, else -1."""
        q = self._recent.get(event_id)
        if q is not None:
            return q
        packed = pack_event_id(event_id)
        if packed is None:
            return self.text_keys.get(event_id, -1)
        table, keys = self._table, self.keys
        mask = len(table) - 1
        i = int.from_bytes(packed[:8], "little") & mask
        while (q := table[i]) >= 0:
            if keys[16 * q : 16 * q + 16] == packed:
                return q
            i = (i + 1) & mask
        return -1

    def node(self, p: int) -> int:
        """The first record with the key of record `p` (what the rules call the event)."""
        return self.first.get(p, p)

    def index_of(self, p: int) -> int | None:
        i = self.index[p]
        return None if i < 0 else i

    def kind_of(self, p: int) -> str | None:
        return self.kinds[self.kind[p]]

    def key_of(self, p: int) -> str | None:
        """The id of record `p` (the name's id for a file with none)."""
        fact = self.odd.get(p)
        if fact is None:
            return unpack_event_id(self.keys[16 * p : 16 * p + 16])
        return fact.id if fact.id is not None else fact.name_id

    def path(self, p: int) -> Path:
        fact = self.odd.get(p)
        if fact is not None:
            return fact.path
        assert self.folder is not None
        return self.folder / self.name(p)

    def name(self, p: int) -> str:
        fact = self.odd.get(p)
        if fact is not None:
            return fact.path.name
        return unpack_event_name(self.index[p], self.keys[16 * p : 16 * p + 16])[0]


class CrossFile:
    """The rules across files (see the module docstring): `add` each file's facts in order,
    then `finish` gives the problems, in the order of the rules, each rule's in file order.
    """

    def __init__(self, listing: Listing | None = None) -> None:
        self.facts = Facts(listing)
        self.ids: list[Problem] = []
        self.parents: list[Problem | int] = []
        """Problems, and the positions whose parent is resolved at `finish`."""
        self.forward = False
        """Some parent is not written before its child: parents may loop."""
        self.pairing: list[Problem | int] = []
        """Problems, and the positions whose action is resolved at `finish`."""
        self.later_actions: dict[int, tuple[str, int]] = {}
        self.calls = ToolCalls(self.facts._listed_n)
        self.unreadable = False
        self._batch: list[EventFacts] = []

    BATCH = 1024
    """Files whose facts wait to be taken in one loop (the loop's code and tables stay in the
    CPU's cache, where one at a time between two files' parsing they did not: 40% less time)."""

    def add(self, fact: EventFacts) -> None:
        """One file's facts, in file order."""
        batch = self._batch
        batch.append(fact)
        if len(batch) >= self.BATCH:
            self._take()

    def _take(self) -> None:
        take = self._take_one
        for fact in self._batch:
            take(fact)
        self._batch.clear()

    def _take_one(self, fact: EventFacts) -> None:
        facts = self.facts
        p, first = facts.add(fact)
        if fact.id is not None:
            if first >= 0:
                message = f"id {fact.id!r} is also used by {facts.name(first)}"
                self.ids.append(error(facts.path(p), "/id", message, "duplicate-id"))
            self._parent(p, fact.parent_id)
        self._pair(p, fact)

    def finish(self, events: Path | None, *, interleave: bool) -> Iterator[Problem]:
        """The problems: indices (when `events` is the folder to name), ids, parents, loops,
        pairing, and interleaved branches (when `interleave`).
        """
        self._take()
        if events is not None:
            yield from self._index_problems(events)
        yield from self.ids
        yield from self._resolved(self.parents, self._parent_later)
        if self.forward:
            yield from self._cycle_problems()
        yield from self._resolved(self.pairing, self._action_later)
        if events is not None and interleave:
            yield from self._interleave_problems(events)

    @staticmethod
    def _resolved(found: list[Problem | int], later: object) -> Iterator[Problem]:
        for item in found:
            if isinstance(item, int):
                yield from later(item)  # type: ignore[operator]
            else:
                yield item

    # --- indices ---------------------------------------------------------------------------------

    def _index_problems(self, events: Path) -> Iterator[Problem]:
        facts = self.facts
        column = facts.index
        listed = [p for p in range(facts.n) if column[p] >= 0] if -1 in column else range(facts.n)
        order = listed
        if any(column[a] > column[b] for a, b in zip(listed, listed[1:], strict=False)):
            order = sorted(listed, key=column.__getitem__)  # stable: the first file of each index
        twice: list[tuple[int, int]] = []
        gaps: list[Problem] = []
        expected, last, start = 0, -1, -1
        for p in order:
            index = column[p]
            if index == last:
                twice.append((p, start))
                continue
            if index > expected:
                missing = f"{expected}" if index == expected + 1 else f"{expected}-{index - 1}"
                message = (
                    f"index gap: no event file with index {missing}; the SDK stops reading there, "
                    f"so {facts.name(p)} and later files are not loaded"
                )
                gaps.append(error(events, "", message, "index-gap"))
            expected, last, start = index + 1, index, p
        for p, first in sorted(twice):
            message = f"index {column[p]} is also used by {facts.name(first)}"
            yield error(facts.path(p), "", message, "duplicate-index")
        yield from gaps

    # --- parents ---------------------------------------------------------------------------------

    def _parent(self, p: int, parent: str | None) -> None:
        facts = self.facts
        if parent is None:
            facts.parent[p] = NO_PARENT
        elif parent == _ROOT_PARENT:
            facts.parent[p] = ROOT
        elif (q := facts._recent.get(parent, -1)) >= 0 or (q := facts.find(parent)) >= 0:
            if (found := self._parent_found(p, q)) is not None:
                self.parents.append(found)
        else:
            facts.parent[p] = LATER
            facts.later[p] = parent
            self.parents.append(p)

    def _parent_found(self, p: int, q: int) -> Problem | None:
        """The parent rule once the parent's record `q` is known (the first with its id)."""
        facts = self.facts
        facts.parent[p] = q
        if q >= facts.first.get(p, p):
            self.forward = True
        index, parent_index = facts.index[p], facts.index[q]
        if index >= 0 and parent_index > index:
            message = f"names a later event ({facts.name(q)}): a parent is written first"
            return warning(facts.path(p), "/parent_id", message, "parent-order")
        return None

    def _parent_later(self, p: int) -> Iterator[Problem]:
        facts = self.facts
        parent = facts.later[p]
        q = facts.find(parent)
        if q < 0:
            message = f"names no event of this conversation ({parent!r})"
            yield error(facts.path(p), "/parent_id", message, "parent")
            return
        del facts.later[p]
        if (found := self._parent_found(p, q)) is not None:
            yield found

    def _cycle_problems(self) -> Iterator[Problem]:
        """Each event has one parent, so a walk either reaches a root or enters a loop."""
        facts = self.facts
        parent_of: dict[int, int] = {}
        for p in range(facts.n):
            if (q := facts.parent[p]) >= 0:
                parent_of.setdefault(facts.node(p), q)
        done: set[int] = set()
        for start in parent_of:
            trail: list[int] = []
            on_trail: set[int] = set()
            node: int | None = start
            while node is not None and node not in done:
                if node in on_trail:
                    loop = trail[trail.index(node) :]
                    first = min(loop, key=lambda n: facts.index_of(n) or 0)
                    names = " -> ".join(facts.name(n) for n in loop[:4])
                    message = f"parent_id loop: following parents never reaches a root ({names}{' …' if len(loop) > 4 else ''})"
                    yield error(facts.path(first), "/parent_id", message, "cycle")
                    break
                trail.append(node)
                on_trail.add(node)
                node = parent_of.get(node)
            done.update(trail)

    # --- pairing ---------------------------------------------------------------------------------

    def _pair(self, p: int, fact: EventFacts) -> None:
        kind, call = fact.kind, fact.tool_call_id
        if kind is None:
            self.unreadable = True
        if call is None:
            if kind in _RESULT_KINDS and fact.action_id is not None:
                self._result(p, fact.action_id, -1)
            return
        calls = self.calls
        k = calls.number(call)
        if kind == "ActionEvent":
            self.facts.tool_calls[p] = k
            calls.state[k] |= 1
            return
        answers = kind == "AgentErrorEvent"
        if kind in _RESULT_KINDS:
            answers = True
            if fact.action_id is not None:
                self._result(p, fact.action_id, k)
        elif answers and not calls.state[k] & 1 and not self.unreadable:
            message = f"answers no earlier tool call (no ActionEvent with tool_call_id {call!r})"
            self.pairing.append(error(self.facts.path(p), "/tool_call_id", message, "pairing"))
        if answers:
            state = calls.state[k]
            if state >= 2:
                first = self.facts.name((state >> 1) - 1)
                message = (
                    f"tool call {call!r} already has a result in {first}; the SDK keeps the first"
                )
                self.pairing.append(
                    warning(self.facts.path(p), "/tool_call_id", message, "duplicate-result")
                )
            else:
                calls.state[k] = state | ((p + 1) << 1)

    def _result(self, p: int, action_id: str, k: int) -> None:
        """The rule of a result naming its action (`k`: its call's number, -1 for none)."""
        q = self.facts.find(action_id)
        if q >= 0:
            if (found := self._result_problem(p, q, action_id, k)) is not None:
                self.pairing.append(found)
        else:
            self.later_actions[p] = (action_id, k)
            self.pairing.append(p)

    def _action_later(self, p: int) -> Iterator[Problem]:
        action_id, k = self.later_actions.pop(p)
        found = self._result_problem(p, self.facts.find(action_id), action_id, k)
        return iter(() if found is None else (found,))

    def _result_problem(self, p: int, q: int, action_id: str, k: int) -> Problem | None:
        facts = self.facts
        if q < 0:
            message = f"names no event of this conversation ({action_id!r})"
            return error(facts.path(p), "/action_id", message, "pairing")
        kind = facts.kind_of(q)
        if kind is None:
            return None  # the action's file is unreadable; already reported
        if kind != "ActionEvent":
            message = f"names a {kind}, expected an ActionEvent"
            return error(facts.path(p), "/action_id", message, "pairing")
        if (facts.index_of(q) or 0) > (facts.index_of(p) or 0):
            message = f"names a later event ({facts.name(q)}): a result must follow its call"
            return error(facts.path(p), "/action_id", message, "pairing")
        action_call = facts.tool_calls[q]
        if k >= 0 and action_call >= 0 and action_call != k:  # one number a call id
            call, named = self.calls.text(k), self.calls.text(action_call)
            message = f"tool_call_id {call!r} differs from its action's ({named!r})"
            return error(facts.path(p), "/tool_call_id", message, "pairing")
        return None

    # --- interleaved branches --------------------------------------------------------------------

    def _interleave_problems(self, events: Path) -> Iterator[Problem]:
        """Warn when the events of two branches from one fork interleave in the log: one writer
        branches by moving its head back and carrying on, so a branch it leaves never grows
        again; two writers appending to one conversation at once leave exactly that pattern.
        """
        if not self._has_fork():
            return
        facts = self.facts
        children: dict[int | str | None, list[int]] = {}
        for pos, fork in self._forks():
            children.setdefault(fork, []).append(pos)
        for fork, kids in children.items():
            if len(kids) < 2 or fork is None:
                continue
            spans = [self._subtree_span(k, children) for k in kids]
            spans.sort()
            for (lo1, hi1), (lo2, hi2) in zip(spans, spans[1:], strict=False):
                if lo2 < hi1:
                    i1, j1 = facts.index_of(lo1), facts.index_of(hi1)
                    i2, j2 = facts.index_of(lo2), facts.index_of(hi2)
                    named = fork if isinstance(fork, str) else facts.key_of(fork)
                    message = (
                        f"two branches interleave after event {named!r} (files {i1}..{j1} and "
                        f"{i2}..{j2}): the mark of two writers appending at once; readers follow "
                        "only the head's branch"
                    )
                    yield warning(events, "", message, "concurrent-writers")
                    return

    def _forks(self) -> Iterator[tuple[int, int | str | None]]:
        """Each event with an id and the event it follows: its parent, the one before it for a
        legacy event, None for a root (a parent no record holds: its text).
        """
        facts = self.facts
        column, later, node = facts.parent, facts.later, facts.node
        prev: int | None = None
        for pos in range(facts.n):
            code = column[pos]
            if code == NO_ID:
                continue
            if code >= 0:
                yield pos, code
            elif code == NO_PARENT:
                yield pos, prev
            elif code == ROOT:
                yield pos, None
            else:
                yield pos, later[pos]
            prev = node(pos)

    def _has_fork(self) -> bool:
        """Whether two events follow one (a linear log, the usual case, has none)."""
        seen = bytearray(self.facts.n)
        named: set[str] = set()
        for _, fork in self._forks():
            if fork is None:
                continue
            if isinstance(fork, str):
                if fork in named:
                    return True
                named.add(fork)
            elif seen[fork]:
                return True
            else:
                seen[fork] = 1
        return False

    def _subtree_span(
        self, start: int, children: dict[int | str | None, list[int]]
    ) -> tuple[int, int]:
        node = self.facts.node
        lo = hi = start
        stack = [start]
        seen = {start}
        while stack:
            pos = stack.pop()
            lo, hi = min(lo, pos), max(hi, pos)
            for child in children.get(node(pos), ()):
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
        return lo, hi


class ToolCalls:
    """The tool call ids of a conversation, each a number: its text in one arena of bytes, and
    what pairing knows of it in `state` ((the position of its first result + 1) * 2, + 1 once
    an `ActionEvent` made it). About 50 bytes a call, where a dict of strings took 150.
    """

    def __init__(self, expected: int = 0) -> None:
        self._arena = bytearray()
        self._ends = array("i")
        self.state = array("i")
        size = 1024
        while size < expected:
            size *= 2
        self._table = array("i", [-1]) * size
        self._recent: dict[str, int] = {}
        """The last few hundred call ids (a result follows its call closely)."""

    def _find(self, text: bytes, h: int) -> tuple[int, int]:
        """`(number, slot)`: the number of `text` (-1: none yet) and its slot in the table."""
        table, arena, ends = self._table, self._arena, self._ends
        mask = len(table) - 1
        i = h & mask
        while (k := table[i]) >= 0:
            if arena[(ends[k - 1] if k else 0) : ends[k]] == text:
                return k, i
            i = (i + 1) & mask
        return -1, i

    def number(self, call: str) -> int:
        """The number of a call id, given one if new (`state` 0)."""
        recent = self._recent
        k = recent.get(call)
        if k is not None:
            return k
        if len(recent) >= 256:
            recent.clear()
        text = call.encode()
        k, i = self._find(text, hash(call))
        if k >= 0:
            recent[call] = k
            return k
        recent[call] = k = len(self._ends)
        self._arena += text
        self._ends.append(len(self._arena))
        self.state.append(0)
        self._table[i] = k
        if 2 * len(self._ends) > len(self._table):
            table = self._table = array("i", [-1]) * (2 * len(self._table))
            mask = len(table) - 1
            for n in range(len(self._ends)):
                i = hash(self.text(n)) & mask
                while table[i] >= 0:
                    i = (i + 1) & mask
                table[i] = n
        return k

    def text(self, k: int) -> str:
        """The call id numbered `k`."""
        return self._arena[(self._ends[k - 1] if k else 0) : self._ends[k]].decode()
