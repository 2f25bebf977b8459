"""Parity scenarios: scripts written against openhands-sdk 1.58.2's API.

Each ``scenario_<name>(server, work)`` is an SDK script: it queues the model's answers on the
scripted loopback server, drives a conversation under ``work`` and returns what the script
observed (exception class names, statuses, callback kinds). ``record_sdk.py`` runs this file
as it is with the SDK (``/work/sdk-venv``) and writes ``expected/<name>.json``; the parity tests
run the same text with ``openhands.sdk`` -> ``trajkit.sdk`` and ``openhands.tools`` ->
``trajkit.tools`` (the issue's rule: nothing else changes) and compare.

Imports sit inside the functions so the renaming covers them and the file imports nothing
from either package when loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import SecretStr

from tests.support.llm_server import ScriptedLLMServer


def _llm(server: ScriptedLLMServer, **kw: Any) -> Any:
    from openhands.sdk import LLM

    opts: dict[str, Any] = {
        "model": "openai/gpt-4o",
        "api_key": SecretStr("sk-parity-key"),
        "base_url": server.base_url,
        "usage_id": "agent",
        "num_retries": 0,
    }
    opts.update(kw)
    return LLM(**opts)


def _conversation(server: ScriptedLLMServer, work: Path, **kw: Any) -> Any:
    from openhands.sdk import Agent, Conversation

    agent = kw.pop("agent", None) or Agent(llm=kw.pop("llm", None) or _llm(server), tools=[])
    opts: dict[str, Any] = {
        "agent": agent,
        "workspace": str(work / "ws"),
        "persistence_dir": str(work / "conversations"),
        "visualizer": None,
    }
    opts.update(kw)
    return Conversation(**opts)


def scenario_hello(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_text("Hello! How can I help?")
    seen: list[str] = []
    conversation = _conversation(server, work, callbacks=[lambda e: seen.append(type(e).__name__)])
    conversation.send_message("Say hello.")
    conversation.run()
    return {
        "callback_kinds": seen,
        "status": str(conversation.state.execution_status.value),
        "workspace_kind": type(conversation.workspace).__name__,
        "prompt_cache_key_is_id": server.requests[0].body.get("prompt_cache_key")
        == str(conversation.id),
    }


def _failing_run(server: ScriptedLLMServer, work: Path, status: int) -> dict[str, Any]:
    from openhands.sdk.conversation.exceptions import ConversationRunError

    server.enqueue_error(status, "scripted failure")
    seen: list[str] = []
    conversation = _conversation(server, work, callbacks=[lambda e: seen.append(type(e).__name__)])
    conversation.send_message("Do something.")
    raised: dict[str, Any] = {"raised": None}
    try:
        conversation.run()
    except ConversationRunError as e:
        raised = {
            "raised": type(e).__name__,
            "original": type(e.original_exception).__name__,
            "cause": type(e.__cause__).__name__ if e.__cause__ else None,
            "conversation_id_matches": e.conversation_id == conversation.id,
            "has_error_event": e.conversation_error is not None,
        }
    return {
        **raised,
        "status": str(conversation.state.execution_status.value),
        "callback_kinds": seen,
    }


def scenario_error_400(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    return _failing_run(server, work, 400)


def scenario_error_401(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    return _failing_run(server, work, 401)


def scenario_error_503(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    return _failing_run(server, work, 503)


def scenario_stuck_dict(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    for _ in range(6):
        server.enqueue_tool_call("think", {"thought": "same thought"})
    server.enqueue_text("unreachable")
    conversation = _conversation(
        server,
        work,
        stuck_detection_thresholds={
            "action_observation": 3,
            "action_error": 3,
            "monologue": 3,
            "alternating_pattern": 6,
        },
    )
    conversation.send_message("Think.")
    conversation.run()
    return {
        "status": str(conversation.state.execution_status.value),
        "requests": len(server.requests),
    }


def scenario_secrets_update(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_text("Noted.")
    server.enqueue_text("Still noted.")
    conversation = _conversation(server, work)
    conversation.send_message("First.")
    conversation.run()
    conversation.update_secrets({"PARITY_TOKEN": "tok-value-123"})
    conversation.send_message("Second.")
    conversation.run()
    texts = [str(r.body) for r in server.requests]
    return {
        "name_in_first_request": "PARITY_TOKEN" in texts[0],
        "name_in_second_request": "PARITY_TOKEN" in texts[1],
        "value_in_any_request": any("tok-value-123" in t for t in texts),
    }


def scenario_repeated_ids(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_tool_call("think", {"thought": "one"}, call_id="call_dup")
    server.enqueue_tool_call("think", {"thought": "two"}, call_id="call_dup")
    server.enqueue_text("done")
    conversation = _conversation(server, work)
    conversation.send_message("Think twice.")
    conversation.run()
    return {"status": str(conversation.state.execution_status.value)}


def scenario_pause(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_tool_call("think", {"thought": "a"})
    server.enqueue_tool_call("think", {"thought": "b"})
    server.enqueue_text("done")
    conversation = _conversation(server, work)
    statuses: list[str] = []
    conversation.send_message("Think.")
    conversation.pause()
    statuses.append(str(conversation.state.execution_status.value))
    conversation.run()  # a paused conversation runs again when asked
    statuses.append(str(conversation.state.execution_status.value))
    return {"statuses": statuses, "requests": len(server.requests)}


def scenario_pause_in_callback(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    from openhands.sdk.event import ActionEvent

    server.enqueue_tool_call("think", {"thought": "a"})
    server.enqueue_tool_call("think", {"thought": "b"})
    server.enqueue_text("done")
    holder: dict[str, Any] = {}

    def on_event(event: Any) -> None:
        if isinstance(event, ActionEvent) and not holder.get("paused"):
            holder["paused"] = True
            holder["conversation"].pause()

    conversation = _conversation(server, work, callbacks=[on_event])
    holder["conversation"] = conversation
    conversation.send_message("Think.")
    conversation.run()
    first = str(conversation.state.execution_status.value)
    conversation.run()
    return {
        "status_after_pause": first,
        "status": str(conversation.state.execution_status.value),
        "requests": len(server.requests),
    }


def scenario_wire_gpt4o(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_text("ok")
    llm = _llm(server, temperature=0.3, top_p=0.9, seed=7)
    conversation = _conversation(server, work, llm=llm)
    conversation.send_message("Hi.")
    conversation.run()
    return {}


def scenario_wire_gpt41(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_text("ok")
    llm = _llm(server, model="openai/gpt-4.1", temperature=0.3, top_p=0.9, max_output_tokens=999)
    conversation = _conversation(server, work, llm=llm)
    conversation.send_message("Hi.")
    conversation.run()
    return {}


def scenario_wire_claude(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_text("ok")
    llm = _llm(server, model="openai/claude-sonnet-4-5", temperature=0.3, top_p=0.9)
    conversation = _conversation(server, work, llm=llm)
    conversation.send_message("Hi.")
    conversation.run()
    return {}


def scenario_wire_o3(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_text("ok")
    llm = _llm(server, model="openai/o3-mini", temperature=0.3, reasoning_effort="low")
    conversation = _conversation(server, work, llm=llm)
    conversation.send_message("Hi.")
    conversation.run()
    return {}


def scenario_wire_responses(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_text("ok", reasoning_content="thinking it over")
    llm = _llm(server, model="openai/gpt-5-mini", temperature=0.3, reasoning_summary="auto")
    conversation = _conversation(server, work, llm=llm)
    conversation.send_message("Hi.")
    conversation.run()
    return {}


def scenario_default_workspace(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    import os

    from openhands.sdk import Agent, Conversation

    server.enqueue_text("ok")
    before = os.getcwd()
    os.chdir(work)
    try:
        conversation = Conversation(agent=Agent(llm=_llm(server), tools=[]), visualizer=None)
        conversation.send_message("Hi.")
        conversation.run()
        wd = Path(conversation.workspace.working_dir)
        return {
            "workspace_kind": type(conversation.workspace).__name__,
            "working_dir_is_cwd": wd.resolve() == work.resolve(),
            "working_dir_absolute": wd.is_absolute(),
            "files_in_cwd": sorted(p.name for p in work.iterdir()),
            "persistence_dir": conversation.state.persistence_dir,
        }
    finally:
        os.chdir(before)


def scenario_secrets_before_first_message(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_text("Noted.")
    conversation = _conversation(server, work)
    conversation.update_secrets({"PARITY_TOKEN": "tok-value-123"})
    conversation.send_message("Use the token.")
    conversation.run()
    text = str(server.requests[0].body)
    return {
        "name_in_request": "PARITY_TOKEN" in text,
        "value_in_request": "tok-value-123" in text,
        "name_in_system_prompt": "PARITY_TOKEN" in str(server.requests[0].body["messages"][0]),
    }


def scenario_construct_only(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    conversation = _conversation(server, work)
    return {"status": str(conversation.state.execution_status.value)}


def _condensing_agent(server: ScriptedLLMServer, max_size: int, keep_first: int) -> Any:
    from openhands.sdk import Agent
    from openhands.sdk.context.condenser import LLMSummarizingCondenser

    condenser = LLMSummarizingCondenser(
        llm=_llm(server, usage_id="condenser"), max_size=max_size, keep_first=keep_first
    )
    return Agent(llm=_llm(server), tools=[], condenser=condenser)


def _request_kinds(server: ScriptedLLMServer) -> list[str]:
    """Which LLM each request came from: the condenser's has no tools."""
    return ["agent" if r.body.get("tools") else "condenser" for r in server.requests]


def scenario_condense_auto(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    for i in range(3):
        server.enqueue_tool_call("think", {"thought": f"step {i}"})
    server.enqueue_text("SUMMARY-1: the user asked to think; three thoughts were logged.")
    server.enqueue_tool_call("think", {"thought": "after the summary"})
    server.enqueue_text("All done.")
    conversation = _conversation(server, work, agent=_condensing_agent(server, 6, 1))
    conversation.send_message("Think a few times, then stop.")
    conversation.run()
    stats = conversation.conversation_stats.usage_to_metrics
    return {
        "status": str(conversation.state.execution_status.value),
        "request_kinds": _request_kinds(server),
        "usage_ids": sorted(stats),
        "condenser_calls": len(stats["condenser"].token_usages) if "condenser" in stats else 0,
    }


def scenario_condense_manual(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_tool_call("think", {"thought": "one"})
    server.enqueue_tool_call("think", {"thought": "two"})
    server.enqueue_text("First answer.")
    server.enqueue_text("SUMMARY-2: two thoughts, one answer.")
    server.enqueue_text("Second answer.")
    conversation = _conversation(server, work, agent=_condensing_agent(server, 100, 1))
    conversation.send_message("First question.")
    conversation.run()
    conversation.condense()
    conversation.send_message("Second question.")
    conversation.run()
    return {
        "status": str(conversation.state.execution_status.value),
        "request_kinds": _request_kinds(server),
        "usage_ids": sorted(conversation.conversation_stats.usage_to_metrics),
    }


def scenario_condense_then_restore(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    import uuid

    server.enqueue_tool_call("think", {"thought": "one"})
    server.enqueue_tool_call("think", {"thought": "two"})
    server.enqueue_text("First answer.")
    server.enqueue_text("SUMMARY-3: two thoughts, one answer.")
    server.enqueue_text("Answer after restore.")
    cid = uuid.uuid4()
    first = _conversation(
        server, work, agent=_condensing_agent(server, 100, 1), conversation_id=cid
    )
    first.send_message("First question.")
    first.run()
    first.condense()
    del first
    restored = _conversation(
        server, work, agent=_condensing_agent(server, 100, 1), conversation_id=cid
    )
    restored.send_message("Question after restore.")
    restored.run()
    return {
        "status": str(restored.state.execution_status.value),
        "request_kinds": _request_kinds(server),
    }


def scenario_condense_without_condenser(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    conversation = _conversation(server, work)
    try:
        conversation.condense()
    except ValueError as e:
        return {"raised": type(e).__name__, "mentions": "LLMSummarizingCondenser" in str(e)}
    return {"raised": None}


def scenario_visualizers(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    import contextlib
    import io

    from openhands.sdk import Agent, Conversation
    from openhands.sdk.conversation.visualizer import ConversationVisualizerBase

    class Recording(ConversationVisualizerBase):
        def __init__(self) -> None:
            super().__init__()
            self.kinds: list[str] = []

        def on_event(self, event: Any) -> None:
            self.kinds.append(type(event).__name__)

    def run(visualizer: Any, folder: str) -> str:
        server.enqueue_tool_call("think", {"thought": "visible thought"})
        server.enqueue_text("Visible answer.")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            opts: dict[str, Any] = {} if visualizer == "default" else {"visualizer": visualizer}
            conversation = Conversation(
                agent=Agent(llm=_llm(server), tools=[]),
                workspace=str(work / "ws"),
                persistence_dir=str(work / folder),
                **opts,
            )
            conversation.send_message("Show me.")
            conversation.run()
        return out.getvalue()

    default = run("default", "c1")
    silent = run(None, "c2")
    recorder = Recording()
    custom = run(recorder, "c3")
    by_class = run(Recording, "c4")
    return {
        "default_shows_answer": "Visible answer." in default,
        "default_shows_thought": "visible thought" in default,
        "default_shows_user": "Show me." in default,
        "none_prints": silent.strip() != "",
        "custom_prints": custom.strip() != "",
        "custom_kinds": recorder.kinds,
        "custom_has_stats": recorder.conversation_stats is not None,
        "class_prints": by_class.strip() != "",
    }


def scenario_stats_and_tags(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_text("ok")
    conversation = _conversation(
        server, work, tags={"team": "parity", "run1": "x"}, max_iteration_per_run=7
    )
    conversation.send_message("Hi.", sender="tester")
    conversation.run()
    stats = conversation.conversation_stats
    combined = stats.get_combined_metrics()
    return {
        "usage_ids": sorted(stats.usage_to_metrics),
        "combined_cost_positive": combined.accumulated_cost > 0,
        "prompt_tokens": combined.accumulated_token_usage.prompt_tokens,
        "max_iteration_per_run": conversation.max_iteration_per_run,
        "stuck_detector": type(conversation.stuck_detector).__name__,
        "sender": conversation.state.events[1].sender,
        "tags": dict(conversation.state.tags),
    }


def scenario_fork(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_text("Original answer.")
    server.enqueue_text("Fork answer.")
    source = _conversation(server, work)
    source.send_message("Original question.")
    source.run()
    fork = source.fork()
    fork.send_message("Fork question.")
    fork.run()
    return {
        "new_id": fork.id != source.id,
        "fork_events": len(fork.state.events),
        "source_events": len(source.state.events),
        "fork_status": str(fork.state.execution_status.value),
        "fork_folder_differs": fork.state.persistence_dir != source.state.persistence_dir,
        "fork_cost_is_fresh": fork.conversation_stats.get_combined_metrics().accumulated_cost
        < source.conversation_stats.get_combined_metrics().accumulated_cost * 1.5,
    }


def scenario_ask_agent(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_text("Main answer.")
    server.enqueue_text("You asked about the main thing.")
    conversation = _conversation(server, work)
    conversation.send_message("Main question.")
    conversation.run()
    before = len(conversation.state.events)
    answer = conversation.ask_agent("What did I ask?")
    question = server.requests.pop()  # its wording is the SDK's prompt: checked, not kept
    return {
        "answer": answer,
        "events_added": len(conversation.state.events) - before,
        "status": str(conversation.state.execution_status.value),
        "usage_ids": sorted(conversation.conversation_stats.usage_to_metrics),
        "question_in_request": "What did I ask?" in str(question.body),
        "history_in_request": "Main answer." in str(question.body),
        "question_has_tools": bool(question.body.get("tools")),
        "question_roles": [m["role"] for m in question.body["messages"]],
    }


def scenario_generate_title(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_text("Answer.")
    server.enqueue_text("Parity Title")
    conversation = _conversation(server, work)
    conversation.send_message("Please explain how the parity suite records the SDK runs.")
    conversation.run()
    title = conversation.generate_title()
    server.enqueue_error(400, "no title today")
    fallback = conversation.generate_title(max_length=20)
    return {"title": title, "fallback": fallback, "events": len(conversation.state.events)}


def scenario_llm_methods(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    from openhands.sdk import Message, TextContent

    server.enqueue_text("one")
    llm = _llm(server)
    llm.completion(messages=[Message(role="user", content=[TextContent(text="Say one.")])])
    cost_before = llm.metrics.accumulated_cost
    calls_before = len(llm.metrics.token_usages)
    llm.reset_metrics()
    count = llm.get_token_count(
        [Message(role="user", content=[TextContent(text="hello world, count these tokens")])]
    )
    return {
        "had_cost": cost_before > 0,
        "calls_before": calls_before,
        "cost_after_reset": llm.metrics.accumulated_cost,
        "calls_after_reset": len(llm.metrics.token_usages),
        "token_count_positive": count > 0,
        "caching_gpt4o": llm.is_caching_prompt_active(),
        "caching_claude": _llm(
            server, model="anthropic/claude-sonnet-4-5"
        ).is_caching_prompt_active(),
        "caching_off": _llm(
            server, model="anthropic/claude-sonnet-4-5", caching_prompt=False
        ).is_caching_prompt_active(),
    }


def scenario_llm_fallback(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    from openhands.sdk import LLMProfileStore
    from openhands.sdk.llm import FallbackStrategy

    server.enqueue_error(503, "primary down")
    server.enqueue_text("from the fallback")
    store = LLMProfileStore(base_dir=str(work / "profiles"))
    store.save("backup", _llm(server, usage_id="backup", model="openai/gpt-4o-mini"),
               include_secrets=True)  # fmt: skip
    primary = _llm(
        server,
        fallback_strategy=FallbackStrategy(
            fallback_llms=["backup"], profile_store_dir=str(work / "profiles")
        ),
    )
    conversation = _conversation(server, work, llm=primary)
    conversation.send_message("Hi.")
    conversation.run()
    return {
        "status": str(conversation.state.execution_status.value),
        "models": [r.body.get("model") for r in server.requests],
        "usage_ids": sorted(conversation.conversation_stats.usage_to_metrics),
        "profiles": store.list(),
        "primary_calls_recorded": len(primary.metrics.token_usages),
    }


# -- the live view and the enforced view (repeated tool-call ids) ------------------------
# During a run the SDK extends its view event by event and sends both results of a repeated
# call id; the view properties (one result per id...) are enforced only where the view is
# rebuilt: restore, fork, navigation, and recovery from a history the provider refused.


def _repeated_ids_run(server: ScriptedLLMServer, work: Path, **kw: Any) -> Any:
    server.enqueue_tool_call("think", {"thought": "one"}, call_id="call_dup")
    server.enqueue_tool_call("think", {"thought": "two"}, call_id="call_dup")
    server.enqueue_text("done")
    conversation = _conversation(server, work, **kw)
    conversation.send_message("Think twice.")
    conversation.run()
    return conversation


def _tool_results(request: Any) -> list[str]:
    return [m["tool_call_id"] for m in request.body["messages"] if m["role"] == "tool"]


def scenario_repeated_ids_restore(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    import uuid

    cid = uuid.uuid4()
    first = _repeated_ids_run(server, work, conversation_id=cid)
    del first
    server.enqueue_text("after restore")
    restored = _conversation(server, work, conversation_id=cid)
    restored.send_message("Again.")
    restored.run()
    return {
        "results_per_request": [_tool_results(r) for r in server.requests],
        "status": str(restored.state.execution_status.value),
    }


def scenario_repeated_ids_fork(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    source = _repeated_ids_run(server, work)
    fork = source.fork()
    server.enqueue_text("fork answer")
    fork.send_message("Fork question.")
    fork.run()
    server.enqueue_text("source answer")
    source.send_message("Source question.")
    source.run()
    return {
        "results_per_request": [_tool_results(r) for r in server.requests],
        "fork_status": str(fork.state.execution_status.value),
    }


def scenario_repeated_ids_navigate(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    conversation = _repeated_ids_run(server, work)
    last = conversation.state.events[-1].id
    conversation.navigate_to(last)  # the same HEAD: the view is rebuilt all the same
    server.enqueue_text("after navigating")
    conversation.send_message("Go on.")
    conversation.run()
    user_messages = [e.id for e in conversation.state.events if type(e).__name__ == "MessageEvent"]
    conversation.navigate_to(user_messages[0])  # back to the first question: a sibling branch
    server.enqueue_text("on the branch")
    conversation.send_message("Another way.")
    conversation.run()
    return {
        "results_per_request": [_tool_results(r) for r in server.requests],
        "roles_of_last_request": [m["role"] for m in server.requests[-1].body["messages"]],
        "status": str(conversation.state.execution_status.value),
    }


def scenario_repeated_ids_ask_agent(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    conversation = _repeated_ids_run(server, work)
    server.enqueue_text("You asked me to think twice.")
    answer = conversation.ask_agent("What did I ask?")
    question = server.requests.pop()  # its wording is the SDK's prompt: checked, not kept
    server.enqueue_text("still live")
    conversation.send_message("And now?")
    conversation.run()
    return {
        "answer": answer,
        "question_results": _tool_results(question),
        "results_per_request": [_tool_results(r) for r in server.requests],
    }


def scenario_malformed_history_recovery(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_tool_call("think", {"thought": "one"}, call_id="call_dup")
    server.enqueue_tool_call("think", {"thought": "two"}, call_id="call_dup")
    server.enqueue_error(
        400,
        "messages.4: `tool_use` ids were found without `tool_result` blocks immediately "
        "after: call_dup. Each `tool_use` block must have a corresponding `tool_result` "
        "block in the next message.",
        error_type="invalid_request_error",
    )
    server.enqueue_text("SUMMARY-4: the user asked for two thoughts.")
    server.enqueue_text("done")
    conversation = _conversation(server, work, agent=_condensing_agent(server, 100, 1))
    conversation.send_message("Think twice.")
    conversation.run()
    return {
        "status": str(conversation.state.execution_status.value),
        "request_kinds": _request_kinds(server),
        "results_per_request": [_tool_results(r) for r in server.requests],
    }


def scenario_condense_summary_fails(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    # over max_size only (a soft reason): a failed summarising call skips the condensation
    for i in range(3):
        server.enqueue_tool_call("think", {"thought": f"step {i}"})
    server.enqueue_error(400, "the summariser refused")
    server.enqueue_text("Done without a summary.")
    conversation = _conversation(server, work, agent=_condensing_agent(server, 6, 1))
    conversation.send_message("Think a few times, then stop.")
    conversation.run()
    return {
        "status": str(conversation.state.execution_status.value),
        "request_kinds": _request_kinds(server),
    }


def scenario_navigate_to_empty(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_text("first answer")
    server.enqueue_text("answer on a new root")
    conversation = _conversation(server, work)
    conversation.send_message("First question.")
    conversation.run()
    conversation.navigate_to(None)
    conversation.send_message("A new start.")
    conversation.run()
    events = conversation.state.events
    return {
        "roles_of_last_request": [m["role"] for m in server.requests[-1].body["messages"]],
        "new_root_parent": events[-2].parent_id,
        "status": str(conversation.state.execution_status.value),
    }


def scenario_custom_secret_source(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    import json

    from openhands.sdk.secret import SecretSource

    class VaultSecret(SecretSource):
        def get_value(self) -> str:
            return "vault-value-77"

    server.enqueue_text("Noted.")
    conversation = _conversation(server, work)
    conversation.update_secrets(
        {"PLAIN_TOKEN": "plain-value-55", "VAULT_TOKEN": VaultSecret(description="from a vault")}
    )
    conversation.send_message("Which secrets can you use?")
    conversation.run()
    folder = Path(str(conversation.state.persistence_dir))
    stored = json.loads((folder / "base_state.json").read_text())["secret_registry"]
    text = str(server.requests[0].body)
    return {
        "stored": stored,
        "names_in_request": ["PLAIN_TOKEN" in text, "VAULT_TOKEN" in text],
        "description_in_request": "from a vault" in text,
        "values_in_request": "plain-value-55" in text or "vault-value-77" in text,
        "on_disk": any(
            "vault-value-77" in p.read_text() or "plain-value-55" in p.read_text()
            for p in folder.rglob("*.json")
        ),
    }


def scenario_arun(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    import asyncio

    server.enqueue_tool_call("think", {"thought": "async"})
    server.enqueue_text("async answer")
    conversation = _conversation(server, work)
    conversation.send_message("Run from asyncio.")
    asyncio.run(conversation.arun())
    return {"status": str(conversation.state.execution_status.value)}


def scenario_content_filter_nudge(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_error(400, "Output blocked by content filtering policy")
    server.enqueue_text("A rephrased answer.")
    conversation = _conversation(server, work)
    conversation.send_message("Tell me something.")
    conversation.run()
    last = server.requests[-1].body["messages"]
    return {
        "status": str(conversation.state.execution_status.value),
        "requests": len(server.requests),
        "roles_of_last_request": [m["role"] for m in last],
        "kinds": [type(e).__name__ for e in conversation.state.events],
        "sources": [getattr(e, "source", None) for e in conversation.state.events],
    }


def scenario_switch_llm(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    server.enqueue_text("from the first model")
    server.enqueue_text("from the second model")
    conversation = _conversation(server, work)
    conversation.send_message("First.")
    conversation.run()
    conversation.switch_llm(_llm(server, model="openai/gpt-4.1", usage_id="agent"))
    conversation.send_message("Second.")
    conversation.run()
    stats = conversation.conversation_stats.usage_to_metrics
    return {
        "models": [r.body.get("model") for r in server.requests],
        "agent_model": conversation.agent.llm.model,
        "state_model": conversation.state.agent.llm.model,
        "usage_ids": sorted(stats),
        "agent_calls": len(stats["agent"].token_usages),
    }


def scenario_switch_profile(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    from openhands.sdk import LLMProfileStore

    store = LLMProfileStore(base_dir=str(work / "profiles"))
    store.save("second", _llm(server, model="openai/gpt-4.1"), include_secrets=True)
    server.enqueue_text("first model")
    server.enqueue_text("profile model")
    from openhands.sdk import Agent, LocalConversation

    conversation = LocalConversation(
        agent=Agent(llm=_llm(server), tools=[]),
        workspace=str(work / "ws"),
        persistence_dir=str(work / "conversations"),
        visualizer=None,
        profile_store_dir=str(work / "profiles"),
    )
    conversation.send_message("First.")
    conversation.run()
    conversation.switch_profile("second")
    conversation.send_message("Second.")
    conversation.run()
    return {
        "models": [r.body.get("model") for r in server.requests],
        "usage_id": conversation.agent.llm.usage_id,
        "usage_ids": sorted(conversation.conversation_stats.usage_to_metrics),
    }


def scenario_condense_pipeline(server: ScriptedLLMServer, work: Path) -> dict[str, Any]:
    from openhands.sdk import Agent
    from openhands.sdk.context.condenser import (
        LLMSummarizingCondenser,
        NoOpCondenser,
        PipelineCondenser,
    )

    for i in range(3):
        server.enqueue_tool_call("think", {"thought": f"step {i}"})
    server.enqueue_text("SUMMARY-P: three thoughts.")
    server.enqueue_tool_call("think", {"thought": "after the summary"})
    server.enqueue_text("All done.")
    summarizing = LLMSummarizingCondenser(
        llm=_llm(server, usage_id="condenser"), max_size=6, keep_first=1
    )
    pipeline = PipelineCondenser(condensers=[NoOpCondenser(), summarizing])
    conversation = _conversation(
        server, work, agent=Agent(llm=_llm(server), tools=[], condenser=pipeline)
    )
    conversation.send_message("Think a few times, then stop.")
    conversation.run()
    noop = _conversation(
        server,
        work,
        agent=Agent(llm=_llm(server), tools=[], condenser=NoOpCondenser()),
    )
    try:
        noop.condense()
        refused = None
    except ValueError as e:
        refused = type(e).__name__
    return {
        "status": str(conversation.state.execution_status.value),
        "request_kinds": _request_kinds(server),
        "usage_ids": sorted(conversation.conversation_stats.usage_to_metrics),
        "noop_condense": refused,
    }
