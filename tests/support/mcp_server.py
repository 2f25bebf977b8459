"""A real MCP server for tests, written with the ``mcp`` package.

Run it as ``python tests/support/mcp_server.py`` (or ``-m tests.support.mcp_server``); it speaks
MCP over stdin/stdout (``... streamable-http|sse PORT [Name=value]`` serves it over HTTP on
127.0.0.1 instead, optionally requiring a header; `http_server()` runs that for a test). Its two main tools are ``add`` (two integers) and ``echo`` (returns the
text, and optionally the value of an environment variable, so tests can check that a server's
``env`` reaches it). Three more exercise the error paths: ``pixel`` returns an image block,
``fail`` makes the server report ``isError``, ``sleep`` answers late and ``crash`` kills the
server process mid-call.

`server_config()` gives the ``mcpServers`` entry that starts it with the current interpreter.
"""

from __future__ import annotations

import base64
import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
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


def _require_header(app: Any, name: str, value: str) -> Any:
    """The ASGI app, answering 401 to HTTP requests without the header ``name: value``."""

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            if headers.get(name.lower()) != value:
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"missing header"})
                return
        await app(scope, receive, send)

    return guarded


def serve_http(transport: str, port: int, header: str | None = None) -> None:
    """Serve the tools over ``streamable-http`` (at ``/mcp``) or ``sse`` (at ``/sse``) on
    127.0.0.1:``port``; with ``header`` (``Name=value``) every request must carry it.
    """
    import uvicorn

    server = build_server()
    app = server.sse_app() if transport == "sse" else server.streamable_http_app()
    if header:
        name, value = header.split("=", 1)
        app = _require_header(app, name, value)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


@contextlib.contextmanager
def http_server(transport: str = "streamable-http", header: str | None = None) -> Iterator[str]:
    """Run this server over HTTP in a subprocess on a free loopback port; yields its URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    args = [sys.executable, SCRIPT, transport, str(port), *([header] if header else [])]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the MCP test server did not start: {proc.stderr.read()!r}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/{'sse' if transport == 'sse' else 'mcp'}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    if len(sys.argv) > 2:  # transport, port[, Name=value]
        serve_http(sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)
    else:
        build_server().run()
