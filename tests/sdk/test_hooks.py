"""Hooks (issue 27, SDK examples 33, 51, 57): real shell scripts and loopback-LLM judges run at
the conversation's hook points; their verdicts block tools, add context, keep the agent working,
and every run is persisted as a HookExecutionEvent."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.sdk.helpers import make_agent, make_llm
from trajkit.sdk.hooks import (
    HOOK_EVENT_FIELDS,
    HookConfig,
    HookDefinition,
    HookEvent,
    HookExecutor,
    HookManager,
    HookMatcher,
    HookType,
)


def _script(folder: Path, name: str, body: str) -> str:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_config_reads_the_hooks_json_form():
    data = {
        "hooks": {
            "PreToolUse": [{"matcher": "terminal", "hooks": [{"command": "a.sh", "timeout": 5}]}]
        }
    }
    config = HookConfig.from_dict(data)
    assert config.pre_tool_use[0].hooks[0].command == "a.sh"
    assert "pre_tool_use" in HOOK_EVENT_FIELDS and not config.is_empty()
    assert [h.command for h in config.get_hooks_for_event("PreToolUse", "terminal")] == ["a.sh"]
    assert config.get_hooks_for_event("PreToolUse", "file_editor") == []
    with pytest.raises(ValueError, match="unknown hook event 'PreToolCall'"):
        HookConfig.from_dict({"PreToolCall": []})
    with pytest.raises(ValueError, match="needs 'command'"):
        HookDefinition()
    regex = HookMatcher(matcher="file_.*|terminal")
    assert (
        regex.matches("file_editor")
        and regex.matches("terminal")
        and not regex.matches("xterminal")
    )
    assert HookMatcher(matcher="/term.*/").matches("terminal")
    assert (
        HookDefinition(type=HookType.PROMPT, prompt="be safe", name="p").display_command
        == "prompt-hook:p"
    )


def test_command_hook_contract(tmp_path):
    executor = HookExecutor(str(tmp_path))
    event = HookEvent(event_type="PreToolUse", tool_name="terminal", tool_input={"command": "ls"})
    seen = tmp_path / "seen.json"
    ok = HookDefinition(command=f"cat > {seen}; echo $OPENHANDS_TOOL_NAME $OPENHANDS_EVENT_TYPE")
    result = executor.execute(ok, event)
    assert result.success and not result.blocked and result.stdout == "terminal PreToolUse\n"
    assert json.loads(seen.read_text())["tool_input"] == {"command": "ls"}
    deny = HookDefinition(command='echo \'{"decision": "deny", "reason": "no"}\'')
    denied = executor.execute(deny, event)
    assert denied.blocked and denied.reason == "no" and not denied.should_continue
    two = executor.execute(HookDefinition(command="echo why >&2; exit 2"), event)
    assert two.blocked and not two.success and two.stderr == "why\n"
    one = executor.execute(HookDefinition(command="exit 1"), event)
    assert not one.success and not one.blocked  # only exit code 2 blocks


def test_a_hook_over_its_timeout_is_killed_with_its_children(tmp_path):
    executor = HookExecutor(str(tmp_path))
    pidfile = tmp_path / "child.pid"
    hook = HookDefinition(command=f"sleep 60 & echo $! > {pidfile}; wait", timeout=1)
    started = time.monotonic()
    result = executor.execute(hook, HookEvent(event_type="Stop"))
    assert time.monotonic() - started < 10
    assert not result.success and not result.blocked and "timed out after 1 seconds" in result.error
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5  # SIGKILL is delivered when the child next runs (busy machine)
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    """Running (a killed orphan may stay a zombie until its new parent reaps it)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return False
    return fields[0] != "Z"


def test_hooks_in_a_conversation(llm_server, tmp_path):
    from trajkit.sdk.event.hook_execution import HookExecutionEvent as AtSdkPath

    from trajkit.cli import main
    from trajkit.convert import convert_conversation
    from trajkit.events import HookExecutionEvent, UserRejectObservation
    from trajkit.sdk import Conversation

    assert AtSdkPath is HookExecutionEvent
    ws, scripts = tmp_path / "ws", tmp_path / "scripts"
    ws.mkdir(), scripts.mkdir()
    (ws / "keep").mkdir()
    log = tmp_path / "tools.log"
    config = HookConfig(
        pre_tool_use=[HookMatcher(matcher="terminal", hooks=[HookDefinition(command=_script(
            scripts, "block.sh",
            'if grep -q "rm -rf"; then echo \'{"decision": "deny", "reason": "no rm -rf"}\'; exit 2; fi\n',
        ))])],
        post_tool_use=[HookMatcher(hooks=[HookDefinition(command=f'echo "$OPENHANDS_TOOL_NAME" >> {log}')])],
        user_prompt_submit=[HookMatcher(hooks=[HookDefinition(command=_script(
            scripts, "inject.sh", 'cat > /dev/null; echo \'{"additionalContext": "branch is main"}\'\n'
        ))])],
        stop=[HookMatcher(hooks=[HookDefinition(command=_script(
            scripts, "stop.sh",
            "[ -f done.txt ] && exit 0\necho '{\"decision\": \"deny\", \"additionalContext\": \"write done.txt first\"}'\nexit 2\n",
        ))])],
    )  # fmt: skip
    llm_server.enqueue_tool_call("terminal", {"command": "echo hi"})
    llm_server.enqueue_tool_call("terminal", {"command": "rm -rf keep"})
    llm_server.enqueue_text("done")
    llm_server.enqueue_tool_call("terminal", {"command": "touch done.txt"})
    llm_server.enqueue_text("finished")
    conv = Conversation(
        agent=make_agent(llm_server), workspace=ws, persistence_dir=tmp_path / "c",
        hook_config=config, visualizer=None,
    )  # fmt: skip
    conv.send_message("do it")
    conv.run()
    assert conv.state.execution_status == "finished"
    assert (ws / "keep").is_dir() and (ws / "done.txt").exists()
    assert log.read_text() == "terminal\nterminal\n"  # the blocked call had no PostToolUse
    bodies = llm_server.bodies("chat")
    assert len(bodies) == 5
    assert "branch is main" in json.dumps(bodies[0]["messages"][1])
    assert bodies[3]["messages"][-1] == {"role": "user", "content": [
        {"type": "text", "text": "[Stop hook feedback] write done.txt first"}]}  # fmt: skip
    events = conv.state.events
    rejected = [e for e in events if isinstance(e, UserRejectObservation)]
    assert [(r.rejection_source, r.rejection_reason) for r in rejected] == [("hook", "no rm -rf")]
    hooks = [(e.hook_event_type, e.blocked) for e in events if isinstance(e, HookExecutionEvent)]
    assert hooks == [
        ("UserPromptSubmit", False), ("PreToolUse", False), ("PostToolUse", False),
        ("PreToolUse", True), ("Stop", True), ("PreToolUse", False), ("PostToolUse", False),
        ("Stop", False),
    ]  # fmt: skip
    kinds = [e.kind for e in events]
    assert kinds.index("HookExecutionEvent") < kinds.index("MessageEvent")  # hooks come first
    folder = Path(conv.state.persistence_dir)
    conv.close()
    state = json.loads((folder / "base_state.json").read_text())
    assert state["hook_config"]["stop"][0]["hooks"][0]["timeout"] == 60
    assert state["blocked_actions"] == {} and state["blocked_messages"] == {}
    result = CliRunner().invoke(main, ["validate", "--strict", str(folder)])
    assert result.exit_code == 0, result.output
    converted = convert_conversation(folder, to="chat")["messages"]
    assert converted[:-1] == bodies[-1]["messages"]  # what was sent, rebuilt from the files


def test_a_blocked_user_message_is_not_answered(llm_server, tmp_path):
    from trajkit.sdk import Conversation

    config = HookConfig(user_prompt_submit=[HookMatcher(hooks=[HookDefinition(command="exit 2")])])
    conv = Conversation(
        agent=make_agent(llm_server), workspace=tmp_path, hook_config=config, visualizer=None
    )
    conv.send_message("secret plans")
    conv.run()
    assert conv.state.execution_status == "finished"
    assert llm_server.requests == []
    conv.close()


def test_prompt_hook_judges_with_one_completion(llm_server, tmp_path):
    from trajkit.sdk.conversation.conversation_stats import ConversationStats

    llm_server.enqueue_text('Verdict: {"decision": "deny", "reason": "deletes everything"}')
    llm_server.enqueue_text("no json here")
    config = HookConfig(pre_tool_use=[HookMatcher(matcher="terminal", hooks=[
        HookDefinition(type=HookType.PROMPT, name="safety", prompt="Deny deletions.")])])  # fmt: skip
    stats = ConversationStats()
    manager = HookManager(
        config=config, working_dir=str(tmp_path), session_id="s", llm=make_llm(llm_server),
        conversation_stats=stats,
    )  # fmt: skip
    allowed, results = manager.run_pre_tool_use("terminal", {"command": "find / -delete"})
    assert not allowed and results[0].reason == "deletes everything"
    sent = llm_server.bodies("chat")[0]["messages"]
    assert "Deny deletions." in json.dumps(sent[0]) and "find / -delete" in json.dumps(sent[1])
    allowed, results = manager.run_pre_tool_use("terminal", {"command": "ls"})
    assert allowed and not results[0].success and "no JSON object" in results[0].error
    assert list(stats.usage_to_metrics) == ["prompt-hook:safety"]
    assert stats.usage_to_metrics["prompt-hook:safety"].accumulated_token_usage.prompt_tokens == 200


def test_agent_hook_runs_a_persisted_sub_conversation(llm_server, tmp_path):
    from trajkit.sdk import Conversation
    from trajkit.store import open_conversation

    ws = tmp_path / "ws"
    ws.mkdir()
    config = HookConfig(pre_tool_use=[HookMatcher(matcher="terminal", hooks=[HookDefinition(
        type=HookType.AGENT, name="reviewer", system_prompt="You review commands.", max_iterations=3)])])  # fmt: skip
    llm_server.enqueue_tool_call("terminal", {"command": "cat /etc/passwd"})
    llm_server.enqueue_tool_call(
        "finish", {"message": '{"decision": "deny", "reason": "reads passwd"}'}
    )
    llm_server.enqueue_text("ok, I will not")
    conv = Conversation(
        agent=make_agent(llm_server), workspace=ws, persistence_dir=tmp_path / "c",
        hook_config=config, visualizer=None,
    )  # fmt: skip
    conv.send_message("show passwd")
    conv.run()
    hook_request = llm_server.bodies("chat")[1]
    assert hook_request["messages"][0]["content"] == [
        {"type": "text", "text": "You review commands."}
    ]
    assert [t["function"]["name"] for t in hook_request["tools"]] == ["finish"]
    rejected = [e for e in conv.state.events if e.kind == "UserRejectObservation"]
    assert rejected[0].rejection_reason == "reads passwd"
    assert "agent-hook:reviewer" in conv.conversation_stats.usage_to_metrics
    folders = sorted(p.parent for p in (tmp_path / "c").glob("*/base_state.json"))
    assert len(folders) == 2  # the hook's conversation beside the parent
    conv.close()
    kinds = {tuple(e.kind for e in open_conversation(f).iter_events()) for f in folders}
    assert ("SystemPromptEvent", "MessageEvent", "ActionEvent", "ObservationEvent") in kinds
