"""``TerminalTool``: shell commands in a persistent bash session, as the SDK's ``terminal``.

Observations match what openhands-tools writes: ``content`` is the command output (trailing
newlines removed), ``metadata`` carries exit code, working directory and the completion
``suffix``. Output longer than 30,000 characters is cut for the LLM (head and tail around a
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

from trajkit.events import Action, TerminalAction, TerminalObservation, TextContent
from trajkit.events.truncate import MAX_CMD_OUTPUT_SIZE, maybe_truncate, saved_output_path
from trajkit.sdk.tool import RuntimeTool, ToolContext, register_tool
from trajkit.tools.terminal.session import MAX_OUTPUT_BYTES, CommandResult, TerminalSession

__all__ = ["TerminalTool"]

DESCRIPTION = """Execute a shell command in the terminal within a persistent shell session.


### Command Execution
* One command at a time: You can only execute one shell command at a time.
  If you need to run multiple commands sequentially, use `&&` or `;`.
* Persistent session: Environment variables, virtual environments, and
  working directory changes persist across commands.
* Soft timeout: Commands that produce no new output for {no_change} seconds are
  stopped unless you provide a longer `timeout`.
* Shell options: Do NOT use `set -e`, `set -eu`, or `set -euo pipefail`.
  The runtime may not support them reliably.

### Long-running Commands
* For commands that may run indefinitely, run them in the background and
  redirect output to a file, e.g. `python3 app.py > server.log 2>&1 &`.
* For long-running commands, set the `timeout` parameter accordingly.
* If a command returns exit code `-1`, it hit a timeout and was stopped.
* Commands do not read from standard input; `is_input` is not supported.

### Best Practices
* Verify a parent directory exists before creating files or directories.
* Prefer absolute paths and avoid excessive use of `cd`.

### Output Handling
* Large output may be truncated before being returned.

### Terminal Reset
* Set `reset=true` to create a fresh terminal session if the current one
  becomes unresponsive.
* Resetting the terminal clears environment variables, working directory
  changes, and running processes."""

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {
            "type": "string",
            "description": "The shell command to execute. Can be empty string to view additional "
            "logs when the previous exit code is `-1`. Can be a special key name when `is_input` "
            "is True: `C-c` (Ctrl+C), `C-d` (Ctrl+D/EOF), `C-z` (Ctrl+Z), or any `C-<letter>` "
            "for Ctrl sequences; navigation keys `UP`, `DOWN`, `LEFT`, `RIGHT`, `HOME`, `END`, "
            "`PGUP`, `PGDN`; and `TAB`, `ESC`, `BS` (Backspace), `ENTER`. You can only execute "
            "one command at a time. Use the platform-appropriate shell syntax described in the "
            "tool description when chaining commands.",
        },
        "is_input": {
            "type": "boolean",
            "description": "If True, the command is an input to the running process. If False, "
            "the command is executed in the terminal session. Default is False.",
        },
        "timeout": {
            "type": "number",
            "description": "Optional. Sets a maximum time limit (in seconds) for running the "
            "command. If the command takes longer than this limit, you\u2019ll be asked whether "
            "to continue or stop it. If you don\u2019t set a value, the command will instead "
            "pause and ask for confirmation when it produces no new output for 30 seconds. Use "
            "a higher value if the command is expected to take a long time (like installation "
            "or testing), or if it has a known fixed duration (like sleep).",
        },
        "reset": {
            "type": "boolean",
            "description": "If True, reset the terminal by creating a new session. Use this only "
            "when the terminal becomes unresponsive. Note that all previously set environment "
            "variables and session state will be lost after reset. Cannot be used with "
            "is_input=True.",
        },
    },
    "required": ["command"],
}

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
    parameters = PARAMETERS

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

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None

    def __call__(self, action: Action) -> TerminalObservation:
        assert isinstance(action, TerminalAction)
        if action.is_input:
            return _error(
                action,
                "No command is running: commands run to completion (or their timeout), "
                "so `is_input` has nothing to send input to.",
            )
        prefix = ""
        if action.reset:
            self.session.reset()
            prefix = RESET_MESSAGE + "\n"
            if not action.command.strip():
                return self._observation(
                    action, CommandResult(RESET_MESSAGE, 0, self.session.working_dir), ""
                )
        elif not action.command.strip():
            return _error(action, "No previous running command to retrieve logs from.")
        secrets = self.ctx.secrets
        env = secrets.env_for_command(action.command) if secrets is not None else {}
        result = self.session.run(
            action.command,
            timeout=action.timeout,
            no_output_timeout=self.no_change_timeout,
            env=env,
        )
        if secrets is not None:  # hide secret values before anything is saved or returned
            result = dataclasses.replace(result, output=secrets.mask(result.output))
        return self._observation(action, result, prefix)

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
            metadata={
                "exit_code": result.exit_code,
                "pid": -1,
                "username": _username(),
                "hostname": socket.gethostname(),
                "working_dir": result.working_dir,
                "py_interpreter_path": "",
                "prefix": prefix,
                "suffix": _suffix(action, result, self.no_change_timeout),
            },
            full_output_save_dir=save_dir if (save_dir and body) else None,
        )
        if obs.full_output_save_dir:
            text = obs.llm_text()
            if len(text) > MAX_CMD_OUTPUT_SIZE:
                _save(saved_output_path(text, obs.full_output_save_dir, "terminal"), text)
        return obs


def _suffix(action: TerminalAction, r: CommandResult, no_change: float) -> str:
    restarted = (
        " The terminal session was restarted, so environment variables set earlier are gone."
        if r.session_restarted
        else ""
    )
    if r.timed_out:
        return (
            f"\n[The command timed out after {_num(action.timeout)} seconds. The command was "
            f"stopped; run long commands in the background or set a larger `timeout`.{restarted}]"
        )
    if r.output_limit:
        return (
            f"\n[The command was stopped after printing more than {MAX_OUTPUT_BYTES // 2**20} "
            f"MiB of output; redirect large output to a file.{restarted}]"
        )
    if r.no_output_timeout:
        return (
            f"\n[The command has no new output after {_num(no_change)} seconds. The command was "
            f"stopped; set `timeout` for commands that stay silent longer.{restarted}]"
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
    from trajkit.store.atomic import atomic_write

    p = Path(path)
    if p.exists():
        return
    p.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(p, text)


def _username() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""
