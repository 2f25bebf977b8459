"""Mapping work over conversations on worker processes (PATH… expanded by `resolve_inputs`)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.support import fixtures as fx
from trajkit.corpus import map_conversations
from trajkit.errors import InputError
from trajkit.shapes import SkippedInput, resolve_inputs
from trajkit.store import open_conversation


def _n_events(folder: Path) -> int:
    return open_conversation(folder).header().n_events


def _pid_and_events(folder: Path) -> tuple[int, int]:
    time.sleep(0.02)  # long enough that the other worker picks up the next chunk
    return os.getpid(), sum(1 for _ in open_conversation(folder).iter_events())


def _fail_on_b(folder: Path) -> str:
    if "b_terminal" in str(folder):
        raise InputError(folder, "/x", "broken on purpose")
    return folder.name


def test_expands_folders_conversations_and_events_dirs():
    a = fx.sdk_conversation("a_text")
    found = list(resolve_inputs([fx.SDK_FIXTURES, a, a / "events"]))
    assert found == [*fx.sdk_conversations(), a, a]


def test_files_only_when_allowed(tmp_path):
    event = next((fx.sdk_conversation("a_text") / "events").glob("event-*"))
    assert list(resolve_inputs([event], files=True)) == [event]
    (skipped,) = resolve_inputs([event])
    assert isinstance(skipped, SkippedInput)
    assert skipped.message.startswith("one V1 event (SystemPromptEvent), not a whole conversation")


def test_missing_path_and_empty_folder_are_named(tmp_path):
    (missing,) = resolve_inputs([tmp_path / "missing"])
    assert str(missing) == f"{tmp_path / 'missing'}: no such file or folder"
    (empty,) = resolve_inputs([tmp_path])
    assert str(empty).startswith(f"{tmp_path}: no conversation found here")


def test_map_runs_on_two_workers_in_input_order(tmp_path):
    # 16 conversations (two copies of each fixture), so both workers get work.
    for i in range(2):
        shutil.copytree(fx.SDK_FIXTURES, tmp_path / f"copy{i}")
    folders = list(resolve_inputs([tmp_path]))
    assert len(folders) == 16
    results = list(map_conversations(_pid_and_events, iter(folders), workers=2, chunksize=3))
    assert [n for _, n in results] == [_n_events(f) for f in folders]
    pids = {pid for pid, _ in results}
    assert os.getpid() not in pids and len(pids) == 2


def test_map_with_one_worker_stays_in_process():
    folders = fx.sdk_conversations()
    results = list(map_conversations(_pid_and_events, folders, workers=1))
    assert {pid for pid, _ in results} == {os.getpid()}


def test_worker_errors_reach_the_caller_intact():
    with pytest.raises(InputError) as info:
        list(map_conversations(_fail_on_b, fx.sdk_conversations(), workers=2))
    assert info.value.pointer == "/x"
    assert str(info.value).endswith(":/x: broken on purpose")


def test_map_pulls_items_lazily():
    pulled = []

    def items():
        for folder in fx.sdk_conversations() * 10:
            pulled.append(folder)
            yield folder

    results = map_conversations(_n_events, items(), workers=2)
    next(results)
    assert len(pulled) <= 2 * 2 + 2  # a window of chunks, not the whole input (80)
    results.close()


def _env_value(name: str) -> str | None:
    return os.environ.get(name)


def test_workers_see_the_environment_of_each_call_even_with_threads(monkeypatch):
    # With a thread running, workers come from a forkserver started at its first use; they must
    # still see variables set since then (S3 endpoints, credentials, limits).
    import threading

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, daemon=True)
    thread.start()
    try:
        list(map_conversations(_env_value, ["TRAJKIT_T1", "TRAJKIT_T1"], workers=2))
        monkeypatch.setenv("TRAJKIT_T1", "set-later")
        got = list(map_conversations(_env_value, ["TRAJKIT_T1", "TRAJKIT_T1"], workers=2))
    finally:
        stop.set()
    assert got == ["set-later", "set-later"]


_STOP_EARLY = """
import os, sys
from trajkit.corpus import map_conversations

def big(n):
    return os.urandom(1) * (8 << 20)  # 8 MiB results: a worker is often sending when stopped

class DiskFull(Exception):
    pass

try:
    for i, _ in enumerate(map_conversations(big, range(40), workers=2)):
        if i == 1:
            raise DiskFull
except DiskFull:
    print("stopped", flush=True)
"""


def test_a_caller_that_fails_mid_stream_exits_without_hanging(tmp_path: Path) -> None:
    # Workers killed while sending a result used to leave half a message in the pool's
    # result pipe, and the process then waited for the rest for ever at exit.
    import subprocess
    import sys

    script = tmp_path / "stop_early.py"
    script.write_text(_STOP_EARLY)
    env = {**os.environ, "PYTHONPATH": str(fx.REPO)}
    for _ in range(6):
        done = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=90
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "stopped"
