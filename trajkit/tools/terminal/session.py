"""A persistent bash session: one long-lived ``bash`` process per terminal.

Design:
- ``bash --noprofile --norc`` runs in its own session (process group) with stdout and stderr
  merged into one pipe; a reader thread collects the bytes.
- Each command is written to a script file and *sourced* (``. file < /dev/null``), so ``cd``,
  ``export``, functions and aliases persist, and the command cannot swallow the lines that
  follow it from bash's stdin. After it, bash prints a marker line carrying a per-session nonce,
  the exit code and ``$PWD``; everything before the marker is the command's output.
- Timeouts: a hard ``timeout`` (seconds) or, without one, a no-new-output limit. When either is
  hit, the command's process tree (bash's descendants) gets SIGINT, then SIGKILL; bash itself
  survives and the marker still arrives, so cwd and environment are kept. If bash does not come
  back (a builtin loop such as ``while :; do :; done``), the session is restarted and the
  result says so.
- ``exit`` in a command ends bash: its exit code is reported and a new session starts at the
  last known working directory.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CommandResult", "TerminalSession"]

_KILL_GRACE = 2.0
"""Seconds to wait for bash to report after the command's processes were killed."""
MAX_OUTPUT_BYTES = 16 * 1024 * 1024
"""A command printing more than this is stopped (``yes`` would otherwise never end)."""


@dataclass
class CommandResult:
    """What one command produced."""

    output: str
    """Merged stdout/stderr, trailing newlines removed."""
    exit_code: int
    """Exit code; -1 when the command was stopped by a timeout."""
    working_dir: str
    """``$PWD`` after the command."""
    timed_out: bool = False
    """The hard timeout was hit."""
    no_output_timeout: bool = False
    """The no-new-output limit was hit."""
    session_restarted: bool = False
    """bash ended or hung and a fresh session was started (environment lost)."""
    output_limit: bool = False
    """The command printed more than `MAX_OUTPUT_BYTES` and was stopped."""
    elapsed: float = 0.0
    """Seconds the command ran."""


class TerminalSession:
    """One persistent bash process; `run()` executes one command at a time."""

    def __init__(self, working_dir: str | os.PathLike[str], *, env: dict[str, str] | None = None):
        self.initial_dir = str(Path(working_dir).resolve())
        self.working_dir = self.initial_dir
        self._env = env
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._buf = bytearray()
        self._buf_cond = threading.Condition()
        self._eof = False
        self._tmpdir = Path(tempfile.mkdtemp(prefix="trajkit-term-"))
        self._nonce = secrets.token_hex(8)
        self._before: set[int] = set()
        self._start()

    # -- lifecycle -------------------------------------------------------------------
    @property
    def pid(self) -> int:
        return self._proc.pid if self._proc else -1

    def _start(self) -> None:
        env = dict(os.environ if self._env is None else self._env)
        env.setdefault("TERM", "dumb")
        env["PS1"] = ""
        env["PAGER"] = "cat"
        env["GIT_PAGER"] = "cat"
        start_dir = self.working_dir if os.path.isdir(self.working_dir) else self.initial_dir
        self._proc = subprocess.Popen(
            ["bash", "--noprofile", "--norc"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=start_dir,
            env=env,
            start_new_session=True,
        )
        self._buf = bytearray()
        self._eof = False
        threading.Thread(target=self._read_loop, args=(self._proc,), daemon=True).start()
        self.working_dir = start_dir

    def _read_loop(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            with self._buf_cond:
                if proc is not self._proc:
                    return
                if not chunk:
                    self._eof = True
                    self._buf_cond.notify_all()
                    return
                self._buf.extend(chunk)
                self._buf_cond.notify_all()

    def close(self) -> None:
        """Kill bash and everything it started; remove the script folder."""
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(Exception):
                proc.wait(timeout=2)
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        shutil.rmtree(self._tmpdir, ignore_errors=True)

    def reset(self) -> None:
        """Replace bash with a fresh session in the initial directory."""
        with self._lock:
            self._restart(self.initial_dir)

    def _restart(self, working_dir: str) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(Exception):
                proc.wait(timeout=2)
        self.working_dir = working_dir
        self._start()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    # -- running ---------------------------------------------------------------------
    def run(
        self,
        command: str,
        *,
        timeout: float | None = None,
        no_output_timeout: float = 30.0,
        env: dict[str, str] | None = None,
    ) -> CommandResult:
        """Run ``command``; stop it after ``timeout`` seconds, or after ``no_output_timeout``
        seconds without new output when no ``timeout`` is given. ``env`` is exported in the
        session first (sent over the pipe, never written to a file: it carries secrets)."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._restart(self.working_dir)
            return self._run(command, timeout, no_output_timeout, env or {})

    def _run(
        self,
        command: str,
        timeout: float | None,
        no_output_timeout: float,
        env: dict[str, str] | None = None,
    ) -> CommandResult:
        assert self._proc is not None and self._proc.stdin is not None
        script = self._tmpdir / "cmd.sh"
        script.write_text(command + "\n", encoding="utf-8")
        marker = f"__TRAJKIT_{self._nonce}_DONE__"
        exports = "".join(
            f"export {k}={_quote(v)}\n" for k, v in (env or {}).items() if k.isidentifier()
        )
        line = (
            f"{exports}. {_quote(str(script))} < /dev/null\n"
            f'__trajkit_rc=$?; printf \'\\n{marker} %s %s\\n\' "$__trajkit_rc" "$PWD"\n'
        )
        with self._buf_cond:
            self._buf.clear()
        # Background jobs started by earlier commands are not this command's to stop.
        self._before = set(_descendants(self._proc.pid))
        start = time.monotonic()
        try:
            self._proc.stdin.write(line.encode("utf-8"))
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        marker_b = ("\n" + marker + " ").encode()
        last_len, last_change = 0, start
        timed_out = no_output = too_long = False
        stop_at = start
        while True:
            with self._buf_cond:
                idx = self._buf.find(marker_b)
                if idx >= 0 and self._buf.find(b"\n", idx + len(marker_b)) >= 0:
                    result = self._finish(idx, marker_b, start, timed_out, no_output)
                    result.output_limit = too_long
                    if too_long:
                        result.exit_code = -1
                    return result
                if self._eof:
                    return self._ended(start)
                self._buf_cond.wait(0.05)
                now = time.monotonic()
                if len(self._buf) != last_len:
                    last_len, last_change = len(self._buf), now
            if timed_out or no_output or too_long:
                if now - stop_at > _KILL_GRACE:
                    result = self._hung(start, timed_out, no_output)
                    result.output_limit = too_long
                    return result
                continue
            if timeout is not None and now - start >= timeout:
                timed_out = True
            elif timeout is None and now - last_change >= no_output_timeout:
                no_output = True
            elif last_len > MAX_OUTPUT_BYTES:
                too_long = True
            if timed_out or no_output or too_long:
                stop_at = now
                self._kill_children()

    def _finish(
        self, idx: int, marker_b: bytes, start: float, timed_out: bool, no_output: bool
    ) -> CommandResult:
        out = bytes(self._buf[:idx]).decode("utf-8", "replace")
        tail_end = self._buf.find(b"\n", idx + len(marker_b))
        tail = bytes(self._buf[idx + len(marker_b) : tail_end]).decode("utf-8", "replace")
        rc_text, _, cwd = tail.partition(" ")
        try:
            rc = int(rc_text)
        except ValueError:
            rc = -1
        if cwd:
            self.working_dir = cwd
        self._buf.clear()
        return CommandResult(
            output=out.rstrip("\n"),
            exit_code=-1 if (timed_out or no_output) else rc,
            working_dir=self.working_dir,
            timed_out=timed_out,
            no_output_timeout=no_output,
            elapsed=time.monotonic() - start,
        )

    def _ended(self, start: float) -> CommandResult:
        """bash exited during the command (``exit N``): report N and start a new bash."""
        out = bytes(self._buf).decode("utf-8", "replace")
        rc = -1
        if self._proc is not None:
            with contextlib.suppress(Exception):
                rc = self._proc.wait(timeout=2)
        self._restart(self.working_dir)
        return CommandResult(
            output=out.rstrip("\n"),
            exit_code=rc,
            working_dir=self.working_dir,
            session_restarted=True,
            elapsed=time.monotonic() - start,
        )

    def _hung(self, start: float, timed_out: bool, no_output: bool) -> CommandResult:
        out = bytes(self._buf).decode("utf-8", "replace")
        self._restart(self.working_dir)
        return CommandResult(
            output=out.rstrip("\n"),
            exit_code=-1,
            working_dir=self.working_dir,
            timed_out=timed_out,
            no_output_timeout=no_output,
            session_restarted=True,
            elapsed=time.monotonic() - start,
        )

    def _kill_children(self) -> None:
        """SIGINT then SIGKILL the processes this command started (bash keeps running)."""
        if self._proc is None:
            return
        pids = [p for p in _descendants(self._proc.pid) if p not in self._before]
        for sig in (signal.SIGINT, signal.SIGKILL):
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, sig)
            if sig == signal.SIGINT:
                time.sleep(0.1)


def _descendants(pid: int) -> list[int]:
    out: list[int] = []
    todo = [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                for child in task.read_text().split():
                    out.append(int(child))
                    todo.append(int(child))
    return out


def _quote(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"
