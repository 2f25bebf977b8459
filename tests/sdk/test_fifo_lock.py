"""`trajkit.sdk.conversation.fifo_lock.FIFOLock` and what it is for: a message sent while a step runs is
answered by the same run (the SDK's send-message-while-processing behaviour)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.sdk.helpers import make_agent
from tests.support.llm_server import ScriptedLLMServer
from trajkit.events import ActionEvent, Event
from trajkit.sdk import Conversation
from trajkit.sdk.conversation.fifo_lock import FIFOLock

WAIT = 60.0  # generous: the machine may be loaded


def _wait_until(condition: object, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def _waiting(lock: FIFOLock) -> int:
    return len(lock._waiters)


def test_waiters_get_the_lock_in_the_order_they_asked() -> None:
    lock = FIFOLock()
    order: list[int] = []
    lock.acquire()
    threads = []
    for n in range(4):
        t = threading.Thread(target=lambda n=n: (lock.acquire(), order.append(n), lock.release()))
        t.start()
        threads.append(t)
        _wait_until(lambda n=n: _waiting(lock) == n + 1, f"waiter {n} to queue")
    # the holder takes it again at once: it queues behind the waiters, it does not jump them
    lock.release()
    lock.acquire()
    order.append(99)
    lock.release()
    for t in threads:
        t.join(WAIT)
    assert order == [0, 1, 2, 3, 99]


def test_reentrant_and_released_level_by_level() -> None:
    lock = FIFOLock()
    with lock, lock:
        assert lock.owned() and lock.locked()
    assert not lock.locked()
    got: list[bool] = []
    with lock:
        t = threading.Thread(target=lambda: got.append(lock.acquire(timeout=0.05)))
        t.start()
        t.join(WAIT)
    assert got == [False]  # timed out, and left the queue
    assert _waiting(lock) == 0
    assert lock.acquire(blocking=False)
    lock.release()


def test_release_by_another_thread_is_refused() -> None:
    lock = FIFOLock()
    lock.acquire()
    errors: list[BaseException] = []

    def other() -> None:
        try:
            lock.release()
        except RuntimeError as e:
            errors.append(e)

    t = threading.Thread(target=other)
    t.start()
    t.join(WAIT)
    lock.release()
    assert len(errors) == 1


def test_a_message_sent_while_a_step_runs_is_answered_by_the_same_run(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.enqueue_tool_call("terminal", {"command": "echo first"})
        server.enqueue_text("second")
        holder: dict[str, Conversation] = {}
        senders: list[threading.Thread] = []

        def on_event(event: Event) -> None:
            # inside step 1, the run thread holding the state lock: queue a sender on it
            if isinstance(event, ActionEvent) and not senders:
                conversation = holder["c"]
                sender = threading.Thread(
                    target=conversation.send_message, args=("Also say 'second'.",)
                )
                senders.append(sender)
                sender.start()
                _wait_until(lambda: _waiting(conversation.state._lock) == 1, "the sender")

        conversation = Conversation(
            agent=make_agent(server, tools=("terminal",)),
            workspace=tmp_path / "ws",
            persistence_dir=tmp_path / "c",
            callbacks=[on_event],
            visualizer=None,
        )
        holder["c"] = conversation
        conversation.send_message("Run `echo first`.")
        conversation.run()
        senders[0].join(WAIT)
        second_request = server.requests[1].body["messages"]
    kinds = [(e.kind, e.source) for e in conversation.state.events]
    assert kinds[1:] == [
        ("MessageEvent", "user"),
        ("ActionEvent", "agent"),
        ("ObservationEvent", "environment"),
        ("MessageEvent", "user"),  # right after the step, before the next one
        ("MessageEvent", "agent"),
    ]
    assert second_request[-1]["role"] == "user"
    assert "Also say 'second'." in str(second_request[-1]["content"])
    assert conversation.state.execution_status.value == "finished"
    assert len(server.requests) == 2


def test_a_message_after_the_last_step_is_answered_before_the_run_returns(
    tmp_path: Path,
) -> None:
    # the step that finishes is over, the run has not looked at the status yet: as in the
    # SDK, the run goes on (idle is not a reason to stop) and answers the message
    with ScriptedLLMServer() as server:
        server.enqueue_text("first answer")
        server.enqueue_text("second answer")
        conversation = Conversation(
            agent=make_agent(server, tools=()),
            workspace=tmp_path / "ws",
            persistence_dir=tmp_path / "c",
            visualizer=None,
        )
        original = conversation._step_once
        sent: list[bool] = []

        def step_then_message() -> bool:
            ok = original()
            if not sent:
                sent.append(True)
                conversation.send_message("One more thing.")  # same thread, lock re-entered
            return ok

        conversation._step_once = step_then_message  # type: ignore[method-assign]
        conversation.send_message("Hi.")
        conversation.run()
    assert len(server.requests) == 2
    assert conversation.state.execution_status.value == "finished"


@pytest.mark.parametrize("status", ["error", "paused"])
def test_send_message_leaves_error_and_paused_as_the_sdk_does(tmp_path: Path, status: str) -> None:
    with ScriptedLLMServer() as server:
        conversation = Conversation(
            agent=make_agent(server, tools=()),
            workspace=tmp_path / "ws",
            persistence_dir=tmp_path / "c",
            visualizer=None,
        )
        conversation.state.execution_status = status  # type: ignore[assignment]
        conversation.send_message("Hello?")
    assert conversation.state.execution_status.value == status
