"""Test side of crash injection: a looping scripted model, the fork server, the checks after a kill.

See `crash_child.py` for the process that is killed. `run_crash_cycles` runs kill cycles:

1. a worker restores the conversation, sends a message and runs; the model keeps asking for real
   bash commands (some slow, some parallel, some file edits), so event appends, observations and
   base-state saves interleave;
2. the test SIGKILLs it at a random point: after a random delay once it writes, right after the
   N-th new event file appears, or early (while it is still restoring);
3. the folder must pass `trajkit validate`, or show only a torn tail that `trajkit repair` fixes
   (after which validate passes), and every append the worker saw return must be on disk;
4. the test restores the conversation in its own process and runs it to ``finished``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from tests.support.cli import invoke
from tests.support.llm_server import ScriptedLLMServer, ScriptedReply, ScriptedToolCall
from trajkit.repair import QUARANTINE_DIR
from trajkit.store import open_conversation

ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("crash_child.py")
KILLS_PER_CONVERSATION = 8
"""A fresh conversation every few kills keeps histories (and each LLM request) small."""


class LoopingServer(ScriptedLLMServer):
    """Answers every request with new tool calls (``loop``), or with ``finish``."""

    def __init__(self, workspace: Path) -> None:
        super().__init__()
        self.workspace = workspace
        self.mode = "loop"
        self._steps = itertools.count()

    def start(self) -> LoopingServer:
        super().start()
        assert self._httpd is not None
        self._httpd.handle_error = lambda *a: None  # type: ignore[method-assign]  # resets by killed workers
        return self

    def _next(self) -> ScriptedReply:
        if self.mode == "finish":
            return ScriptedReply(tool_calls=[ScriptedToolCall("finish", {"message": "done"})])
        k = next(self._steps)
        calls = [_step_call(k, self.workspace)]
        if k % 5 == 3:  # parallel calls: two actions, then two observations
            calls.append(ScriptedToolCall("terminal", {"command": f"echo parallel-{k}"}))
        return ScriptedReply(text=f"step {k}", tool_calls=calls)


def _step_call(k: int, workspace: Path) -> ScriptedToolCall:
    shape = k % 4
    if shape == 0:
        return ScriptedToolCall("terminal", {"command": f"echo step-{k} && ls"})
    if shape == 1:
        return ScriptedToolCall("terminal", {"command": f"sleep 0.0{k % 9}; echo slept-{k}"})
    if shape == 2:
        return ScriptedToolCall(
            "file_editor",
            {"command": "create", "path": str(workspace / f"f{k}.txt"), "file_text": f"{k}\n"},
        )
    return ScriptedToolCall("terminal", {"command": f"seq 1 {k % 50 + 1} | tail -n 3"})


class ForkServer:
    """`crash_child.py serve`: forks one worker per turn; the test kills workers by pid."""

    def __init__(self, tmp: Path) -> None:
        (tmp / "tmp").mkdir(exist_ok=True)  # the terminal's temp folders of killed workers
        env = dict(
            os.environ,
            PYTHONPATH=str(ROOT),
            TMPDIR=str(tmp / "tmp"),
            LITELLM_LOCAL_MODEL_COST_MAP="True",
        )
        self.stderr_path = tmp / "fork-server.stderr"
        self._stderr = open(self.stderr_path, "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, str(CHILD), "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
            text=True,
        )
        assert self._line() == "ready", self.stderr()

    def _line(self) -> str:
        out: IO[str] = self.proc.stdout  # type: ignore[assignment]
        line = out.readline()
        if not line:
            raise RuntimeError(f"fork server died:\n{self.stderr()}")
        return line.strip()

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")[-4000:]

    def start(self, args: dict[str, Any]) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(args) + "\n")
        self.proc.stdin.flush()
        word, pid = self._line().split()
        assert word == "pid"
        return int(pid)

    def reap(self, pid: int) -> int:
        """Wait status of worker `pid` (it must have ended)."""
        word, got, status = self._line().split()
        assert (word, int(got)) == ("exit", pid)
        return int(status)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._stderr.close()


@dataclass
class CrashStats:
    """What a run of kill cycles saw (printed for the report)."""

    kills: int = 0
    survived: int = 0
    events_lost: int = 0
    returned_appends: int = 0
    repairs: int = 0
    quarantined: int = 0
    leftover_temp_files: int = 0
    killed_mid_tool: int = 0
    restores_finished: int = 0
    strategies: Counter[str] = field(default_factory=Counter)
    early_before_folder: int = 0
    repair_reasons: list[str] = field(default_factory=list)
    temps_seen: set[Path] = field(default_factory=set)

    def summary(self) -> str:
        return (
            f"kills={self.kills} survived={self.survived} events_lost={self.events_lost} "
            f"returned_appends_checked={self.returned_appends} repairs_needed={self.repairs} "
            f"files_quarantined={self.quarantined} leftover_tmp={self.leftover_temp_files} "
            f"killed_mid_tool={self.killed_mid_tool} killed_before_folder={self.early_before_folder} "
            f"restores_finished={self.restores_finished} "
            f"strategies={dict(self.strategies)} repair_reasons={self.repair_reasons}"
        )


def _event_count(events_dir: Path) -> int:
    try:
        return sum(1 for n in os.listdir(events_dir) if n.startswith("event-"))
    except FileNotFoundError:
        return 0


def _wait_for(predicate: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


def returned_appends(side_log: Path) -> set[tuple[int, str]]:
    """(index, id) of every append the workers saw return; a torn last line is ignored."""
    if not side_log.exists():
        return set()
    text = side_log.read_text()
    lines = text.split("\n")[:-1]  # the part after the last newline may be torn
    return {(int(i), eid) for i, eid in (line.split() for line in lines)}


def _kill_shell(pid_file: Path) -> None:
    if pid_file.exists():
        with contextlib.suppress(ProcessLookupError, ValueError, PermissionError):
            os.killpg(int(pid_file.read_text()), signal.SIGKILL)
        pid_file.unlink()


def check_after_kill(folder: Path, side_log: Path, stats: CrashStats, where: str) -> None:
    """Validate (repairing a torn tail if needed) and compare with the side log."""
    returned = returned_appends(side_log)
    # Killed before the new conversation wrote anything: no folder yet, or one holding only
    # the writer lock (`Conversation` takes it before it makes events/).
    if not (folder / "events").is_dir() and not (folder / "base_state.json").exists():
        assert not returned, f"{where}: appends returned but the folder is gone"
        stats.early_before_folder += 1
        return
    temps = {*(folder / "events").glob(".*.tmp"), *folder.glob(".*.tmp")}
    stats.leftover_temp_files += len(temps - stats.temps_seen)
    stats.temps_seen |= temps
    if _last_is_unanswered_action(folder):
        stats.killed_mid_tool += 1
    result = invoke("validate", str(folder))
    if result.exit_code != 0:
        stats.repairs += 1
        stats.repair_reasons.append(result.output.strip().splitlines()[0][-300:])
        repair = invoke("repair", str(folder))
        assert repair.exit_code == 0, (
            f"{where}: validate said\n{result.output}\nrepair said\n{repair.output}"
        )
        quarantined = {p.name for p in (folder / QUARANTINE_DIR).glob("event-*.json*")}
        stats.quarantined += len(quarantined)
        returned_names = {f"event-{i:05d}-{eid}.json" for i, eid in returned}
        assert not quarantined & returned_names, f"{where}: repair set aside a returned event"
        again = invoke("validate", str(folder))
        assert again.exit_code == 0, f"{where}: still invalid after repair:\n{again.output}"
    conv = open_conversation(folder)
    on_disk = {(ef.index, ef.event_id) for ef in conv.event_files()}
    lost = returned - on_disk
    stats.events_lost += len(lost)
    assert not lost, f"{where}: appends that had returned are missing: {sorted(lost)[:5]}"
    parsed = {e.id for e in conv.iter_events()}
    assert {eid for _, eid in returned} <= parsed


def _last_is_unanswered_action(folder: Path) -> bool:
    files = open_conversation(folder).event_files()
    if not files:
        return False
    try:
        data = json.loads(files[-1].path.read_bytes())
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("kind") == "ActionEvent"


def restore_and_finish(
    server: LoopingServer, persist: Path, workspace: Path, cid: uuid.UUID, where: str
) -> None:
    """A new Conversation with the same id and folder continues the conversation to finished."""
    from tests.reliability.crash_child import make_agent
    from trajkit.sdk import Conversation

    server.mode = "finish"
    conv = Conversation(
        agent=make_agent(server.base_url),
        workspace=workspace,
        persistence_dir=persist,
        conversation_id=cid,
    )
    try:
        if conv.state.execution_status == "finished":  # killed before its message was saved
            conv.send_message("one more thing")
        conv.run()
        assert conv.state.execution_status == "finished", (where, conv.state.execution_status)
    finally:
        conv.close()
        server.mode = "loop"


def run_crash_cycles(tmp: Path, kills: int, seed: int) -> CrashStats:
    """`kills` kill cycles; returns what they saw. Asserts after every kill."""
    rng = random.Random(seed)
    stats = CrashStats()
    workspace = tmp / "ws"
    workspace.mkdir()
    persist = tmp / "persist"
    logs = tmp / "side-logs"  # outside every conversation folder
    logs.mkdir()
    shell_pid = tmp / "shell.pid"
    forks = ForkServer(tmp)
    try:
        with LoopingServer(workspace) as server:
            cid = uuid.uuid4()
            for cycle in range(kills):
                if cycle % KILLS_PER_CONVERSATION == 0:
                    cid = uuid.uuid4()
                folder = persist / cid.hex
                side_log = logs / f"{cid.hex}.log"
                where = f"seed={seed} cycle={cycle} conversation={cid.hex}"
                strategy = rng.choice(["delay", "events", "early"])
                stats.strategies[strategy] += 1
                before = _event_count(folder / "events")
                pid = forks.start(
                    {
                        "base_url": server.base_url,
                        "persist": str(persist),
                        "workspace": str(workspace),
                        "conversation_id": str(cid),
                        "side_log": str(side_log),
                        "shell_pid": str(shell_pid),
                        "message": f"task {cycle}: run some commands",
                    }
                )
                _wait_before_kill(strategy, rng, folder / "events", before)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                status = forks.reap(pid)
                _kill_shell(shell_pid)
                assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (
                    f"{where}: the worker ended by itself ({status}):\n{forks.stderr()}"
                )
                stats.kills += 1
                check_after_kill(folder, side_log, stats, where)
                restore_and_finish(server, persist, workspace, cid, where)
                stats.restores_finished += 1
                after = invoke("validate", str(folder))
                assert after.exit_code == 0, f"{where}: invalid after restore:\n{after.output}"
                stats.survived += 1
        stats.returned_appends = sum(len(returned_appends(p)) for p in logs.glob("*.log"))
    finally:
        forks.close()
    return stats


def _wait_before_kill(strategy: str, rng: random.Random, events_dir: Path, before: int) -> None:
    if strategy == "early":  # still importing state, restoring, starting bash
        time.sleep(rng.uniform(0, 0.25))
    elif strategy == "delay":
        _wait_for(lambda: _event_count(events_dir) > before, 15)
        time.sleep(rng.uniform(0, 0.8))
    else:
        n = rng.randint(1, 30)
        _wait_for(lambda: _event_count(events_dir) >= before + n, 15)
