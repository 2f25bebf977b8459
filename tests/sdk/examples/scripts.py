"""What the "model" answers in each SDK example, and the environment each needs.

A script is the list of replies a model would give so that the example runs to its end; when
the queue is empty the server gives ``default`` (a plain text answer ends a run). Paths the
model writes use ``{cwd}``, the example's working folder. ``xfail`` says why the example does
not run the same on trajkit yet (the test is strict: a fix flips it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tests.support.llm_server import ScriptedReply, ScriptedToolCall

API_KEY = "sk-examples-KEY-4f9c2a7be1d0"
"""The API key every example gets; no byte of it may appear in what the runtime prints."""


def text(t: str, **kw: Any) -> ScriptedReply:
    return ScriptedReply(text=t, **kw)


def call(name: str, args: dict[str, Any], *, thought: str | None = None) -> ScriptedReply:
    return ScriptedReply(text=thought, tool_calls=[ScriptedToolCall(name, args)])


def calls(*pairs: tuple[str, dict[str, Any]]) -> ScriptedReply:
    return ScriptedReply(tool_calls=[ScriptedToolCall(n, a) for n, a in pairs])


def _fill(value: Any, cwd: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{cwd}", str(cwd))
    if isinstance(value, dict):
        return {k: _fill(v, cwd) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, cwd) for v in value]
    return value


@dataclass
class Example:
    name: str
    path: str
    """File (or folder with ``main.py``) under ``01_standalone_sdk/``."""
    script: list[ScriptedReply] = field(default_factory=list)
    default: ScriptedReply = field(default_factory=lambda: text("Done."))
    env: dict[str, str] = field(default_factory=dict)
    stdin: str = ""
    timeout: float = 120.0
    model: str = "openai/gpt-4o"
    xfail: str | None = None
    secrets: tuple[str, ...] = ()
    """Secret values the example registers: never printed by the runtime."""

    def replies(self, cwd: Path) -> list[ScriptedReply]:
        out = []
        for r in self.script:
            tcs = [ScriptedToolCall(t.name, _fill(t.arguments, cwd), t.id) for t in r.tool_calls]
            out.append(ScriptedReply(**{**r.__dict__, "tool_calls": tcs}))
        return out


def terminal(command: str) -> ScriptedReply:
    return call("terminal", {"command": command})


def create(path: str, body: str) -> ScriptedReply:
    return call("file_editor", {"command": "create", "path": path, "file_text": body})


FILES = [
    "01_hello_world.py",
    "02_custom_tools.py",
    "03_activate_skill.py",
    "04_confirmation_mode_example.py",
    "05_use_llm_registry.py",
    "06_interactive_terminal_w_reasoning.py",
    "07_mcp_integration.py",
    "09_pause_example.py",
    "10_persistence.py",
    "11_async.py",
    "12_custom_secrets.py",
    "13_get_llm_metrics.py",
    "14_context_condenser.py",
    "16_llm_security_analyzer.py",
    "17_image_input.py",
    "18_send_message_while_processing.py",
    "19_llm_routing.py",
    "20_stuck_detector.py",
    "21_generate_extraneous_conversation_costs.py",
    "22_anthropic_thinking.py",
    "23_responses_reasoning.py",
    "24_planning_agent_workflow.py",
    "25_agent_delegation.py",
    "26_custom_visualizer.py",
    "27_observability_laminar.py",
    "28_ask_agent_example.py",
    "29_llm_streaming.py",
    "30_tom_agent.py",
    "31_iterative_refinement.py",
    "32_configurable_security_policy.py",
    "33_hooks",
    "36_event_json_to_openai_messages.py",
    "37_llm_profile_store",
    "39_llm_fallback.py",
    "41_task_tool_set.py",
    "42_file_based_subagents.py",
    "45_parallel_tool_execution.py",
    "46_agent_settings.py",
    "47_defense_in_depth_security.py",
    "48_conversation_fork.py",
    "49_switch_llm_tool.py",
    "50_async_cancellation.py",
    "51_agent_hooks",
    "52_dynamic_workflow.py",
    "53_client_defined_tools.py",
    "54_goal_completion_loop.py",
    "55_persistent_memory.py",
    "56_structured_output.py",
    "57_prompt_hooks",
]
"""The 49 that run offline on the SDK (08, 15, 34, 35, 38, 40, 44 need a browser, a remote
service or a login). Named here so collecting never lists ``../shared``."""

_OVERRIDES: dict[str, dict[str, Any]] = {
    # writes the file it is asked for, then answers
    "01": {"script": [create("{cwd}/FACTS.txt", "1. a\n2. b\n3. c\n"), text("Wrote FACTS.txt.")]},
    # a tool that takes a while, so that pause() lands during the run
    # (answered after 3 s, so that "Phase 2" is printed first on any machine)
    "09": {"script": [replace(terminal("sleep 3; echo counted"), delay=3.0)]},
    # echoes each secret: the terminal gets them, every observation hides them
    "12": {
        "secrets": ("my-secret-token-value", "callable-based-secret"),
        "script": [
            terminal("echo $SECRET_TOKEN"),
            text("Echoed."),
            terminal("echo $SECRET_FUNCTION_TOKEN"),
            text("Echoed."),
        ],
    },
    # busy when the second message arrives
    "18": {"script": [terminal("sleep 4; echo step one")]},
    # the Stop hook wants summary.txt: written first; the PreToolUse hook blocks the rm
    "33": {
        "script": [
            terminal("echo 'Hello from hooks!' && echo 'A git repo with file.txt.' > summary.txt"),
            text("Echoed."),
            terminal("rm -rf /tmp/test"),
            text("That command was blocked."),
            terminal("git status --short"),
            text("summary.txt describes the repo."),
        ]
    },
    # writes the file with the editor and checks it with ls
    "46": {
        "script": [
            create("{cwd}/hello_settings.txt", "Agent settings work!\n"),
            terminal("ls hello_settings.txt"),
            text("hello_settings.txt exists."),
        ]
    },
    # calls the built-in switch_llm tool, then names the model it reports
    "49": {
        "script": [
            call("switch_llm", {"profile_name": "example-claude", "reason": "Asked to."}),
            text("The active model is openai/prod/claude-sonnet-4-5-20250929."),
        ]
    },
    # counts with the terminal, then calls the two client-defined tools at once
    "53": {
        "script": [
            terminal("find . -name '*.py' | wc -l"),
            calls(
                ("show_notification", {"message": "0 Python files", "level": "info"}),
                ("navigate_to", {"route": "/files"}),
            ),
            text("Shown and navigated."),
        ]
    },
    # the prompt hook's verdicts: allow the tests, deny the delete
    "57": {
        "script": [
            text('{"decision": "allow", "reason": "Runs the test suite."}'),
            text('{"decision": "deny", "reason": "Deletes every file on the host."}'),
        ]
    },
    # a command running while the three side questions are asked: each is answered at once
    "28": {
        "script": [
            terminal("sleep 8; ls"),
            text("Listing the folder."),
            text("Still running ls."),
            text("Not yet."),
            text("The folder is empty."),
            text("I listed an empty folder."),
        ]
    },
    # the workflow the user asks for, one area at a time (so the requests come in order):
    # four auditors, then the reducer, then the parent reports
    "52": {
        "script": [
            call(
                "workflow",
                {
                    "name": "coverage-audit",
                    "max_concurrency": 1,
                    "script": (
                        "async def main(wf):\n"
                        "    areas = ['openhands-sdk/openhands/sdk', 'openhands-tools/openhands/tools',\n"
                        "             'openhands-workspace/openhands/workspace',\n"
                        "             'openhands-agent-server/openhands/agent_server']\n"
                        "    notes = await wf.map_agents(areas, 'Audit the tests of {item}.',\n"
                        "                                subagent_type='coverage_auditor',\n"
                        "                                max_concurrency=1)\n"
                        "    return await wf.reduce_agent(notes, 'Rank the gaps.',\n"
                        "                                 subagent_type='coverage_auditor')\n"
                    ),
                },
            ),
            text("sdk: the agent loop is tested; the LLM retries are not."),
            text("tools: the terminal is tested; the browser is not."),
            text("workspace: the remote workspace is not tested."),
            text("agent_server: the event routes are tested."),
            text("First the browser, then the remote workspace, then the retries."),
            text("The report: the browser, the remote workspace, the retries."),
        ]
    },
    # one task per planner (one at a time, so the requests come in order), the built-in
    # bash-runner writes the report with the terminal, then the lodging task is resumed
    "25": {
        "script": [
            call(
                "task",
                {
                    "description": "lodging",
                    "prompt": "Suggest budget areas to stay in London.",
                    "subagent_type": "lodging_planner",
                },
            ),
            text("Stay in Bloomsbury or King's Cross."),
            call(
                "task",
                {
                    "description": "activities",
                    "prompt": "List five must-see London sights.",
                    "subagent_type": "activities_planner",
                },
            ),
            text("British Museum, Tower of London, Borough Market, Sky Garden, Little Venice."),
            call(
                "task",
                {
                    "description": "report",
                    "prompt": "Write london_trip_report.txt with the lodging and the sights.",
                    "subagent_type": "bash-runner",
                },
            ),
            terminal(
                "printf 'Lodging: Bloomsbury\\nSights: British Museum\\n' > london_trip_report.txt"
            ),
            text("Wrote london_trip_report.txt."),
            text("The report is written."),
            call(
                "task",
                {
                    "prompt": "What do you think about Covent Garden?",
                    "subagent_type": "lodging_planner",
                    "resume": "task_00000001",
                },
            ),
            text("Central but pricey."),
            text("The lodging planner finds Covent Garden central but pricey."),
        ]
    },
    # the grammar checker looks for README.md with its file editor (there is none)
    "42": {
        "script": [
            call(
                "task",
                {
                    "description": "grammar",
                    "prompt": "Review README.md for grammatical errors.",
                    "subagent_type": "grammar-checker",
                },
            ),
            call("file_editor", {"command": "view", "path": "{cwd}/README.md"}),
            text("There is no README.md to review."),
            text("The grammar checker found no README.md."),
        ]
    },
    # the quiz: a task for the expert, then the same task resumed to check the answer
    "41": {
        "script": [
            call(
                "task",
                {
                    "description": "owl question",
                    "prompt": "Write one multiple-choice question (A-D) about owls.",
                    "subagent_type": "animal_expert",
                },
            ),
            text("Question: How far can an owl turn its head?\nA) 90\nB) 180\nC) 270\nD) 360"),
            text("The question is about owls; I pick C."),
            call(
                "task",
                {
                    "prompt": "I picked C. Is that correct?",
                    "subagent_type": "animal_expert",
                    "resume": "task_00000001",
                },
            ),
            text("Correct: C. Owls turn their heads about 270 degrees."),
            text("The expert says C is correct."),
        ]
    },
    # the countdown runs when the timer interrupts: the command ends at once
    "50": {
        "script": [terminal("for i in $(seq 30 -1 1); do echo $i; sleep 1; done")],
        "env": {"AUTO_CANCEL_SECONDS": "5"},
    },
}

_TOOL_MODULE = "trajkit.sdk.tool is a module, not the SDK's package"
XFAIL: dict[str, str] = {
    "29": "no trajkit.sdk.llm.streaming (LLM(stream=True))",
    "30": "no trajkit.tools.tom_consult",
    "33": "no trajkit.sdk.hooks",
    "46": "trajkit.sdk has no OpenHandsAgentSettings (trajkit.sdk.settings)",
    "47": "trajkit.sdk.security has no EnsembleSecurityAnalyzer (nor the pattern/policy ones)",
    "49": "the built-in SwitchLLMTool (include_default_tools) is unknown",
    "51": "no trajkit.sdk.event.hook_execution (agent hooks)",
    "53": "no trajkit.sdk.event.llm_convertible, ClientToolSpec (client-defined tools)",
    "54": "no trajkit.sdk.conversation.goal (goal loop)",
    "56": f"{_TOOL_MODULE} (trajkit.sdk.tool.builtins)",
    "57": "no trajkit.sdk.conversation.conversation_stats (prompt hooks)",
}
"""Examples that do not run the same on trajkit today, with the first reason (what the
``modules`` lane builds). The test is ``xfail(strict=True)``: a fix flips it."""


def _example(path: str) -> Example:
    name = path.split("_", 1)[0]
    return Example(name=name, path=path, xfail=XFAIL.get(name), **_OVERRIDES.get(name, {}))


def examples() -> list[Example]:
    return [_example(p) for p in FILES]


Setup = Callable[[Path], None]
