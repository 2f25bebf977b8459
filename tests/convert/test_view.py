"""Active branch, condensation and the four view properties."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.convert._build import Log, text
from trajkit.convert import active_branch, condensed_view, convert_conversation, full_view
from trajkit.convert.view import BranchError
from trajkit.errors import InputError


def _ids(events: list) -> list[str]:  # type: ignore[type-arg]
    return [e.id for e in events]


def test_legacy_log_is_one_line_to_the_last_event() -> None:
    log = Log()
    a, b = log.system(), log.user(text("hi"))
    log.add(
        "ConversationStateUpdateEvent",
        source="environment",
        key="execution_status",
        value="finished",
    )
    branch = active_branch(log.events)
    assert _ids(branch) == [a, b]  # a state update never becomes the head


def test_tree_follows_parent_ids_from_the_leaf() -> None:
    log = Log()
    root = log.system()
    first = log.user(text("first try"), parent_id=root)
    log.agent("abandoned", parent_id=first)
    second = log.user(text("second try"), parent_id=root)
    reply = log.agent("kept", parent_id=second)
    branch = active_branch(log.events, leaf_event_id=reply)
    assert _ids(branch) == [root, second, reply]
    messages = [e.to_llm_message().text for e in full_view(branch)]
    assert "abandoned" not in messages and "kept" in messages


def test_explicit_root_and_empty_head() -> None:
    log = Log()
    log.system()
    new_root = log.user(text("fresh start"), parent_id="__root__")
    assert _ids(active_branch(log.events, leaf_event_id=new_root)) == [new_root]
    assert active_branch(log.events, head_is_empty=True) == []


def test_broken_links_raise() -> None:
    log = Log()
    log.system()
    log.user(text("x"), parent_id="ffffffff-0000-4000-8000-000000000000")
    with pytest.raises(BranchError, match="not an event id"):
        active_branch(log.events)
    with pytest.raises(BranchError, match="leaf_event_id"):
        active_branch(log.events, leaf_event_id="nope")
    loop = Log()
    loop.add(
        "PauseEvent",
        source="user",
        id="aaaaaaaa-0000-4000-8000-000000000000",
        parent_id="bbbbbbbb-0000-4000-8000-000000000000",
    )
    loop.add(
        "PauseEvent",
        source="user",
        id="bbbbbbbb-0000-4000-8000-000000000000",
        parent_id="aaaaaaaa-0000-4000-8000-000000000000",
    )
    with pytest.raises(BranchError, match="loop"):
        active_branch(loop.events)


def test_broken_parent_is_reported_with_file_and_pointer(tmp_path: Path) -> None:
    log = Log()
    log.system()
    log.user(text("x"), parent_id="ffffffff-0000-4000-8000-000000000000")
    folder = log.write(tmp_path / "c")
    with pytest.raises(InputError) as info:
        convert_conversation(folder)
    assert info.value.pointer == "/parent_id"
    assert info.value.path.endswith(".json") and "event-00001-" in info.value.path
    log.write(tmp_path / "d", {"leaf_event_id": "99999999-0000-4000-8000-000000000000"})
    with pytest.raises(InputError) as info:
        convert_conversation(tmp_path / "d")
    assert info.value.pointer == "/leaf_event_id"
    assert info.value.path.endswith("base_state.json")


def _condensation(log: Log, forgotten: list[str], summary: str | None, offset: int | None) -> str:
    return log.add(
        "Condensation",
        source="environment",
        forgotten_event_ids=forgotten,
        summary=summary,
        summary_offset=offset,
        llm_response_id="cond-1",
    )


def test_condensation_forgets_and_inserts_summary() -> None:
    log = Log()
    s = log.system()
    u = log.user(text("task"))
    a = log.action("c1", "r1")
    o = log.terminal_result("c1", a, "x")
    cond = _condensation(log, [a, o], "SUMMARY", 1)
    after = log.agent("after")
    view = condensed_view(log.events)
    assert _ids(view) == [s, f"{cond}-summary", u, after]
    assert view[1].to_llm_message().text == "SUMMARY"
    # without summary metadata nothing is inserted
    log2 = Log()
    log2.system()
    x = log2.user(text("gone"))
    _condensation(log2, [x], "unused", None)
    assert len(condensed_view(log2.events)) == 1


def test_observation_uniqueness_keeps_the_first_result() -> None:
    log = Log()
    log.system()
    a = log.action("c1", "r1")
    first = log.add(
        "AgentErrorEvent",
        source="agent",
        tool_name="terminal",
        tool_call_id="c1",
        error="A restart occurred while this tool was in progress.",
    )
    late = log.terminal_result("c1", a, "late output")
    dropped: list = []  # type: ignore[type-arg]
    view = condensed_view(log.events, dropped=dropped)
    assert first in _ids(view) and late not in _ids(view)
    assert [(rule, e.id) for rule, e in dropped] == [("observation uniqueness", late)]


def test_batch_atomicity_drops_a_partly_forgotten_batch() -> None:
    log = Log()
    log.system()
    a1 = log.action("c1", "r1")
    a2 = log.action("c2", "r1")
    o1 = log.terminal_result("c1", a1, "1")
    o2 = log.terminal_result("c2", a2, "2")
    _condensation(log, [a1, o1], None, None)
    view = condensed_view(log.events)
    # a2 loses its batch, then o2 loses its action
    assert a2 not in _ids(view) and o2 not in _ids(view)
    assert len(full_view(log.events)) == 5


def test_tool_loop_atomicity_with_thinking_blocks() -> None:
    log = Log()
    log.system()
    log.user(text("go"))
    a1 = log.action(
        "c1", "r1", thinking_blocks=[{"type": "thinking", "thinking": "t", "signature": "sig"}]
    )
    o1 = log.terminal_result("c1", a1, "1")
    a2 = log.action("c2", "r2")
    o2 = log.terminal_result("c2", a2, "2")
    _condensation(log, [a2, o2], None, None)
    view = condensed_view(log.events)
    # the loop started by the thinking batch lost its tail: the rest goes too
    assert a1 not in _ids(view) and o1 not in _ids(view)
