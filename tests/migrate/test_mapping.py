"""V0 -> V1 mapping, one test per action/observation type and per spec §9.6 edge case."""

from __future__ import annotations

import json

import pytest

from tests.migrate._helpers import SYN, V0, V0_FILES, kinds, migrate, migrate_all, side, v1_of
from trajkit.events import (
    ActionEvent,
    AgentErrorEvent,
    Condensation,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    MessageEvent,
    ObservationEvent,
    SystemPromptEvent,
    UnknownEvent,
    UserRejectObservation,
)


@pytest.fixture(scope="module")
def every():
    return migrate(SYN / "every_type.json")


# -- the run pair of spec §9.3, field by field ------------------------------------------------


def test_run_pair_matches_the_spec_illustration():
    conv = migrate(V0 / "wrong_initial_state.json")
    action, result = v1_of(conv, 5) + v1_of(conv, 6)
    assert isinstance(action, ActionEvent) and isinstance(result, ObservationEvent)
    assert action.timestamp == "2025-01-27T23:16:56.951967"
    assert [t.text for t in action.thought] == [
        "Great, I found the file. Now I'll use the bash command `mv` to rename it."
    ]
    assert action.action.model_dump() == {
        "command": "mv /workspace/game_2048.py /workspace/2048.py",
        "is_input": False,
        "timeout": None,  # the V0 "timeout": 120 was the runtime default, not the LLM's
        "reset": False,
        "kind": "TerminalAction",
    }
    assert action.tool_name == "execute_bash"
    assert action.tool_call_id == "toolu_01PuY3mXrE6fm3j52GscR4rj"
    assert action.tool_call.arguments == (
        '{"command": "mv /workspace/game_2048.py /workspace/2048.py", "is_input": "false"}'
    )
    assert action.llm_response_id == "chatcmpl-1f2bc7b4-848a-45ec-a2d8-aff83e5adbd6"
    assert action.security_risk == "UNKNOWN"
    assert result.action_id == action.id and result.tool_call_id == action.tool_call_id
    assert result.source == "environment" and result.tool_name == "execute_bash"
    obs = result.observation
    assert obs.kind == "TerminalObservation" and obs.exit_code == 0 and obs.timeout is False
    assert obs.command == "mv /workspace/game_2048.py /workspace/2048.py"
    assert obs.metadata.suffix == "\n[The command completed with exit code 0.]"
    assert obs.metadata.hostname == "0301ebbced1e"
    assert side(conv, 5)["timeout"] == 120  # kept in the sidecar, never lost


def test_llm_requested_timeout_is_kept():
    conv = migrate(SYN / "dangling_action.json")
    (action,) = [e for e in v1_of(conv, 1) if isinstance(e, ActionEvent)]
    assert action.action.timeout == 600.0


# -- one test per type --------------------------------------------------------------------------


def test_system_prompt_keeps_the_v0_tool_specs(every):
    (event,) = v1_of(every, 1)
    assert isinstance(event, SystemPromptEvent)
    assert event.system_prompt.text == "You are OpenHands agent."
    names = [t.title for t in event.tools]
    assert names[:3] == ["execute_bash", "execute_ipython_cell", "browser"]
    bash = event.tools[0]
    assert bash.action_type == "TerminalAction"
    assert bash.mcp_tool["inputSchema"] == {"type": "object", "properties": {}, "required": []}
    assert side(every, 1)["unmapped"] == {
        "openhands_version": "0.54.0",
        "agent_class": "CodeActAgent",
    }


def test_user_message_with_images_and_recall_folded_in(every):
    (msg,) = v1_of(every, 2)
    assert isinstance(msg, MessageEvent) and msg.source == "user"
    assert msg.llm_message.role == "user"
    assert [c.type for c in msg.llm_message.content] == ["text", "image"]
    assert msg.llm_message.content[1].image_urls == ["https://example.com/cat.png"]
    # The recall observation (V0 id 4) is folded into this message.
    assert v1_of(every, 4) == [msg]
    assert msg.activated_skills == ["github"]
    text = msg.extended_content[0].text
    assert "<REPOSITORY_INFO>" in text and "acme/app" in text
    assert "* $**GITHUB_TOKEN**: token for gh" in text
    assert "<EXTRA_INFO>" in msg.extended_content[0].text and "Use the gh CLI." in text
    assert side(every, 2)["unmapped"]["file_urls"] == ["/workspace/notes.txt"]
    assert side(every, 3)["status"] == "dropped"  # the recall action itself


def test_run_ipython_is_an_mcp_style_call_with_images(every):
    action, result = v1_of(every, 5) + v1_of(every, 6)
    assert action.tool_name == "execute_ipython_cell"
    assert action.action.kind == "MCPToolAction" and action.action.data == {"code": "print(1)"}
    assert result.observation.kind == "MCPToolObservation"
    assert result.observation.content[1].image_urls == ["data:image/png;base64,iVBORw0KGgo="]
    assert side(every, 5)["unmapped"]["include_extra"] is True


def test_browse_keeps_text_and_screenshot_and_sidecars_the_page_dump(every):
    action, result = v1_of(every, 7) + v1_of(every, 8)
    assert action.action.data == {"url": "https://example.com"}
    parts = result.observation.content
    assert parts[0].text.startswith("Example Domain")
    assert parts[1].image_urls == ["data:image/png;base64,iVBORw0KGgoAAAANSUhEUg=="]
    assert side(every, 8)["unmapped"]["dom_object"] == {"x": 1}


def test_browse_interactive(every):
    action, result = v1_of(every, 9) + v1_of(every, 10)
    assert action.tool_name == "browser"
    assert action.action.data == {"code": 'goto("https://example.com")'}
    assert result.observation.text == "[Current URL: https://example.com/]"


def test_mcp_call_with_string_arguments(every):
    action, result = v1_of(every, 11) + v1_of(every, 12)
    assert action.tool_name == "tavily_search"
    assert action.action.kind == "MCPToolAction" and action.action.data == {"query": "openhands"}
    assert result.observation.tool_name == "tavily_search"
    assert "docs.all-hands.dev" in result.observation.text


def test_think_uses_the_tool_argument_not_the_merged_thought(every):
    action, result = v1_of(every, 13) + v1_of(every, 14)
    assert action.action.kind == "ThinkAction" and action.action.thought == "Compare both pages."
    assert [t.text for t in action.thought] == ["Step 13."]  # the response text
    assert result.observation.kind == "ThinkObservation"
    assert result.observation.text == "Your thought has been logged."


def test_llm_based_edit_keeps_raw_call_and_diff(every):
    action, result = v1_of(every, 15) + v1_of(every, 16)
    assert action.tool_name == "edit_file" and action.action.kind == "MCPToolAction"
    assert result.observation.text.startswith("--- /workspace/a.py")
    assert "_diff_cache" in side(every, 16)["unmapped"]


def test_str_replace_editor_edit(every):
    action, result = v1_of(every, 17) + v1_of(every, 18)
    assert action.action.model_dump(exclude_none=True) == {
        "command": "str_replace",
        "path": "/workspace/a.py",
        "old_str": "x = 2",
        "new_str": "x = 3",
        "kind": "FileEditorAction",
    }
    obs = result.observation
    assert obs.kind == "FileEditorObservation" and obs.command == "str_replace"
    assert (obs.old_content, obs.new_content, obs.prev_exist) == ("x = 2\n", "x = 3\n", True)


def test_read_is_a_file_editor_view():
    conv = migrate(V0 / "wrong_initial_state.json")
    action, result = v1_of(conv, 3) + v1_of(conv, 4)
    assert action.action.kind == "FileEditorAction" and action.action.command == "view"
    assert action.action.path == "/workspace"
    assert result.observation.kind == "FileEditorObservation"
    assert result.observation.text.endswith("/workspace/game_2048.py")


def test_old_edit_uses_formatted_output_and_translated_code():
    conv = migrate(V0 / "basic.json")
    action, result = v1_of(conv, 3) + v1_of(conv, 4)
    assert action.action.command == "create" and action.action.path == "/workspace/game_2048.py"
    assert action.action.file_text.startswith("import random")
    # 2024-12..2025-02: the LLM saw formatted_output_and_error, not the diff in `content`.
    assert result.observation.text == "File created successfully at: /workspace/game_2048.py"


def test_task_tracking_uses_v1_task_tracker_shape(every):
    action, result = v1_of(every, 19) + v1_of(every, 20)
    assert action.action.kind == "TaskTrackerAction"
    assert action.action.model_dump()["task_list"] == [
        {"title": "Write tests", "status": "todo", "notes": ""}
    ]
    assert result.observation.kind == "TaskTrackerObservation"


def test_delegate_result_is_outputs_content_and_sub_agent_events_set_aside(every):
    action, result = v1_of(every, 21) + v1_of(every, 24)
    assert action.tool_name == "delegate_to_browsing_agent"
    assert result.action_id == action.id
    assert result.observation.text == "Docs are at https://docs.example.com"
    assert [e["id"] for e in every.sidecar["delegate_events"]] == [22, 23]
    assert (
        every.report.dropped_by_reason["delegate sub-agent event (kept whole in the sidecar)"] == 2
    )


def test_user_rejected_and_security_risk(every):
    action, result = v1_of(every, 25) + v1_of(every, 26)
    assert action.security_risk == "HIGH"
    assert isinstance(result, UserRejectObservation)
    assert result.action_id == action.id and result.tool_call_id == "call_25"
    assert result.rejection_reason.startswith("Action has been rejected by the user!")


def test_error_answering_a_call_is_an_agent_error(every):
    action, result = v1_of(every, 27) + v1_of(every, 28)
    assert isinstance(result, AgentErrorEvent) and result.tool_call_id == action.tool_call_id
    assert result.error == (
        "cat: missing.txt: No such file or directory\n[Error occurred in processing last action]"
    )


def test_untied_error_becomes_an_environment_message():
    conv = migrate(SYN / "dangling_action.json")
    (msg,) = v1_of(conv, 3)
    assert isinstance(msg, MessageEvent) and msg.source == "environment"
    assert msg.llm_message.role == "user"
    assert msg.llm_message.text.startswith("Your last response did not contain")


def test_condensation_forgets_every_v1_event_of_the_forgotten_ids(every):
    (cond,) = v1_of(every, 29)
    assert isinstance(cond, Condensation)
    forgotten = [e.id for e in v1_of(every, 5) + v1_of(every, 6)]
    assert cond.forgotten_event_ids == forgotten
    assert (cond.summary, cond.summary_offset) == ("Printed 1 in IPython.", 1)
    assert cond.llm_response_id == "v0-condensation-29"


def test_condensation_ranges_of_a_real_trajectory():
    conv = migrate(V0 / "tls_scanner__trajectory.json")
    conds = [e for e in conv.events if isinstance(e, Condensation)]
    assert len(conds) == 3
    first = conds[0]
    expected = {x for i in range(8, 70) for x in side(conv, i)["v1_ids"]}
    assert set(first.forgotten_event_ids) == expected
    assert first.summary_offset == 4


def test_condensation_request_with_and_without_a_tool_call(every):
    assert kinds(v1_of(every, 30)) == [
        "ActionEvent:MCPToolAction",
        "ObservationEvent:MCPToolObservation",
        "CondensationRequest",
    ]
    assert kinds(v1_of(every, 31)) == ["CondensationRequest"]


def test_user_run_command_becomes_user_messages(every):
    (cmd,) = v1_of(every, 32)
    (out,) = v1_of(every, 33)
    assert cmd.llm_message.text == "User executed the command:\ngit status"
    assert out.llm_message.text.startswith(
        "\nObserved result of command executed by user:\nOn branch main"
    )


def test_pre_function_calling_write_gets_a_synthesized_call(every):
    action, result = v1_of(every, 34) + v1_of(every, 35)
    assert action.tool_call_id == "v0-call-34" and action.tool_name == "str_replace_editor"
    assert json.loads(action.tool_call.arguments) == {
        "path": "/workspace/b.txt", "content": "hello", "start": 0, "end": -1,
    }  # fmt: skip
    assert [t.text for t in action.thought] == ["Writing b.txt."]
    assert result.tool_call_id == "v0-call-34"


def test_success_observation_is_an_environment_message(every):
    (msg,) = v1_of(every, 36)
    assert msg.source == "environment" and msg.llm_message.text == "Tests passed"


def test_legacy_and_unknown_types_are_kept_opaque_and_reported(every):
    for v0_id in (37, 38, 39):
        (event,) = v1_of(every, v0_id)
        assert isinstance(event, UnknownEvent) and event.kind == "V0Event"
        assert event.raw["v0"]["id"] == v0_id
    assert every.report.opaque == 3
    assert "unknown V0 type 'action:frobnicate' kept as an opaque V0Event" in every.report.warnings


def test_hidden_events_are_dropped_but_kept_in_the_sidecar(every):
    assert v1_of(every, 40) == [] and v1_of(every, 41) == []
    assert side(every, 40)["status"] == "dropped" and side(every, 40)["v0"]["args"]["hidden"]


def test_reject_is_an_agent_message(every):
    (msg,) = v1_of(every, 42)
    assert msg.source == "agent" and msg.llm_message.role == "assistant"
    assert "cannot reach the site" in msg.llm_message.text


def test_agent_state_changes(every):
    (update,) = v1_of(every, 0)
    assert isinstance(update, ConversationStateUpdateEvent)
    assert (update.key, update.value) == ("execution_status", "idle")
    update, error = v1_of(every, 43)
    assert update.value == "error"
    assert isinstance(error, ConversationErrorEvent) and error.detail == "LLM quota exceeded"
    assert v1_of(every, 50)[0].value == "finished"
    assert every.base_state.execution_status == "finished"


def test_agent_message(every):
    (msg,) = v1_of(every, 45)
    assert msg.source == "agent" and msg.llm_message.text == "I fixed a.py; anything else?"


def test_change_agent_state_null_and_loop_recovery_are_dropped(every):
    for v0_id in (46, 47, 48):
        assert v1_of(every, v0_id) == []
        assert side(every, v0_id)["status"] == "dropped"


def test_finish_gets_a_synthesized_observation(every):
    action, result = v1_of(every, 49)
    assert action.action.kind == "FinishAction" and action.action.message == "All set."
    assert action.thought == []  # the response had no text
    assert result.observation.kind == "FinishObservation" and result.observation.text == "All set."
    assert side(every, 49)["unmapped"]["task_completed"] == "true"


def test_finish_without_message_uses_the_v0_display_text():
    conv = migrate(V0 / "basic_interactions.json")
    action, _ = v1_of(conv, 15)
    assert action.action.message == "All done! What's next on the agenda?"


# -- spec §9.6 edge cases --------------------------------------------------------------------


def test_several_calls_in_one_response_are_one_assistant_turn():
    conv = migrate(SYN / "multi_call_response.json")
    assert kinds(conv.events) == [
        "MessageEvent",
        "ActionEvent:TerminalAction",
        "ActionEvent:FileEditorAction",
        "ObservationEvent:TerminalObservation",
        "ObservationEvent:FileEditorObservation",
        "ActionEvent:FinishAction",
        "ObservationEvent:FinishObservation",
    ]
    first, second = conv.events[1], conv.events[2]
    assert first.llm_response_id == second.llm_response_id == "chatcmpl-multi-1"
    assert [t.text for t in first.thought] == ["I'll list the files and read the README."]
    assert first.reasoning_content == "Two independent reads; do both at once."
    assert second.thought == [] and second.reasoning_content is None
    assert [conv.events[3].action_id, conv.events[4].action_id] == [first.id, second.id]


def test_dangling_final_action_is_answered_by_a_synthesized_error():
    conv = migrate(SYN / "dangling_action.json")
    action, error = v1_of(conv, 4)
    assert isinstance(error, AgentErrorEvent) and error.tool_call_id == action.tool_call_id
    assert "has not been executed" in error.error
    assert conv.report.synthesized_by_kind == {"AgentErrorEvent for a call without result": 1}


def test_conversation_with_no_user_message():
    conv = migrate(SYN / "no_user_message.json")
    assert kinds(conv.events) == [
        "SystemPromptEvent",
        "ActionEvent:ThinkAction",
        "ObservationEvent:ThinkObservation",
        "ActionEvent:FinishAction",
        "ObservationEvent:FinishObservation",
    ]
    assert conv.base_state.last_user_message_id is None


def test_pairs_history_before_function_calling():
    pairs = migrate_all(SYN / "eval_output.jsonl")[0]
    assert kinds(pairs.events) == [
        "MessageEvent",
        "ActionEvent:TerminalAction",
        "ObservationEvent:TerminalObservation",
        "ActionEvent:MCPToolAction",
        "ObservationEvent:MCPToolObservation",
        "ActionEvent:FinishAction",
        "ObservationEvent:FinishObservation",
    ]
    run = pairs.events[1]
    assert run.tool_call_id == "v0-call-1" and run.tool_name == "execute_bash"
    assert json.loads(run.tool_call.arguments) == {"command": "cat a.py", "is_input": False}
    assert run.llm_response_id == "v0-response-1"
    obs = pairs.events[2].observation
    assert obs.exit_code == 0  # legacy extras.exit_code moved into metadata
    assert pairs.report.dropped_by_reason == {"pairs filler": 2}
    assert side(pairs, 1)["unmapped"] == {"background": False}
    assert pairs.base_state.stats.usage_to_metrics["agent"].accumulated_cost == 0.25


def test_resolver_records_get_ids_sources_and_causes():
    conv = migrate(SYN / "resolver_output.jsonl")
    assert kinds(conv.events) == [
        "MessageEvent",
        "ActionEvent:TerminalAction",
        "ObservationEvent:TerminalObservation",
        "ActionEvent:FinishAction",
        "ObservationEvent:FinishObservation",
    ]
    assert conv.events[0].source == "user"
    assert conv.events[0].timestamp == "1970-01-01T00:00:00"
    assert conv.events[2].action_id == conv.events[1].id
    assert side(conv, 1)["unmapped"] == {
        "keep_prompt": True, "confirmation_state": "confirmed", "action_risk": None,
    }  # fmt: skip


def test_duplicate_tool_call_ids_are_made_unique_and_kept_in_the_sidecar():
    conv = migrate(V0 / "tls_scanner__trajectory.json")
    actions = [e for e in conv.events if isinstance(e, ActionEvent)]
    assert len(actions) == 88
    assert len({a.tool_call_id for a in actions}) == 88
    renamed = [e for e in conv.sidecar["events"] if "original_tool_call_id" in e]
    assert len(renamed) == 33  # 88 calls, 55 distinct V0 ids
    for a in actions:
        assert a.tool_call.id == a.tool_call_id


def test_result_arriving_after_a_user_message_is_pulled_next_to_its_call():
    conv = migrate(V0 / "tls_scanner__trajectory.json")
    ids = [e.id for e in conv.events]
    action = v1_of(conv, 128)[0]
    result = v1_of(conv, 132)[0]
    user = v1_of(conv, 129)[0]
    assert ids.index(result.id) == ids.index(action.id) + 1 < ids.index(user.id)


SYNTHETIC_FILES = [
    SYN / name
    for name in (
        "every_type.json", "multi_call_response.json", "dangling_action.json",
        "no_user_message.json", "api_response.json",
    )
]  # fmt: skip


@pytest.mark.parametrize("path", V0_FILES + SYNTHETIC_FILES, ids=lambda p: p.name)
def test_every_v0_event_is_accounted_for(path):
    conv = migrate(path)
    report = conv.report
    delegated = len(conv.sidecar["delegate_events"])
    total = sum(report.source_types.values())
    assert report.mapped + report.opaque + report.dropped == total
    assert len(conv.sidecar["events"]) + delegated == total


def test_tool_names_v1_renames_calls_results_and_tools():
    conv = migrate(V0 / "tls_scanner__trajectory.json", tool_names="v1")
    names = {e.tool_name for e in conv.events if isinstance(e, ActionEvent | ObservationEvent)}
    assert "execute_bash" not in names and "terminal" in names
    for e in conv.events:
        if isinstance(e, ActionEvent):
            assert e.tool_call.name == e.tool_name
    system = next(e for e in conv.events if isinstance(e, SystemPromptEvent))
    assert system.tools[0].title == "terminal" and system.tools[0].mcp_tool["name"] == "terminal"
    keep = migrate(V0 / "tls_scanner__trajectory.json")
    # Arguments are the LLM's bytes under both options.
    args_v1 = [e.tool_call.arguments for e in conv.events if isinstance(e, ActionEvent)]
    args_keep = [e.tool_call.arguments for e in keep.events if isinstance(e, ActionEvent)]
    assert args_v1 == args_keep


def test_sidecar_keeps_metrics_cause_and_response_metadata():
    conv = migrate(V0 / "sessions" / "63b4315947a049e2b7a51249b3d4fcc3")
    entry = side(conv, 9)
    assert entry["cause"] == 8 and entry["type"] == "observation:run_ipython"
    assert side(conv, 8)["llm_metrics"]["accumulated_cost"] == pytest.approx(0.02631075)
    response = conv.sidecar["responses"]["chatcmpl-4c98268c-36b0-4401-99da-005af37bac86"]
    assert response["usage"]["completion_tokens"] == 115
    stats = conv.base_state.stats.usage_to_metrics["agent"]
    assert stats.accumulated_cost == pytest.approx(0.0347178)
    assert stats.accumulated_token_usage.prompt_tokens == 13332


def test_ids_are_deterministic_and_content_derived():
    a = migrate(V0 / "basic.json")
    b = migrate(V0 / "basic.json")
    assert a.id == b.id and [e.id for e in a.events] == [e.id for e in b.events]
    assert a.id != migrate(V0 / "wrong_initial_state.json").id


def test_download_observation_answers_its_browser_call(every):
    action, result = v1_of(every, 51) + v1_of(every, 52)
    assert result.action_id == action.id
    assert result.observation.kind == "MCPToolObservation"
    assert result.observation.text == "Downloaded the file at location: /workspace/report.pdf"
    assert side(every, 52)["unmapped"] == {"file_path": "/workspace/report.pdf"}


def test_condense_and_loop_detection_observations_are_dropped(every):
    assert v1_of(every, 53) == [] and v1_of(every, 54) == []
    assert every.report.dropped_by_reason["condense observation (no V1 counterpart)"] == 1
    assert every.report.dropped_by_reason["loop_detection observation (no V1 counterpart)"] == 1


def test_unfinished_delegate_sets_aside_only_until_the_next_user_message(tmp_path):
    events = json.loads((SYN / "every_type.json").read_text())
    events = [e for e in events if e["id"] <= 23]  # the delegate (21) never returned
    user = {"id": 60, "timestamp": "2025-07-09T13:50:00", "source": "user", "message": "Stop.",
            "action": "message", "args": {"content": "Stop.", "image_urls": []}}  # fmt: skip
    path = tmp_path / "t.json"
    path.write_text(json.dumps([*events, user]))
    conv = migrate(path)
    assert [e["id"] for e in conv.sidecar["delegate_events"]] == [22, 23]
    action, error = v1_of(conv, 21)
    assert isinstance(error, AgentErrorEvent) and error.tool_call_id == action.tool_call_id
    (msg,) = v1_of(conv, 60)
    assert msg.llm_message.text == "Stop."
