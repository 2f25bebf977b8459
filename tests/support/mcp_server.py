"""A real stdio MCP server for tests, written with the ``mcp`` package.

Run it as ``python tests/support/mcp_server.py`` (or ``-m tests.support.mcp_server``); it speaks
MCP over stdin/stdout. Its two main tools are ``add`` (two integers) and ``echo`` (returns the
text, and optionally the value of an environment variable, so tests can check that a server's
``env`` reaches it). Three more exercise the error paths: ``pixel`` returns an image block,
``fail`` makes the server report ``isError``, ``sleep`` answers late and ``crash`` kills the
server process mid-call.

`server_config()` gives the ``mcpServers`` entry that starts it with the current interpreter.
"""

from __future__ import annotations

import base64
import os
import sys
import time
from pathlib import Path
from typing import Any

try:  # mcp >= 2
    from mcp.server.mcpserver import Image
    from mcp.server.mcpserver import MCPServer as _Server
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as _Server  # type: ignore[no-redef]
    from mcp.server.fastmcp import Image  # type: ignore[no-redef]
    from mcp.server.fastmcp.exceptions import ToolError  # type: ignore[no-redef]

# A 1x1 transparent PNG.
PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def build_server() -> Any:
    """The server with its tools (built only in the server process: it configures logging)."""
    server = _Server("trajkit-test")

    @server.tool()
    def add(a: int, b: int) -> str:
        """Add two integers and return the sum."""
        return str(a + b)

    @server.tool()
    def echo(text: str, env_var: str = "") -> str:
        """Return the text; with env_var, append that environment variable's value."""
        if env_var:
            return f"{text} {os.environ.get(env_var, '<unset>')}"
        return text

    @server.tool()
    def pixel() -> Image:
        """Return a 1x1 PNG image."""
        return Image(data=PIXEL_PNG, format="png")

    @server.tool()
    def fail(reason: str) -> str:
        """Always fail with the given reason."""
        raise ToolError(reason)

    @server.tool()
    def sleep(seconds: float) -> str:
        """Sleep, then answer."""
        time.sleep(seconds)
        return "slept"

    @server.tool()
    def crash() -> str:
        """Kill the server process without answering."""
        os._exit(3)

    return server


SCRIPT = str(Path(__file__).resolve())


def server_config(**env: str) -> dict[str, Any]:
    """An ``mcpServers`` entry that starts this server with the running interpreter."""
    entry: dict[str, Any] = {"command": sys.executable, "args": [SCRIPT]}
    if env:
        entry["env"] = dict(env)
    return entry


if __name__ == "__main__":
    build_server().run()
