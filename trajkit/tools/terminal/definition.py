"""``TerminalTool``: shell commands in a persistent bash session on a PTY, as the SDK's ``terminal``.

Observations match what openhands-tools writes: ``content`` is the command output (trailing
newlines removed), ``metadata`` carries exit code, ``$!``, user, host, working directory and
Python interpreter once the command finished, and the ``prefix``/``suffix`` notices. A command
that is still running (soft no-output timeout, or ``timeout``) returns exit code -1 and only the
notices; the next call waits on it (empty command), types into it (``is_input``) or is refused
while it runs, as in the SDK. Output longer than 30,000 characters is cut for the LLM (head and tail around a
notice naming the file) and the full output is saved as
``<conversation>/observations/terminal_output_<sha256[:8]>.txt``. The text the LLM will be
shown (prefix, body, suffix, cwd and exit lines) is itself cut again at format time by the
converters, which name a second file; that file is written here too, so every path an LLM
reads exists.
"""

from __future__ import annotations

import dataclasses
import getpass
import socket
from pathlib import Path
from typing import Any

from trajkit.convert.tools import BUILTIN_PARAMETERS
from trajkit.events import Action, TerminalAction, TerminalObservation, TextContent
from trajkit.events.truncate import MAX_CMD_OUTPUT_SIZE, maybe_truncate, saved_output_path
from trajkit.sdk.tool import RuntimeTool, ToolContext, register_tool
from trajkit.tools.terminal.session import (
    MAX_OUTPUT_BYTES,
    CommandResult,
    TerminalSession,
    key_bytes,
)

__all__ = ["TerminalTool"]

DESCRIPTION = """Runs a command in a persistent bash shell on a pseudo-terminal and returns its output.

### How commands run
* One shell session for the whole conversation: the working directory, environment variables,
  shell functions and activated virtualenvs stay from one call to the next.
* Programs see a real terminal (`tty` works, `ls` prints columns, `input()` prompts wait for
  you). Colour and cursor codes are removed from what you get back, and pagers are disabled
  (`PAGER` and `GIT_PAGER` are `cat`).
* Send one command per call. Chain steps with `&&` (stop at the first failure) or `;`; a
  multi-line script or a heredoc is fine as one command.
* Do not use `set -e` or `set -u` at the top level: a failing command would end the shell
  session itself.

### Slow, silent and interactive commands
* A command that produces no new output for {no_change} seconds is not stopped: you get the
  output so far with exit code `-1`, and it keeps running. Then either send an empty `command` to wait
  for more output, send text or a key with `is_input` set to `true` (text is typed followed by
  Enter; keys are `C-c`, `C-d`, `C-z`, other `C-<letter>`, `UP`, `DOWN`, `LEFT`, `RIGHT`,
  `HOME`, `END`, `PGUP`, `PGDN`, `TAB`, `ESC`, `BS`, `ENTER`), or interrupt it with `C-c`
  before running something else. A new command is refused while the previous one still runs.
* `timeout` (seconds) makes the call return after that long even while output keeps coming;
  use it for builds, installs and test runs you expect to take a while, or a fixed-length
  command such as `sleep`.
* Start servers and watchers in the background with their output in a file, e.g.
  `python3 -m http.server 8000 > server.log 2>&1 &`; they keep running between calls until the
  terminal is reset. Stop them by PID, not by a name pattern.
* A command printing more than 16 MiB is interrupted; send large output to a file instead.

### Output
* Output longer than 30,000 characters is shortened to its beginning and end, and the full text
  is saved to a file whose path is given in the output.
* Each result ends with the exit code, the working directory and the Python interpreter on
  `PATH`.

### Reset
* `reset` set to `true` starts a fresh shell in the initial working directory. Environment
  variables, the working directory and every process started from the terminal, background
  servers included, are gone afterwards. Use it only when the session is stuck."""

CONTINUED = "[Below is the output of the previous command.]\n"
STILL_RUNNING_HINT = (
    "Send an empty command to wait for more output, send text or keys (`C-c`, `C-d`, `C-z`) "
    "with `is_input` set to `true` to answer or stop it, or give a larger `timeout` next time."
)
RESET_MESSAGE = (
    "Terminal session has been reset. All previous environment variables and session state "
    "have been cleared."
)


@register_tool
class TerminalTool(RuntimeTool):
    """Runs shell commands in a persistent bash session rooted in the workspace."""

    name = "terminal"
    action_type = TerminalAction
    observation_type = TerminalObservation
    annotations = {
        "title": "terminal",
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }
    parameters = BUILTIN_PARAMETERS["TerminalAction"]

    def __init__(self, ctx: ToolContext, *, no_change_timeout_seconds: float = 30.0) -> None:
        self.ctx = ctx
        self.no_change_timeout = float(no_change_timeout_seconds)
        self.description = DESCRIPTION.format(no_change=int(self.no_change_timeout))
        self._session: TerminalSession | None = None

    @property
    def session(self) -> TerminalSession:
        """The bash session, started on first use."""
        if self._session is None:
            self._session = TerminalSession(self.ctx.working_dir, env=self.ctx.env)
        return self._session

    def interrupt(self) -> None:
        """`Conversation.interrupt`: end the running command's process group at once."""
        if self._session is not None:
            self._session.interrupt()

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None

    def __call__(self, action: Action) -> TerminalObservation:
        assert isinstance(action, TerminalAction)
        session = self.session
        timeout, quiet = action.timeout, self.no_change_timeout
        if action.is_input:
            if action.reset:
                return _error(action, "`reset` cannot be combined with `is_input`.")
            if not session.running:
                return _error(action, "No previous running command to interact with.")
            result = session.send_input(action.command, timeout=timeout, no_output_timeout=quiet)
            return self._observation(action, self._masked(result), _continued(result))
        prefix = ""
        if action.reset:
            session.reset()
            prefix = RESET_MESSAGE + "\n"
            if not action.command.strip():
                return self._observation(
                    action, CommandResult(RESET_MESSAGE, 0, session.working_dir), ""
                )
        elif not action.command.strip():
            if not session.running:
                return _error(action, "No previous running command to retrieve logs from.")
            result = session.wait_more(timeout=timeout, no_output_timeout=quiet)
            return self._observation(action, self._masked(result), _continued(result))
        elif session.running:
            return self._refused(action)
        secrets = self.ctx.secrets
        env = secrets.env_for_command(action.command) if secrets is not None else {}
        result = session.run(action.command, env=env, timeout=timeout, no_output_timeout=quiet)
        return self._observation(action, self._masked(result), prefix)

    def _masked(self, result: CommandResult) -> CommandResult:
        secrets = self.ctx.secrets
        if secrets is None:  # hide secret values before anything is saved or returned
            return result
        return dataclasses.replace(result, output=secrets.mask(result.output))

    def _refused(self, action: TerminalAction) -> TerminalObservation:
        """A new command while the previous one runs: not executed; its output so far."""
        output = self.session.pending_output()
        if self.ctx.secrets is not None:
            output = self.ctx.secrets.mask(output)
        suffix = (
            f'\n[Your command "{action.command.strip()}" was NOT executed: the previous command '
            f"is still running. {STILL_RUNNING_HINT}]"
        )
        return TerminalObservation(
            content=[TextContent(text=output)],
            is_error=True,
            command=action.command,
            exit_code=-1,
            metadata={"prefix": CONTINUED if output else "", "suffix": suffix},
        )

    def _observation(
        self, action: TerminalAction, result: CommandResult, prefix: str
    ) -> TerminalObservation:
        save_dir = self.ctx.observations_dir
        body = result.output
        if len(body) > MAX_CMD_OUTPUT_SIZE:
            if save_dir:
                _save(saved_output_path(body, save_dir, "terminal"), body)
            body = maybe_truncate(body, MAX_CMD_OUTPUT_SIZE, save_dir=save_dir, prefix="terminal")
        obs = TerminalObservation(
            content=[TextContent(text=body)],
            command=action.command,
            exit_code=result.exit_code,
            timeout=result.timed_out or result.no_output_timeout or result.output_limit,
            metadata=_metadata(action, result, prefix, self.no_change_timeout),
            full_output_save_dir=save_dir if (save_dir and body) else None,
        )
        if obs.full_output_save_dir:
            text = obs.llm_text()
            if len(text) > MAX_CMD_OUTPUT_SIZE:
                _save(saved_output_path(text, obs.full_output_save_dir, "terminal"), text)
        return obs


def _continued(r: CommandResult) -> str:
    return CONTINUED if r.continued else ""


def _metadata(
    action: TerminalAction, r: CommandResult, prefix: str, no_change: float
) -> dict[str, Any]:
    """The SDK's ``CmdOutputMetadata``: read from the prompt when the command finished; only
    the notices while it still runs (nothing else is known then).
    """
    suffix = _suffix(action, r, no_change)
    if r.running:
        return {"prefix": prefix, "suffix": suffix}
    return {
        "exit_code": r.exit_code,
        "pid": r.pid,
        "username": _username(),
        "hostname": socket.gethostname().split(".")[0],
        "working_dir": r.working_dir,
        "py_interpreter_path": r.py_interpreter_path or "",
        "prefix": prefix,
        "suffix": suffix,
    }


def _suffix(action: TerminalAction, r: CommandResult, no_change: float) -> str:
    restarted = (
        " The terminal session was restarted, so environment variables set earlier are gone."
        if r.session_restarted
        else ""
    )
    if r.running and r.timed_out:
        return (
            f"\n[The command timed out after {_num(action.timeout)} seconds and is still "
            f"running. {STILL_RUNNING_HINT}]"
        )
    if r.running:
        return (
            f"\n[The command has no new output after {_num(no_change)} seconds and is still "
            f"running. {STILL_RUNNING_HINT}]"
        )
    if r.output_limit:
        return (
            f"\n[The command was interrupted after printing more than "
            f"{MAX_OUTPUT_BYTES // 2**20} MiB of output; redirect large output to a file."
            f"{restarted}]"
        )
    key = key_bytes(action.command) if action.is_input else None
    if key is not None and len(key) == 1 and action.command.strip()[:2] == "C-":
        return (
            f"\n[The command completed with exit code {r.exit_code}. "
            f"CTRL+{action.command.strip()[-1].upper()} was sent.{restarted}]"
        )
    return f"\n[The command completed with exit code {r.exit_code}.{restarted}]"


def _num(x: float | None) -> str:
    if x is None:
        return "?"
    return str(int(x)) if float(x).is_integer() else str(x)


def _error(action: TerminalAction, message: str) -> TerminalObservation:
    return TerminalObservation(
        content=[TextContent(text=message)], is_error=True, command=action.command
    )


def _save(path: str, text: str) -> None:
    from trajkit.store.atomic import atomic_write, make_folder

    p = Path(path)
    if p.exists():
        return
    make_folder(p.parent)
    atomic_write(p, text)


def _username() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""
