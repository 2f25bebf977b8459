"""``TerminalExecutor``: runs a `TerminalAction` in a persistent bash session on a PTY.

The executor behind `trajkit.tools.terminal.TerminalTool`, public as in the SDK so a custom tool
can share one shell with the terminal (``TerminalTool.create(conv_state, executor=...)``) or run
commands of its own: ``executor(TerminalAction(command="ls")).text``.
"""

from __future__ import annotations

import dataclasses
import getpass
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajkit.events import TerminalAction, TerminalObservation, TextContent
from trajkit.events.truncate import MAX_CMD_OUTPUT_SIZE, maybe_truncate, saved_output_path
from trajkit.sdk.tool import ToolExecutor
from trajkit.tools.terminal.session import (
    MAX_OUTPUT_BYTES,
    CommandResult,
    TerminalSession,
    key_bytes,
)

if TYPE_CHECKING:
    from trajkit.sdk.conversation.base import BaseConversation

__all__ = ["TerminalExecutor"]

CONTINUED = "[Below is the output of the previous command.]\n"
STILL_RUNNING_HINT = (
    "Send an empty command to wait for more output, send text or keys (`C-c`, `C-d`, `C-z`) "
    "with `is_input` set to `true` to answer or stop it, or give a larger `timeout` next time."
)
RESET_MESSAGE = (
    "Terminal session has been reset. All previous environment variables and session state "
    "have been cleared."
)


class TerminalExecutor(ToolExecutor[TerminalAction, TerminalObservation]):
    """One bash session rooted in ``working_dir``, started on first use.

    Args:
        no_change_timeout_seconds: a command silent this long returns (still running).
        env: environment of the shell (default: the current one).
        full_output_save_dir: where outputs too long for the LLM are saved in full.
        secrets: a `trajkit.sdk.secret.secrets.SecretRegistry`: exported to the commands that
            name them and masked in their output.
    """

    def __init__(
        self,
        working_dir: str,
        *,
        no_change_timeout_seconds: float | None = None,
        env: Mapping[str, str] | None = None,
        full_output_save_dir: str | None = None,
        secrets: Any = None,
    ) -> None:
        self.working_dir = working_dir
        self.no_change_timeout = float(no_change_timeout_seconds or 30.0)
        self.env = dict(env) if env is not None else None
        self.full_output_save_dir = full_output_save_dir
        self.secrets = secrets
        self._session: TerminalSession | None = None

    @property
    def session(self) -> TerminalSession:
        """The bash session, started on first use."""
        if self._session is None:
            self._session = TerminalSession(self.working_dir, env=self.env)
        return self._session

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None

    def __call__(
        self, action: TerminalAction, conversation: BaseConversation | None = None
    ) -> TerminalObservation:
        del conversation
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
        secrets = self.secrets
        env = secrets.env_for_command(action.command) if secrets is not None else {}
        result = session.run(action.command, env=env, timeout=timeout, no_output_timeout=quiet)
        return self._observation(action, self._masked(result), prefix)

    def _masked(self, result: CommandResult) -> CommandResult:
        secrets = self.secrets
        if secrets is None:  # hide secret values before anything is saved or returned
            return result
        return dataclasses.replace(result, output=secrets.mask(result.output))

    def _refused(self, action: TerminalAction) -> TerminalObservation:
        """A new command while the previous one runs: not executed; its output so far."""
        output = self.session.pending_output()
        if self.secrets is not None:
            output = self.secrets.mask(output)
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
        save_dir = self.full_output_save_dir
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
