"""Child side of the crash-injection harness: runs the real runtime until it is SIGKILLed.

Two ways to start it:

- ``python crash_child.py serve``: a fork server. It imports the runtime and litellm once
  (seconds on a busy machine), prints ``ready``, then for every JSON line on stdin forks a
  worker that runs one conversation turn (``run_turn``) and prints ``pid <pid>``; when the
  worker ends (normally or killed) it prints ``exit <pid> <wait status>``. The worker is the
  process the test SIGKILLs; forking keeps a kill cycle well under a second.
- ``python crash_child.py turn '<json>'``: one turn in this process (a plain exec, no fork).

A turn opens (or restores) the conversation, sends a user message and runs it against the
scripted server, whose tool calls are real bash commands. Every append that *returned* is
logged as ``<index> <event id>`` to a side file outside the conversation folder, flushed and
fsynced before the runtime goes on, so the test knows which events must survive the kill.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Any

from pydantic import SecretStr

from trajkit.sdk import LLM, Agent, Conversation, Tool
from trajkit.sdk.llm._litellm import import_litellm
from trajkit.store import ConversationWriter

TOOLS = ("terminal", "file_editor")


def make_agent(base_url: str) -> Agent:
    """The agent every turn (and the test's restore) uses."""
    llm = LLM(
        model="openai/gpt-4o",
        api_key=SecretStr("sk-crash-harness"),
        base_url=base_url,
        usage_id="agent",
        num_retries=2,
        retry_multiplier=0.01,
        retry_min_wait=0,
        retry_max_wait=0,
        timeout=30,
    )
    return Agent(llm=llm, tools=[Tool(name=n) for n in TOOLS])


def _log_appends(side_log: str) -> None:
    """Wrap `ConversationWriter.append` so each returned append is recorded durably."""
    fd = os.open(side_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    original = ConversationWriter.append

    def append(self: ConversationWriter, event: Any) -> int:
        index = original(self, event)
        os.write(fd, f"{index} {event.id}\n".encode())
        os.fsync(fd)
        return index

    ConversationWriter.append = append  # type: ignore[method-assign]


def run_turn(args: dict[str, Any]) -> None:
    """Restore (or start) the conversation, send a message, run until killed or finished."""
    _log_appends(args["side_log"])
    conv: Conversation | None = None

    def note_shell(event: Any) -> None:
        session = conv.tools["terminal"]._session if conv is not None else None
        if session is not None and not os.path.exists(args["shell_pid"]):
            with open(args["shell_pid"], "w") as f:
                f.write(str(session.pid))

    conv = Conversation(
        agent=make_agent(args["base_url"]),
        callbacks=[note_shell],
        workspace=args["workspace"],
        persistence_dir=args["persist"],
        conversation_id=args["conversation_id"],
        visualizer=None,  # stdout is the harness's protocol: no panels on it
    )
    conv.send_message(args["message"])
    conv.run()
    conv.close()


def serve() -> None:
    import_litellm()  # pay for the import once, before forking
    assert threading.active_count() == 1, threading.enumerate()  # fork only a lone thread
    print("ready", flush=True)
    for line in sys.stdin:
        args = json.loads(line)
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                run_turn(args)
            except BaseException as exc:  # report, then leave without running parent cleanup
                print(f"worker error: {exc!r}", file=sys.stderr, flush=True)
                code = 1
            finally:
                os._exit(code)
        print(f"pid {pid}", flush=True)
        _, status = os.waitpid(pid, 0)
        print(f"exit {pid} {status}", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve()
    else:
        run_turn(json.loads(sys.argv[2]))
