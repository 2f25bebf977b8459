"""A persistent bash session on a pseudo-terminal: one long-lived interactive ``bash`` per tool.

Why a PTY (through ``ptyprocess``) rather than tmux: programs must see a terminal (``tty``,
``ls`` columns, line-buffered output, ``input()`` prompts, job control for ``C-z``), and a PTY
gives exactly that with no external binary; reading its byte stream keeps every line of output,
where a tmux screen capture loses what scrolled past its history and has to be diffed between
polls. ``ptyprocess`` is the small, well-kept core of pexpect: it forks with the PTY as the
controlling terminal and sets the window size, which is the fiddly part.

Design:
- ``bash --noprofile --norc --noediting -i`` runs with job control on a 200x256 terminal,
  ``TERM=xterm-256color`` and pagers disabled (``PAGER``/``GIT_PAGER`` default to ``cat``), as the
  SDK's terminal sets them. Echo is off (``stty -echo -onlcr``), so output is what programs print,
  with plain ``\\n`` line ends. Escape sequences (colours, cursor moves) are removed from the text
  returned, and carriage-return overwrites are applied as a screen would show them: the model
  reads plain text.
- Each command is written to a script file and *sourced* (``. file``) so ``cd``, ``export``,
  functions and aliases persist, while the command's stdin stays the terminal: an interactive
  program reads what `send_input` types. After each command bash's ``PROMPT_COMMAND`` prints a
  marker block carrying a per-session nonce, the exit code, ``$!``, the Python interpreter on
  ``PATH`` and ``$PWD``; everything before it is the command's output.
- Timeouts never kill. Without ``timeout``, a command that prints nothing for
  ``no_output_timeout`` seconds returns what it printed so far and is left running; with
  ``timeout``, it returns after that many seconds the same way. The caller then waits
  (`wait_more`), types into it (`send_input`, including ``C-c``/``C-d``/``C-z``) or resets.
- Only a command printing more than `MAX_OUTPUT_BYTES` is interrupted (``C-c``); if bash does
  not come back within a grace period the session is restarted and the result says so.
- ``exit`` in a command ends bash: its exit code is reported and a new session starts at the
  last known working directory. Background jobs (``server &``) live until `reset`/`close`.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["SPECIAL_KEYS", "CommandResult", "TerminalSession", "clean_output", "key_bytes"]

_KILL_GRACE = 3.0
"""Seconds to wait for bash to report after an interrupt sent for too much output."""
MAX_OUTPUT_BYTES = 16 * 1024 * 1024
"""A command printing more than this is interrupted (``yes`` would otherwise never end)."""
_MARKER_SPAN = 8192
"""Bytes searched again for the end-of-command marker when new output arrives (the marker
block is far shorter unless ``$PWD`` or the interpreter path is huge)."""
DIMENSIONS = (200, 256)
"""Terminal rows and columns (the SDK's tmux pane size)."""

SPECIAL_KEYS: dict[str, bytes] = {
    "UP": b"\x1b[A",
    "DOWN": b"\x1b[B",
    "RIGHT": b"\x1b[C",
    "LEFT": b"\x1b[D",
    "HOME": b"\x1b[H",
    "END": b"\x1b[F",
    "PGUP": b"\x1b[5~",
    "PGDN": b"\x1b[6~",
    "TAB": b"\t",
    "ESC": b"\x1b",
    "BS": b"\x7f",
    "ENTER": b"\n",
}
"""Key names `send_input` understands besides ``C-<letter>``."""

_ANSI = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erase
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: window titles, hyperlinks
    rb"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS/SOS/PM/APC strings
    rb"|\x1b[()*+][0-9A-Za-z]"  # character set selection
    rb"|\x1b[@-Z\\-_=>78]"  # other two-byte escapes
)


def key_bytes(command: str) -> bytes | None:
    """The bytes for a key name (``C-c``, ``C-d``, ``UP``, ...), None for plain text."""
    name = command.strip()
    if len(name) == 3 and name[:2] == "C-" and name[2].isalpha():
        return bytes([ord(name[2].lower()) & 0x1F])
    return SPECIAL_KEYS.get(name.upper()) if name.upper() in SPECIAL_KEYS else None


def clean_output(raw: bytes) -> str:
    """Terminal bytes as the plain text a screen would show (no escapes, ``\\r`` applied)."""
    data = _ANSI.sub(b"", raw).replace(b"\r\n", b"\n")
    text = data.decode("utf-8", "replace")
    if "\r" in text:
        text = "\n".join(_overwrite(line) for line in text.split("\n"))
    if "\x08" in text:
        text = re.sub(".\x08", "", text)
    return text.replace("\x07", "")


def _overwrite(line: str) -> str:
    if "\r" not in line:
        return line
    parts = line.split("\r")
    shown = parts[0]
    for part in parts[1:]:
        shown = part + shown[len(part) :]
    return shown


@dataclass
class CommandResult:
    """What one call produced."""

    output: str
    """Output since the previous result, as plain text, trailing whitespace removed (as the SDK)."""
    exit_code: int
    """Exit code; -1 while the command is still running."""
    working_dir: str
    """``$PWD`` after the command (the last known one while it runs)."""
    running: bool = False
    """The command has not finished: wait, send input or interrupt it."""
    timed_out: bool = False
    """Returned at the hard ``timeout``."""
    no_output_timeout: bool = False
    """Returned after the no-new-output limit."""
    session_restarted: bool = False
    """bash ended or hung and a fresh session was started (environment lost)."""
    output_limit: bool = False
    """The command printed more than `MAX_OUTPUT_BYTES` and was interrupted."""
    py_interpreter_path: str | None = None
    """``command -v python`` after the command (empty when there is none)."""
    pid: int = -1
    """``$!``: the last background job's process id, -1 when none."""
    elapsed: float = 0.0
    """Seconds the call waited."""
    continued: bool = False
    """Earlier output of this command was already returned (this is the rest)."""


class TerminalSession:
    """One persistent interactive bash on a PTY; one command runs at a time."""

    def __init__(self, working_dir: str | os.PathLike[str], *, env: dict[str, str] | None = None):
        self.initial_dir = str(Path(working_dir).resolve())
        self.working_dir = self.initial_dir
        self._env = env
        self._lock = threading.Lock()
        self._proc: _Pty | None = None
        self._buf = bytearray()
        self._cond = threading.Condition()
        self._eof = False
        self._returned = 0
        """Bytes of the running command's output already returned."""
        self.running = False
        """A command was started and has not finished yet."""
        self._tmpdir = Path(tempfile.mkdtemp(prefix="trajkit-term-"))
        self._nonce = secrets.token_hex(8)
        self._marker = re.compile(
            rb"\r?\n__TK_" + self._nonce.encode() + rb"_B__(-?\d+)\r?\n(\d*)\r?\n(.*?)\r?\n"
            rb"(.*?)\r?\n__TK_" + self._nonce.encode() + rb"_E__\r?\n",
            re.S,
        )
        self._start()

    # -- lifecycle -------------------------------------------------------------------
    @property
    def pid(self) -> int:
        return self._proc.pid if self._proc else -1

    def _start(self) -> None:
        env = dict(os.environ if self._env is None else self._env)
        env.setdefault("PAGER", "cat")
        env.setdefault("GIT_PAGER", "cat")
        env["TERM"] = "xterm-256color"
        env.pop("PROMPT_COMMAND", None)
        start_dir = self.working_dir if os.path.isdir(self.working_dir) else self.initial_dir
        proc = _Pty.spawn(
            ["bash", "--noprofile", "--norc", "--noediting", "-i"],
            cwd=start_dir,
            env=env,
            dimensions=DIMENSIONS,
        )
        with self._cond:
            self._proc = proc
            self._buf = bytearray()
            self._eof = False
        self.running = False
        self._returned = 0
        threading.Thread(target=self._read_loop, args=(proc,), daemon=True).start()
        self.working_dir = start_dir
        nonce = self._nonce
        self._write(
            "stty -echo -onlcr 2>/dev/null; unset PROMPT_COMMAND; PS1=''; PS2=''; set +H; "
            "__trajkit_prompt() { local rc=$?; "
            f'printf \'\\n__TK_%s_B__%s\\n%s\\n%s\\n%s\\n__TK_%s_E__\\n\' {nonce} "$rc" "$!" '
            f'"$(command -v python 2>/dev/null)" "$PWD" {nonce}; }}; '
            "PROMPT_COMMAND=__trajkit_prompt\n"
        )
        deadline = time.monotonic() + 10
        with self._cond:
            while not self._marker.search(self._buf) and not self._eof:
                if time.monotonic() > deadline:
                    raise RuntimeError("the terminal's bash did not start within 10 s")
                self._cond.wait(0.05)
            self._buf.clear()

    def _read_loop(self, proc: _Pty) -> None:
        while True:
            try:
                chunk = os.read(proc.fd, 65536)
            except OSError:
                chunk = b""
            with self._cond:
                if proc is not self._proc:
                    return
                if not chunk:
                    self._eof = True
                    self._cond.notify_all()
                    return
                self._buf.extend(chunk)
                self._cond.notify_all()

    def _write(self, data: str | bytes) -> None:
        assert self._proc is not None
        raw = data.encode("utf-8") if isinstance(data, str) else data
        with contextlib.suppress(OSError):
            while raw:
                n = os.write(self._proc.fd, raw)
                raw = raw[n:]

    def close(self) -> None:
        """Kill bash, its jobs and everything they started; remove the script folder."""
        self._kill()
        shutil.rmtree(self._tmpdir, ignore_errors=True)

    def _kill(self) -> None:
        with self._cond:
            proc, self._proc = self._proc, None
        if proc is None:
            return
        pids = {*_descendants(proc.pid), *_session_members(proc.pid)}
        for pid in [proc.pid, *sorted(pids)]:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            proc.close(force=True)
        self.running = False

    def reset(self) -> None:
        """Replace bash with a fresh session in the initial directory (jobs are killed)."""
        with self._lock:
            self._restart(self.initial_dir)

    def _restart(self, working_dir: str) -> None:
        self._kill()
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
        """Start ``command`` and wait for it (see the module docstring for the timeouts).
        ``env`` is exported in the session first (typed into the terminal, never written to
        a file: it carries secrets). Raises RuntimeError while another command runs.
        """
        with self._lock:
            if self.running:
                raise RuntimeError("a command is still running")
            if self._proc is None or self._eof or not self._proc.isalive():
                self._restart(self.working_dir)
            script = self._tmpdir / "cmd.sh"
            script.write_text(command + "\n", encoding="utf-8")
            exports = "".join(
                f"export {k}={_quote(v)}; " for k, v in (env or {}).items() if k.isidentifier()
            )
            with self._cond:
                self._buf.clear()
            self._returned = 0
            self.running = True
            self._write(f"{exports}. {_quote(str(script))}\n")
            return self._wait(timeout, no_output_timeout)

    def send_input(
        self, text: str, *, timeout: float | None = None, no_output_timeout: float = 30.0
    ) -> CommandResult:
        """Type ``text`` (and Enter) or a key (``C-c``, ``UP``, ...) into the running command."""
        with self._lock:
            if not self.running:
                raise RuntimeError("no command is running")
            key = key_bytes(text)
            self._write(key if key is not None else text.encode("utf-8") + b"\n")
            return self._wait(timeout, no_output_timeout)

    def wait_more(
        self, *, timeout: float | None = None, no_output_timeout: float = 30.0
    ) -> CommandResult:
        """Wait for the running command's next output (or its end)."""
        with self._lock:
            if not self.running:
                raise RuntimeError("no command is running")
            return self._wait(timeout, no_output_timeout)

    def pending_output(self) -> str:
        """Output of the running command not returned yet (it is then counted as returned)."""
        with self._cond:
            raw = bytes(self._buf[self._returned :])
            self._returned = len(self._buf)
        return clean_output(raw).rstrip()

    def _wait(self, timeout: float | None, no_output_timeout: float) -> CommandResult:
        continued = self._returned > 0
        result = self._wait_for(timeout, no_output_timeout)
        result.continued = continued
        return result

    def _wait_for(self, timeout: float | None, no_output_timeout: float) -> CommandResult:
        start = time.monotonic()
        last_len, last_change = -1, start
        interrupted_at: float | None = None
        searched = max(0, self._returned - 1)
        while True:
            with self._cond:
                # search only the new bytes (and a marker's length before them)
                match = self._marker.search(self._buf, searched)
                searched = max(searched, len(self._buf) - _MARKER_SPAN)
                if match:
                    return self._finish(match, start, interrupted_at is not None)
                if self._eof:
                    return self._ended(start)
                self._cond.wait(0.05)
                size = len(self._buf)
            now = time.monotonic()
            if self._proc is not None and not self._proc.isalive():
                # bash exited; a background job may still hold the terminal open (no EOF)
                time.sleep(0.05)
                with self._cond:
                    return self._ended(start)
            if size != last_len:
                last_len, last_change = size, now
            if interrupted_at is not None:
                if now - interrupted_at > _KILL_GRACE:
                    return self._hung(start)
                continue
            if size > MAX_OUTPUT_BYTES:
                interrupted_at = now
                self._write(b"\x03")
            elif timeout is not None and now - start >= timeout:
                return self._partial(start, timed_out=True)
            elif timeout is None and now - last_change >= no_output_timeout:
                return self._partial(start, no_output=True)

    def _partial(
        self, start: float, *, timed_out: bool = False, no_output: bool = False
    ) -> CommandResult:
        with self._cond:
            end = len(self._buf)
            # keep back a line that may be the start of the marker
            tail = self._buf.rfind(b"\n__TK_", self._returned)
            if tail >= 0:
                end = tail
            raw = bytes(self._buf[self._returned : end])
            self._returned = end
        return self._result(
            raw, start, exit_code=-1, running=True, timed_out=timed_out, no_output_timeout=no_output
        )

    def _finish(self, match: re.Match[bytes], start: float, interrupted: bool) -> CommandResult:
        raw = bytes(self._buf[self._returned : match.start()])
        rc = int(match.group(1))
        bg = match.group(2)
        py = match.group(3).decode("utf-8", "replace")
        cwd = match.group(4).decode("utf-8", "replace")
        if cwd:
            self.working_dir = cwd
        del self._buf[: match.end()]
        self._returned = 0
        self.running = False
        return self._result(
            raw,
            start,
            exit_code=-1 if interrupted else rc,
            output_limit=interrupted,
            py_interpreter_path=py,
            pid=int(bg) if bg else -1,
        )

    def _ended(self, start: float) -> CommandResult:
        """bash exited during the command (``exit N``): report N and start a new bash."""
        raw = bytes(self._buf[self._returned :])
        rc: int | None = -1
        proc = self._proc
        if proc is not None:
            with contextlib.suppress(Exception):
                rc = proc.wait()
        self._restart(self.working_dir)
        return self._result(
            raw, start, exit_code=rc if rc is not None else -1, session_restarted=True
        )

    def _hung(self, start: float) -> CommandResult:
        with self._cond:
            raw = bytes(self._buf[self._returned :])
        self._restart(self.working_dir)
        return self._result(raw, start, exit_code=-1, output_limit=True, session_restarted=True)

    def _result(self, raw: bytes, start: float, **fields: Any) -> CommandResult:
        """The result of a call that started at ``start`` and read ``raw``."""
        return CommandResult(
            output=clean_output(raw).rstrip(),
            working_dir=self.working_dir,
            elapsed=time.monotonic() - start,
            **fields,
        )


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


def _session_members(sid: int) -> list[int]:
    """Processes of the terminal's session (background jobs outlive an exited bash)."""
    out: list[int] = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[3]) == sid:
                out.append(int(stat.parent.name))
    return out


def _quote(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


def _default_signals() -> None:
    """In the shell's process, before bash starts: Ctrl-C and Ctrl-\\ act again.

    A process started in the background of a non-interactive shell (`cmd &`, `nohup`, many CI
    runners) inherits SIGINT and SIGQUIT *ignored*; bash cannot undo an ignored signal it
    inherits, and every command it runs would ignore ``C-c`` too.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


class _Pty:
    """The slice of `ptyprocess.PtyProcess` used here (imported lazily: runtime only)."""

    def __init__(self, proc: object) -> None:
        self._p = proc

    @classmethod
    def spawn(
        cls, argv: list[str], *, cwd: str, env: dict[str, str], dimensions: tuple[int, int]
    ) -> _Pty:
        from ptyprocess import PtyProcess

        return cls(
            PtyProcess.spawn(
                argv,
                cwd=cwd,
                env=env,
                dimensions=dimensions,
                echo=False,
                preexec_fn=_default_signals,
            )
        )

    @property
    def pid(self) -> int:
        return int(self._p.pid)  # type: ignore[attr-defined]

    @property
    def fd(self) -> int:
        return int(self._p.fd)  # type: ignore[attr-defined]

    def isalive(self) -> bool:
        return bool(self._p.isalive())  # type: ignore[attr-defined]

    def wait(self) -> int | None:
        self._p.wait()  # type: ignore[attr-defined]
        status = self._p.exitstatus  # type: ignore[attr-defined]
        return int(status) if status is not None else None

    def close(self, *, force: bool) -> None:
        self._p.close(force=force)  # type: ignore[attr-defined]
