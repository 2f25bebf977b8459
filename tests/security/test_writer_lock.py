"""Issue 14 item 8: one live writer per conversation. Real processes: a child holds a
Conversation; a second Conversation on the same id fails with ConversationLockedError naming
the child's pid and changes nothing; `trajkit repair` refuses ("in use by pid N"); once the
child is SIGKILLed its stale lock blocks nobody. validate warns when two branches of a log
interleave, the mark of two concurrent writers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.security.conftest import invoke, tree
from trajkit.errors import ConversationLockedError
from trajkit.events import Message, MessageEvent, TextContent
from trajkit.sdk import LLM, Agent, Conversation
from trajkit.store import ConversationWriter

CHILD = Path(__file__).with_name("lock_child.py")


def _agent() -> Agent:
    return Agent(llm=LLM(model="openai/gpt-4o", base_url="http://127.0.0.1:9"), tools=[])


def _open(persist: Path, cid: uuid.UUID) -> Conversation:
    return Conversation(
        agent=_agent(), workspace=str(persist) + "-ws", persistence_dir=persist, conversation_id=cid
    )


def _start_child(
    persist: Path, cid: uuid.UUID, tmp_path: Path
) -> tuple[subprocess.Popen[bytes], int]:
    ready = tmp_path / "ready"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, str(CHILD), str(persist), str(cid), str(ready)], env=env
    )
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert proc.poll() is None, "child died"
        assert time.monotonic() < deadline, "child never opened the conversation"
        time.sleep(0.05)
    return proc, int(ready.read_text())


def test_second_writer_is_refused_and_a_dead_ones_lock_is_not(tmp_path: Path) -> None:
    persist, cid = tmp_path / "p", uuid.uuid4()
    proc, pid = _start_child(persist, cid, tmp_path)
    folder = persist / cid.hex
    try:
        before = tree(folder)
        with pytest.raises(ConversationLockedError, match=f"in use by pid {pid}") as info:
            _open(persist, cid)
        assert info.value.pid == pid
        r = invoke("repair", str(folder))
        assert r.exit_code == 1 and f"in use by pid {pid}" in r.output, r.output
        r = invoke("repair", "--dry-run", str(folder))
        assert r.exit_code == 1 and f"in use by pid {pid}" in r.output
        assert tree(folder) == before  # nothing changed by the refused ones
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    # The holder died (its flock went with it): the stale lock file blocks nobody.
    conv = _open(persist, cid)
    try:
        assert any(isinstance(e, MessageEvent) for e in conv.state.events)
        r = invoke("repair", str(folder))  # a live writer in this very process
        assert r.exit_code == 1 and f"in use by pid {os.getpid()}" in r.output
    finally:
        conv.close()
    again = _open(persist, cid)  # closed: free again
    again.close()
    assert invoke("repair", str(folder)).exit_code == 0


def _msg(text: str, parent: str | None) -> MessageEvent:
    return MessageEvent(
        source="user",
        parent_id=parent,
        llm_message=Message(role="user", content=[TextContent(text=text)]),
    )


def test_validate_warns_on_interleaved_branches(tmp_path: Path) -> None:
    folder = tmp_path / uuid.uuid4().hex
    w = ConversationWriter(folder)
    root = _msg("root", None)
    w.append(root)
    a, b = root.id, root.id
    for i in range(3):  # two writers appending from the same head, turn by turn
        ea, eb = _msg(f"a{i}", a), _msg(f"b{i}", b)
        w.append(ea)
        w.append(eb)
        a, b = ea.id, eb.id
    r = invoke("validate", str(folder))
    assert "two branches interleave" in r.output, r.output
    # A deliberate branch (the second one starts after the first ends) is not flagged.
    folder2 = tmp_path / uuid.uuid4().hex
    w2 = ConversationWriter(folder2)
    w2.append(root)
    head = root.id
    for text in ("a0", "a1"):
        e = _msg(text, head)
        w2.append(e)
        head = e.id
    w2.append(_msg("b0", root.id))
    assert "two branches interleave" not in invoke("validate", str(folder2)).output


def test_a_dropped_conversation_lets_go(tmp_path: Path) -> None:
    # The SDK's persistence example drops the object (`del`) and restores at once; the object
    # is kept alive only by reference cycles, which must not keep the lock.
    persist, cid = tmp_path / "p", uuid.uuid4()
    conv = _open(persist, cid)
    conv.send_message("first life")
    del conv
    again = _open(persist, cid)
    try:
        assert [e for e in again.state.events if isinstance(e, MessageEvent)]
    finally:
        again.close()
