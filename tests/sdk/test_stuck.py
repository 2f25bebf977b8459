"""Stuck detection patterns on hand-built event sequences (the runtime test is in
test_state_restore.py)."""

from __future__ import annotations

import itertools
import json

from trajkit.events import (
    ActionEvent,
    AgentErrorEvent,
    Message,
    MessageEvent,
    MessageToolCall,
    ObservationEvent,
    TerminalAction,
    TerminalObservation,
    TextContent,
)
from trajkit.sdk.conversation.stuck_detector import StuckThresholds, detect_stuck

_ids = itertools.count()


def _user(text="go"):
    return MessageEvent(
        source="user", llm_message=Message(role="user", content=[TextContent(text=text)])
    )


def _agent(text="hmm"):
    return MessageEvent(
        source="agent", llm_message=Message(role="assistant", content=[TextContent(text=text)])
    )


def _pair(command, output, *, error=None):
    call_id = f"call_{next(_ids)}"
    args = json.dumps({"command": command})
    action = ActionEvent(
        thought=[],
        action=TerminalAction(command=command),
        tool_name="terminal",
        tool_call_id=call_id,
        tool_call=MessageToolCall(id=call_id, name="terminal", arguments=args),
        llm_response_id=f"resp_{call_id}",
    )
    if error is not None:
        return [action, AgentErrorEvent(tool_name="terminal", tool_call_id=call_id, error=error)]
    obs = ObservationEvent(
        tool_name="terminal",
        tool_call_id=call_id,
        action_id=action.id,
        observation=TerminalObservation(
            content=[TextContent(text=output)], command=command, exit_code=0
        ),
    )
    return [action, obs]


def test_same_action_and_observation_four_times():
    events = [_user()] + _pair("ls", "a") * 1
    for _ in range(3):
        events += _pair("ls", "a")
    verdict = detect_stuck(events)
    assert verdict is not None and verdict.pattern == "action_observation"
    assert detect_stuck(events[:-2]) is None  # only three


def test_different_outputs_are_not_stuck():
    events = [_user()]
    for i in range(5):
        events += _pair("ls", f"a{i}")
    assert detect_stuck(events) is None


def test_same_error_three_times():
    events = [_user()]
    for _ in range(3):
        events += _pair("bad", "", error="Error validating args")
    verdict = detect_stuck(events)
    assert verdict is not None and verdict.pattern == "action_error"


def test_monologue():
    events = [_user(), _agent("a"), _agent("b")]
    assert detect_stuck(events) is None
    verdict = detect_stuck([*events, _agent("c")])
    assert verdict is not None and verdict.pattern == "monologue"


def test_alternating_pattern():
    events = [_user()]
    for _ in range(3):
        events += _pair("ls", "a") + _pair("pwd", "/w")
    verdict = detect_stuck(events)
    assert verdict is not None and verdict.pattern == "alternating_pattern"


def test_user_message_resets_history():
    events = [_user()]
    for _ in range(4):
        events += _pair("ls", "a")
    assert detect_stuck(events) is not None
    assert detect_stuck([*events, _user("try something else")]) is None


def test_thresholds_are_configurable():
    events = [_user()] + _pair("ls", "a") + _pair("ls", "a")
    assert detect_stuck(events) is None
    assert detect_stuck(events, StuckThresholds(action_observation=2)) is not None
