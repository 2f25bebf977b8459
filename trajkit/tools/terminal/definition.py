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

from trajkit.convert.tools import BUILTIN_PARAMETERS
from trajkit.events import Action, TerminalAction, TerminalObservation
from trajkit.sdk.tool import RuntimeTool, ToolContext, register_tool
from trajkit.tools.terminal.impl import TerminalExecutor
from trajkit.tools.terminal.session import TerminalSession

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

    def __init__(
        self,
        ctx: ToolContext,
        *,
        no_change_timeout_seconds: float = 30.0,
        executor: TerminalExecutor | None = None,
    ) -> None:
        self.ctx = ctx
        if executor is None:
            executor = TerminalExecutor(
                ctx.working_dir,
                no_change_timeout_seconds=no_change_timeout_seconds,
                env=ctx.env,
                full_output_save_dir=ctx.observations_dir,
                secrets=ctx.secrets,
            )
        self.executor = executor
        self.description = DESCRIPTION.format(no_change=int(executor.no_change_timeout))

    @property
    def _session(self) -> TerminalSession | None:
        return self.executor._session

    @property
    def session(self) -> TerminalSession:
        """The bash session, started on first use."""
        return self.executor.session

    def interrupt(self) -> None:
        """`Conversation.interrupt`: end the running command's process group at once."""
        if self._session is not None:
            self._session.interrupt()

    def close(self) -> None:
        self.executor.close()

    def __call__(self, action: Action) -> TerminalObservation:
        assert isinstance(action, TerminalAction)
        return self.executor(action)
