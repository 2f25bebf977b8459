"""The conversation's view (`trajkit.sdk.context.view`): kept live during a run, rebuilt with
the view properties on restore, and the token-based condensing that reads it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.sdk.helpers import make_llm
from tests.support.llm_server import ScriptedLLMServer
from trajkit.convert import active_branch, events_to_messages
from trajkit.convert.conversation import prepare_messages
from trajkit.sdk import Agent, Conversation
from trajkit.sdk.context.condenser import (
    LLMSummarizingCondenser,
    NoCondensationAvailable,
    view_tokens,
)
from trajkit.sdk.context.view import View
from trajkit.store import open_conversation


def _conversation(server: ScriptedLLMServer, tmp_path: Path, **kw: Any) -> Conversation:
    agent = kw.pop("agent", None) or Agent(llm=make_llm(server), tools=[])
    return Conversation(
        agent=agent,
        workspace=tmp_path / "ws",
        persistence_dir=tmp_path / "c",
        visualizer=None,
        **kw,
    )


def _repeated_ids(server: ScriptedLLMServer, tmp_path: Path, **kw: Any) -> Conversation:
    server.enqueue_tool_call("think", {"thought": "one"}, call_id="call_dup")
    server.enqueue_tool_call("think", {"thought": "two"}, call_id="call_dup")
    server.enqueue_text("done")
    conversation = _conversation(server, tmp_path, **kw)
    conversation.send_message("Think twice.")
    conversation.run()
    return conversation


def _results(messages: list[Any]) -> list[str]:
    return [m.tool_call_id for m in messages if m.role == "tool"]


def test_the_view_is_extended_in_place_during_a_run(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.enqueue_tool_call("think", {"thought": "a"})
        server.enqueue_text("ok")
        conversation = _conversation(server, tmp_path)
        conversation.send_message("Go.")
        view = conversation.state.view
        conversation.run()
    assert conversation.state.view is view  # appended to, never rebuilt
    kinds = [e.kind for e in view.events]
    assert kinds == [
        "SystemPromptEvent",
        "MessageEvent",
        "ActionEvent",
        "ObservationEvent",
        "MessageEvent",
    ]
    # nothing to enforce here: the live view is the enforced one
    branch = active_branch(conversation.state.events)
    assert [e.id for e in view.events] == [e.id for e in View.from_events(branch).events]


def test_live_keeps_both_results_and_a_restore_sends_what_convert_gives(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        live = _repeated_ids(server, tmp_path)
        cid = live.id
        assert _results(live.llm_messages()) == ["call_dup", "call_dup"]
        live.close()
        del live
        restored = _conversation(server, tmp_path, conversation_id=cid)
        cold = restored.llm_messages()
    assert _results(cold) == ["call_dup"]
    stored = open_conversation(tmp_path / "c" / cid.hex)
    converted = prepare_messages(list(stored.iter_events()), state=stored.base_state())
    assert cold == converted.messages  # what `trajkit convert --view condensed` gives


def test_a_fork_is_enforced_and_navigation_rebuilds(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        source = _repeated_ids(server, tmp_path)
        fork = source.fork()
        assert _results(fork.llm_messages()) == ["call_dup"]
        assert _results(source.llm_messages()) == ["call_dup", "call_dup"]  # untouched
        before = source.state.view
        source.navigate_to(source.state.leaf_event_id)
        assert source.state.view is not before
        assert _results(source.llm_messages()) == ["call_dup"]
        with pytest.raises(ValueError, match="unknown event_id"):
            source.navigate_to("no-such-event")


def test_a_head_moved_to_another_branch_rebuilds_the_view(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        conversation = _repeated_ids(server, tmp_path)
        first_user = next(e for e in conversation.state.events if e.kind == "MessageEvent")
        conversation.state.leaf_event_id = first_user.id  # moved by hand, not navigate_to
        assert [e.kind for e in conversation.state.view.events] == [
            "SystemPromptEvent",
            "MessageEvent",
        ]


def _condensing(server: ScriptedLLMServer, **kw: Any) -> Agent:
    condenser = LLMSummarizingCondenser(
        llm=make_llm(server, usage_id="condenser"), max_size=1000, keep_first=1, **kw
    )
    return Agent(llm=make_llm(server), tools=[], condenser=condenser)


def test_condenses_when_the_view_passes_max_tokens(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        probe = _conversation(server, tmp_path / "probe")
        probe.send_message("Think about it.")
        start = view_tokens(probe.state.view.events, probe.agent.llm)
        probe.close()
        for i in range(4):
            server.enqueue_tool_call("think", {"thought": f"thought number {i} " + "x " * 60})
        server.enqueue_text("SUMMARY-T: four long thoughts.")
        server.enqueue_text("done")
        # room for the first message and about two long thoughts, not four
        agent = _condensing(server, max_tokens=start + 300)
        conversation = _conversation(server, tmp_path, agent=agent)
        conversation.send_message("Think about it.")
        conversation.run()
    kinds = [e.kind for e in conversation.state.events]
    assert kinds.count("Condensation") == 1
    bodies = server.bodies()
    kinds_sent = ["agent" if b.get("tools") else "condenser" for b in bodies]
    assert kinds_sent.count("condenser") == 1
    # every agent request before the condensation was within the limit but the last one
    after = bodies[kinds_sent.index("condenser") + 1]
    assert after["messages"][1]["content"][0]["text"].startswith("SUMMARY-T")
    view = conversation.state.view
    assert view_tokens(view.events, conversation.agent.llm) <= start + 300
    assert conversation.state.execution_status.value == "finished"


def test_no_token_limit_means_no_token_condensing(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        for i in range(3):
            server.enqueue_tool_call("think", {"thought": f"long thought {i} " + "y " * 80})
        server.enqueue_text("done")
        conversation = _conversation(server, tmp_path, agent=_condensing(server))
        conversation.send_message("Think.")
        conversation.run()
    assert "Condensation" not in [e.kind for e in conversation.state.events]


def test_a_hard_reset_retries_shorter_then_gives_up(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.enqueue_text("first answer " + "z " * 50)
        conversation = _conversation(
            server,
            tmp_path,
            agent=_condensing(server, hard_context_reset_max_retries=3),
        )
        conversation.send_message("Question.")
        conversation.run()
        # the summariser refuses every time: a requested condensation has nowhere to go
        server.enqueue_error(400, "summariser refuses", times=5)
        with pytest.raises(NoCondensationAvailable, match="summarising the whole history failed"):
            conversation.condense()  # raised as it is, as the SDK's condense() does
        summary_requests = [b for b in server.bodies() if not b.get("tools")]
    # three events: no safe range for a request (the tail to keep is negative), so straight
    # to the hard reset, tried three times
    assert len(summary_requests) == 3
    sizes = [len(str(b["messages"][1]["content"])) for b in summary_requests]
    assert sizes[0] > sizes[1] > sizes[2]  # each attempt cuts the events shorter
    assert "Condensation" not in [e.kind for e in conversation.state.events]


def test_token_count_includes_the_offered_tools(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        conversation = _conversation(server, tmp_path)
        conversation.send_message("Hi.")
        events = conversation.state.view.events
        llm = conversation.agent.llm
        bare = llm.get_token_count(events_to_messages(events))
        assert view_tokens(events, llm) > bare


def test_the_models_context_window_caps_the_token_limit(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        llm = make_llm(server)  # openai/gpt-4o: litellm knows its context window
        assert llm.effective_max_input_tokens == 128000
        assert make_llm(server, max_input_tokens=900).effective_max_input_tokens == 900
        condenser = LLMSummarizingCondenser(llm=make_llm(server, usage_id="condenser"))
        assert condenser._token_limit(llm) == 128000
        small = condenser.model_copy(update={"max_tokens": 5000})
        assert small._token_limit(llm) == 5000
        unknown = make_llm(server, model="openai/no-such-model-xyz")
        assert unknown.effective_max_input_tokens is None
        assert condenser._token_limit(unknown) is None


@pytest.mark.parametrize(
    ("kinds", "pending"),
    [
        ([], False),
        (["request"], True),
        (["request", "message"], True),
        (["request", "condensation"], False),
        (["condensation", "request", "message"], True),
        (["request", "condensation", "message"], False),
    ],
)
def test_a_rebuilt_view_knows_a_request_no_condensation_answered(
    kinds: list[str], pending: bool
) -> None:
    from trajkit.events import Condensation, CondensationRequest, Message, MessageEvent, TextContent

    make = {
        "request": CondensationRequest,
        "condensation": lambda: Condensation(llm_response_id="resp-1"),
        "message": lambda: MessageEvent(
            source="user", llm_message=Message(role="user", content=[TextContent(text="hi")])
        ),
    }
    events = [make[k]() for k in kinds]
    live = View()
    for event in events:
        live.append_event(event)
    rebuilt = View.from_events(events)
    assert rebuilt.unhandled_condensation_request is pending
    assert live.unhandled_condensation_request is pending  # the live walk agrees
