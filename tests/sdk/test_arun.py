"""``Conversation.arun``: the SDK's async run, awaited from an event loop."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.sdk.helpers import make_agent
from tests.support.llm_server import ScriptedLLMServer
from trajkit.sdk import Conversation
from trajkit.sdk.conversation import ConversationRunError

WAIT = 120.0


def _conversation(server: ScriptedLLMServer, folder: Path) -> Conversation:
    return Conversation(
        agent=make_agent(server, tools=(), num_retries=0),
        workspace=folder / "ws",
        persistence_dir=folder / "c",
        visualizer=None,
    )


def test_two_conversations_run_together_on_one_loop(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.enqueue_text("one", delay=0.3)
        server.enqueue_text("two", delay=0.3)
        conversations = [_conversation(server, tmp_path / str(i)) for i in range(2)]
        for c in conversations:
            c.send_message("Hi.")
        ticks = 0

        async def main() -> None:
            nonlocal ticks
            runs = asyncio.gather(*(c.arun() for c in conversations))
            while not runs.done():  # the loop stays free while the runs work
                ticks += 1
                await asyncio.sleep(0.01)
            await runs

        asyncio.run(asyncio.wait_for(main(), WAIT))
    assert [c.state.execution_status.value for c in conversations] == ["finished", "finished"]
    assert ticks > 5


def test_cancelling_the_task_interrupts_the_run(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.enqueue_text("too late", delay=30)
        conversation = _conversation(server, tmp_path)
        conversation.send_message("Take your time.")

        async def main() -> None:
            task = asyncio.create_task(conversation.arun())
            while not server.requests:  # the model call is in flight
                await asyncio.sleep(0.01)
            task.cancel()
            await task  # ends without raising CancelledError, as the SDK's arun

        asyncio.run(asyncio.wait_for(main(), WAIT))
    kinds = [e.kind for e in conversation.state.events]
    assert kinds[-1] == "InterruptEvent"
    assert conversation.state.execution_status.value == "paused"


def test_a_failed_run_raises_from_arun(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.enqueue_error(400, "bad request")
        conversation = _conversation(server, tmp_path)
        conversation.send_message("Hi.")
        with pytest.raises(ConversationRunError):
            asyncio.run(asyncio.wait_for(conversation.arun(), WAIT))
    assert conversation.state.execution_status.value == "error"


def test_interrupt_ends_a_running_command_at_once(tmp_path: Path) -> None:
    """Issue 27: ``interrupt()`` while ``sleep 600`` runs kills its process group and the run
    ends paused within seconds (it used to wait for the terminal's own timeout)."""
    import os
    import subprocess
    import threading
    import time

    marker = f"sleep 600{os.getpid() % 10}"
    with ScriptedLLMServer() as server:
        server.enqueue_tool_call(
            "terminal", {"command": f"bash -c 'exec -a \"{marker}\" sleep 600'"}
        )
        conversation = Conversation(
            agent=make_agent(server, tools=("terminal",), num_retries=0),
            workspace=tmp_path / "ws",
            visualizer=None,
        )
        conversation.send_message("Wait.")

        def running() -> bool:
            ps = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
            return bool(ps.stdout.strip())

        def interrupt_when_running() -> None:
            deadline = time.monotonic() + 60
            while not running() and time.monotonic() < deadline:
                time.sleep(0.05)
            conversation.interrupt()

        threading.Thread(target=interrupt_when_running, daemon=True).start()
        started = time.monotonic()
        conversation.run()
        took = time.monotonic() - started
        conversation.close()
    assert took < 25, took
    assert not running()
    assert conversation.state.execution_status.value == "paused"
    assert conversation.state.events[-1].kind == "InterruptEvent"


def test_ask_agent_answers_at_once_while_a_tool_runs(tmp_path: Path) -> None:
    """Issue 27 (SDK example 28): the side question does not wait for the running step, and
    its request leaves out the tool call still waiting for its result, as the SDK's."""
    import threading
    import time

    with ScriptedLLMServer() as server:
        server.enqueue_tool_call("terminal", {"command": "sleep 6; ls"})
        server.enqueue_text("Still listing.")
        server.enqueue_text("Done.")
        conversation = Conversation(
            agent=make_agent(server, tools=("terminal",), num_retries=0),
            workspace=tmp_path / "ws",
            visualizer=None,
        )
        conversation.send_message("Explore.")
        runner = threading.Thread(target=conversation.run)
        runner.start()
        server.wait_for_requests(1, timeout=60)
        time.sleep(1.0)  # the command is running now
        started = time.monotonic()
        answer = conversation.ask_agent("How is it going?")
        took = time.monotonic() - started
        runner.join(WAIT)
        side = server.requests[1].body["messages"]
        conversation.close()
    assert answer == "Still listing." and took < 4, took
    assert [m["role"] for m in side] == ["system", "user", "user"]
    assert conversation.state.execution_status.value == "finished"
