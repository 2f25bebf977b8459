"""Confirmation policies: which risks stop a run (the runtime flow is tested below them)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from trajkit.sdk.security.confirmation_policy import (
    AlwaysConfirm,
    ConfirmRisky,
    NeverConfirm,
    parse_confirmation_policy,
)
from trajkit.sdk.security.llm_analyzer import LLMSecurityAnalyzer, parse_security_analyzer


@pytest.mark.parametrize(
    ("policy", "risk", "expected"),
    [
        (NeverConfirm(), "HIGH", False),
        (AlwaysConfirm(), "LOW", True),
        (ConfirmRisky(), "HIGH", True),
        (ConfirmRisky(), "MEDIUM", False),
        (ConfirmRisky(), "UNKNOWN", True),
        (ConfirmRisky(confirm_unknown=False), "UNKNOWN", False),
        (ConfirmRisky(threshold="MEDIUM"), "MEDIUM", True),
        (ConfirmRisky(threshold="MEDIUM"), "LOW", False),
    ],
)
def test_should_confirm(policy, risk, expected):
    assert policy.should_confirm(risk) is expected


def test_parse_policy_shapes():
    assert parse_confirmation_policy(None) == NeverConfirm()
    assert parse_confirmation_policy({"kind": "AlwaysConfirm"}) == AlwaysConfirm()
    assert parse_confirmation_policy("ConfirmRisky") == ConfirmRisky()
    risky = parse_confirmation_policy(
        {"kind": "ConfirmRisky", "threshold": "MEDIUM", "confirm_unknown": False}
    )
    assert risky.model_dump() == {
        "threshold": "MEDIUM",
        "confirm_unknown": False,
        "kind": "ConfirmRisky",
    }
    with pytest.raises(ValidationError):
        parse_confirmation_policy({"kind": "ConfirmRisky", "threshold": "UNKNOWN"})
    with pytest.raises(ValidationError):
        parse_confirmation_policy({"kind": "SometimesConfirm"})


def test_llm_security_analyzer():
    analyzer = parse_security_analyzer({"kind": "LLMSecurityAnalyzer"})
    assert isinstance(analyzer, LLMSecurityAnalyzer)
    assert analyzer.security_risk({"security_risk": "high"}) == "HIGH"
    assert analyzer.security_risk({"security_risk": "HIGH"}, read_only=True) == "UNKNOWN"
    assert analyzer.security_risk({}) == "UNKNOWN"
    assert parse_security_analyzer(None) is None


def test_finish_and_think_never_wait(llm_server, tmp_path):
    from tests.sdk.helpers import make_agent
    from trajkit.sdk import Conversation

    llm_server.enqueue_tool_call("think", {"thought": "plan"})
    llm_server.enqueue_tool_call("finish", {"message": "done"})
    conv = Conversation(
        agent=make_agent(llm_server), workspace=tmp_path / "ws", persistence_dir=tmp_path / "c"
    )
    conv.set_confirmation_policy(AlwaysConfirm())
    conv.send_message("nothing to do")
    conv.run()
    assert conv.state.execution_status == "finished"
    assert conv.pending_actions() == []
    conv.close()


def test_get_unmatched_actions_lists_what_waits_for_confirmation(llm_server, tmp_path):
    from tests.sdk.helpers import make_agent
    from trajkit.sdk import BaseConversation, Conversation
    from trajkit.sdk.conversation.state import ConversationState

    llm_server.enqueue_tool_call("terminal", {"command": "echo hi > made.txt"})
    llm_server.enqueue_text("done")
    conv = Conversation(agent=make_agent(llm_server), workspace=tmp_path / "ws")
    assert isinstance(conv, BaseConversation)
    conv.set_confirmation_policy(AlwaysConfirm())
    conv.send_message("make a file")
    conv.run()
    assert conv.state.execution_status == "waiting_for_confirmation"
    pending = ConversationState.get_unmatched_actions(conv.state.events)
    assert [a.action.command for a in pending] == ["echo hi > made.txt"]
    assert not (tmp_path / "ws" / "made.txt").exists()
    conv.run()  # confirmed: runs the action, then the model answers
    assert ConversationState.get_unmatched_actions(conv.state.events) == []
    assert (tmp_path / "ws" / "made.txt").read_text() == "hi\n"
    conv.close()


def test_local_analyzers_rate_actions():
    from trajkit.sdk.security import (
        EnsembleSecurityAnalyzer,
        PatternSecurityAnalyzer,
        PolicyRailSecurityAnalyzer,
        SecurityRisk,
        parse_security_analyzer,
    )

    pattern, rail = PatternSecurityAnalyzer(), PolicyRailSecurityAnalyzer()
    both = EnsembleSecurityAnalyzer(analyzers=[rail, pattern])
    assert pattern.security_risk({"command": "rm -rf build/ "}) == "HIGH"
    assert pattern.security_risk({"command": "curl -O https://example.com/a.tgz"}) == "MEDIUM"
    assert pattern.security_risk({"command": "ls -la", "security_risk": "HIGH"}) == "LOW"
    assert rail.security_risk({"command": "cat ~/.ssh/id_rsa"}) == "HIGH"
    assert rail.security_risk({"command": "ls"}) == "UNKNOWN"
    assert both.security_risk({"command": "ls"}) == "LOW"  # the rail's UNKNOWN is ignored
    strict = EnsembleSecurityAnalyzer(analyzers=[rail, pattern], propagate_unknown=True)
    assert strict.security_risk({"command": "ls"}) == "UNKNOWN"
    assert parse_security_analyzer(both.model_dump(mode="json")) == both  # restored as written
    assert ConfirmRisky(threshold=SecurityRisk.HIGH).model_dump(mode="json")["threshold"] == "HIGH"


def test_an_ensemble_makes_a_risky_command_wait(llm_server, tmp_path):
    import json

    from tests.sdk.helpers import make_agent
    from trajkit.sdk import Conversation
    from trajkit.sdk.security import (
        EnsembleSecurityAnalyzer,
        PatternSecurityAnalyzer,
        PolicyRailSecurityAnalyzer,
    )

    llm_server.enqueue_tool_call("terminal", {"command": "echo ok", "security_risk": "LOW"})
    llm_server.enqueue_tool_call("terminal", {"command": "rm -rf data ", "security_risk": "LOW"})
    conv = Conversation(
        agent=make_agent(llm_server), workspace=tmp_path / "ws", persistence_dir=tmp_path / "c"
    )
    conv.set_security_analyzer(
        EnsembleSecurityAnalyzer(
            analyzers=[PolicyRailSecurityAnalyzer(), PatternSecurityAnalyzer()]
        )
    )
    conv.set_confirmation_policy(ConfirmRisky())
    conv.send_message("clean up")
    conv.run()
    assert conv.state.execution_status == "waiting_for_confirmation"
    risks = [e.security_risk for e in conv.state.events if e.kind == "ActionEvent"]
    assert risks == ["LOW", "HIGH"]  # the analyzer's rating, not the model's
    saved = json.loads(next((tmp_path / "c").glob("*/base_state.json")).read_text())
    assert saved["security_analyzer"]["kind"] == "EnsembleSecurityAnalyzer"
    assert [a["kind"] for a in saved["security_analyzer"]["analyzers"]] == [
        "PolicyRailSecurityAnalyzer",
        "PatternSecurityAnalyzer",
    ]
    conv.close()
