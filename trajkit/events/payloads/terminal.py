"""Terminal tool payloads (openhands-tools ``terminal``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from trajkit.events._model import StrictModel
from trajkit.events.message import ImageContent, TextContent
from trajkit.events.payloads.base import ERROR_HEADER, Action, Observation
from trajkit.events.truncate import MAX_CMD_OUTPUT_SIZE, maybe_truncate


class TerminalAction(Action):
    """Run a shell command in the persistent terminal session."""

    command: str
    """Command line, or a special key name when ``is_input``."""
    is_input: bool = False
    """Send ``command`` as input to the running process."""
    timeout: float | None = None
    """Hard timeout in seconds."""
    reset: bool = False
    """Restart the terminal session first."""
    kind: Literal["TerminalAction"] = "TerminalAction"
    """Payload class name."""


class CmdOutputMetadata(StrictModel):
    """Metadata the terminal session records for each command."""

    exit_code: int = -1
    """Exit code, -1 when unknown (still running, timed out)."""
    pid: int = -1
    """Process id, -1 when unknown."""
    username: str | None = None
    """User running the shell."""
    hostname: str | None = None
    """Host name."""
    working_dir: str | None = None
    """Working directory after the command."""
    py_interpreter_path: str | None = None
    """Python interpreter on PATH."""
    prefix: str = ""
    """Text placed before the output (e.g. continuation notices)."""
    suffix: str = ""
    """Text placed after the output (e.g. the completion notice)."""


class TerminalObservation(Observation):
    """Result of a terminal command."""

    command: str | None = None
    """The command that ran (required-but-nullable in the SDK; absent when None)."""
    exit_code: int | None = None
    """Exit code, when known."""
    timeout: bool = False
    """Whether the command hit its timeout."""
    metadata: CmdOutputMetadata = Field(default_factory=CmdOutputMetadata)
    """Session metadata for the command."""
    full_output_save_dir: str | None = None
    """Folder (``<conversation>/observations``) holding full outputs truncated for the LLM."""
    kind: Literal["TerminalObservation"] = "TerminalObservation"
    """Payload class name."""

    def llm_text(self) -> str:
        """The single text item the LLM sees, before truncation (v1-rendering 2.2)."""
        md = self.metadata
        parts = [md.prefix]  # joined once: outputs run to 100 KB, each + would copy them
        parts.extend(c.text for c in self.content if isinstance(c, TextContent))
        parts.append(md.suffix)
        if md.working_dir:
            parts.append(f"\n[Current working directory: {md.working_dir}]")
        if md.py_interpreter_path:
            parts.append(f"\n[Python interpreter: {md.py_interpreter_path}]")
        if md.exit_code != -1:
            parts.append(f"\n[Command finished with exit code {md.exit_code}]")
        return "".join(parts)

    def to_llm_content(self) -> list[TextContent | ImageContent]:
        """Error header (if any) and one text item, truncated to 30,000 characters."""
        text = maybe_truncate(
            self.llm_text(),
            MAX_CMD_OUTPUT_SIZE,
            save_dir=self.full_output_save_dir,
            prefix="terminal",
        )
        out: list[TextContent | ImageContent] = []
        if self.is_error:
            out.append(TextContent(text=ERROR_HEADER))
        out.append(TextContent(text=text))
        return out
