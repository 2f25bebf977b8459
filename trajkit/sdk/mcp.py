"""MCP servers as agent tools: start stdio servers or connect to remote ones (streamable HTTP,
SSE), list their tools, call them.

``Agent(mcp_config=...)`` takes either the reference document's form
``{"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}}}`` or the plain map
``{"fetch": {...}}`` the current OpenHands SDK persists; `normalize_mcp_config` turns both into the
plain map, which is what ``agent.mcp_config`` holds on disk.

The ``mcp`` client is asynchronous and the runtime is not: each server is driven through an
anyio blocking portal (``anyio.from_thread.start_blocking_portal``, an event loop in its own
thread), and its ``stdio_client``/``ClientSession`` contexts are one async context manager
entered and left through ``portal.wrap_async_context_manager``, so anyio's rule that the same
task enters and leaves them holds. Every step is bounded inside the loop with
``anyio.fail_after`` (`MCPTimeouts`): a server that does not start, does not list its tools, or
does not answer a call in time gives an `MCPError`, never a hang. A server that dies makes its
pending call fail with an error observation naming the server and the end of its stderr (kept
in a temporary file, not shown on the console), and later calls fail at once. Configuration
and the server environment live in `trajkit.sdk.mcp_config`.

Each MCP tool becomes an `MCPTool`: offered to the LLM under the MCP tool's own name (with
``<server>_`` before it when several servers are configured, as the SDK's composite client does)
with its ``inputSchema`` (plus ``security_risk``/``summary`` as the SDK adds them, built by
`trajkit.convert.tools.tool_parameters` so requests and conversions agree), recorded in the
SystemPromptEvent as an ``MCPToolDefinition`` with ``mcp_tool`` {name, description, inputSchema},
called with ``MCPToolAction{data}`` and answered with ``MCPToolObservation{tool_name}`` whose
content is ``[Tool '<name>' executed.]``, one text item per MCP text block and one data-URL image
per MCP image block; ``is_error`` is MCP's ``isError``.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import shlex
import shutil
import tempfile
import weakref
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajkit.convert.tools import tool_parameters
from trajkit.events import (
    ImageContent,
    MCPToolAction,
    MCPToolObservation,
    TextContent,
)
from trajkit.sdk.mcp_config import (
    MCPError,
    MCPServer,
    auth_headers,
    normalize_mcp_config,
    protect_mcp_config,
    server_environment,
    unprotect_mcp_config,
)
from trajkit.sdk.tool.tool import RuntimeTool, own_arguments

if TYPE_CHECKING:
    from anyio.from_thread import BlockingPortal

__all__ = [
    "MCPError",
    "MCPServer",
    "MCPServerConnection",
    "auth_headers",
    "MCPTimeouts",
    "MCPTool",
    "MCPToolset",
    "normalize_mcp_config",
    "protect_mcp_config",
    "result_to_observation",
    "server_environment",
    "unprotect_mcp_config",
]

logger = logging.getLogger(__name__)
_MCP_TOOL_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
_STDERR_TAIL = 1500


@dataclass(frozen=True)
class MCPTimeouts:
    """Upper bounds, in seconds, for each MCP step."""

    start: float = 60.0
    """Spawn the process and complete the MCP initialize handshake (uvx may download first)."""
    list: float = 30.0
    """List the server's tools."""
    call: float = 120.0
    """One tool call."""
    close: float = 10.0
    """Shut a server down before its task is cancelled."""


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


_LIVE: weakref.WeakSet[MCPServerConnection] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    """Stop servers a program forgot to close, so none outlives it."""
    for connection in list(_LIVE):
        connection.close()


class MCPServerConnection:
    """One running stdio MCP server and its client session, driven from sync code through an
    anyio blocking portal (its own event-loop thread).
    """

    def __init__(
        self, name: str, server: Mapping[str, Any], *, timeouts: MCPTimeouts | None = None
    ) -> None:
        self.name = name
        self.server = dict(server)
        self.timeouts = timeouts or MCPTimeouts()
        self._portal_cm: contextlib.AbstractContextManager[BlockingPortal] | None = None
        self._portal: BlockingPortal | None = None
        self._session_cm: contextlib.AbstractContextManager[Any] | None = None
        self._session: Any = None
        self._ended: str | None = None
        self._step = "start (spawn and initialize)"
        fd, self._stderr_path = tempfile.mkstemp(
            prefix=f"trajkit-mcp-{_safe(name)}-", suffix=".log"
        )
        self._stderr = os.fdopen(fd, "w")

    @property
    def command_line(self) -> str:
        """What the server is: its command line, or its URL for a remote server."""
        if self.remote:
            return _shown_url(str(self.server["url"]))
        return shlex.join([str(self.server.get("command", "")), *self.server.get("args", [])])

    @property
    def remote(self) -> bool:
        """A server reached at its ``url`` (streamable HTTP or SSE), not a process to run."""
        return remote_transport(self.server) is not None

    @property
    def running(self) -> bool:
        return self._session is not None and self._ended is None

    def stderr_tail(self) -> str:
        """The last lines the server wrote to stderr."""
        try:
            text = Path(self._stderr_path).read_text(errors="replace")
        except OSError:
            return ""
        return text[-_STDERR_TAIL:].strip()

    def start(self) -> list[dict[str, Any]]:
        """Spawn (or connect to) the server, initialize and list its tools (MCP JSON shapes);
        raises MCPError.
        """
        if self.remote:
            self._step = "start (connect and initialize)"
            try:
                auth_headers(self.server.get("auth"))
            except MCPError as e:
                raise MCPError(f"MCP server {self.name!r}: {e}") from None
        command = self.server.get("command")
        if not self.remote and not isinstance(command, str):
            raise MCPError(f"MCP server {self.name!r}: needs 'command' or 'url'")
        if (
            isinstance(command, str)
            and shutil.which(command) is None
            and not Path(command).is_file()
        ):
            hint = " (install uv: https://docs.astral.sh/uv/)" if command in ("uv", "uvx") else ""
            raise MCPError(
                f"MCP server {self.name!r}: cannot start `{self.command_line}`: "
                f"command {command!r} not found on PATH{hint}"
            )
        from anyio.from_thread import start_blocking_portal

        _LIVE.add(self)
        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        session_cm = self._portal.wrap_async_context_manager(self._open())
        try:
            self._session, tools = session_cm.__enter__()
        except BaseException as exc:  # noqa: BLE001 (turned into one MCPError below)
            leaf = _leaf(exc)
            if isinstance(leaf, TimeoutError):
                limit = (
                    self.timeouts.start if self._step.startswith("start") else self.timeouts.list
                )
                message = f"did not {self._step} within {limit:g}s"
            else:
                message = f"failed to {self._step}: {_describe(leaf)}"
            note = self._stderr_note()
            self.close()
            raise MCPError(
                f"MCP server {self.name!r} (`{self.command_line}`) {message}{note}"
            ) from None
        self._session_cm = session_cm
        return list(tools)

    @contextlib.asynccontextmanager
    async def _open(self) -> AsyncIterator[tuple[Any, list[dict[str, Any]]]]:
        """Enter the transport (stdio process or HTTP connection) and the session (in the
        portal's task, which also leaves them), initialize and list the tools, each step
        bounded by its timeout.
        """
        import anyio
        from mcp import ClientSession

        async with (
            self._streams() as (read, write),
            ClientSession(read, write) as session,
        ):
            with anyio.fail_after(self.timeouts.start):
                await session.initialize()
            self._step = "list its tools"
            with anyio.fail_after(self.timeouts.list):
                tools = await _list_tools(session)
            yield session, tools

    def _streams(self) -> contextlib.AbstractAsyncContextManager[tuple[Any, Any]]:
        if self.remote:
            return _remote_streams(self.server)
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(
            command=self.server["command"],
            args=list(self.server.get("args", [])),
            env=server_environment(self.server.get("env")),
            cwd=self.server.get("cwd"),
        )
        return _first_two(stdio_client(params, errlog=self._stderr))

    def call_tool(
        self, tool: str, arguments: Mapping[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]:
        """Call one tool; the ``CallToolResult`` as MCP JSON. Raises MCPError."""
        session, portal = self._session, self._portal
        if session is None or portal is None or self._ended is not None:
            raise MCPError(
                f"MCP server {self.name!r} is not running ({self._ended or 'not started'})"
                f"{self._stderr_note()}"
            )
        limit = self.timeouts.call if timeout is None else timeout

        async def call() -> Any:
            import anyio

            with anyio.fail_after(limit):
                return await session.call_tool(tool, dict(arguments))

        try:
            result = portal.call(call)
        except TimeoutError:
            raise MCPError(
                f"MCP tool {tool!r} on server {self.name!r} did not answer within {limit:g}s"
            ) from None
        except Exception as exc:
            # the session is gone (the server died or broke the protocol): later calls fail
            # at once instead of waiting for their timeout
            self._ended = _describe(_leaf(exc))
            raise MCPError(
                f"MCP server {self.name!r} failed while calling {tool!r}: {self._ended}"
                f"{self._stderr_note()}"
            ) from None
        data: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return data

    def close(self) -> None:
        """Stop the server and its portal thread, remove its stderr file; safe to call twice."""
        session_cm, portal_cm = self._session_cm, self._portal_cm
        self._session_cm = self._portal_cm = None
        self._session = self._portal = None
        if self._ended is None:
            self._ended = "it was closed"
        if session_cm is not None:
            with contextlib.suppress(BaseException):  # a dead server's streams may error
                session_cm.__exit__(None, None, None)
        if portal_cm is not None:
            with contextlib.suppress(BaseException):
                portal_cm.__exit__(None, None, None)
        _LIVE.discard(self)
        with contextlib.suppress(OSError):
            self._stderr.close()
        with contextlib.suppress(OSError):
            os.unlink(self._stderr_path)

    def _stderr_note(self) -> str:
        tail = self.stderr_tail()
        return f"\nserver stderr (last lines):\n{tail}" if tail else ""


def remote_transport(server: Mapping[str, Any]) -> str | None:
    """``sse`` or ``streamable-http`` for a server reached at its ``url``, None for a process.

    As the SDK decides: ``transport`` when given (``http`` is streamable HTTP); otherwise a
    ``url`` without a ``command`` is SSE when its path ends in ``/sse``, else streamable HTTP.
    """
    transport = server.get("transport")
    if transport == "stdio" or (transport is None and isinstance(server.get("command"), str)):
        return None
    if transport in ("http", "streamable-http"):
        return "streamable-http"
    if transport == "sse":
        return "sse"
    url = server.get("url")
    if not isinstance(url, str):
        return None
    return "sse" if url.split("?")[0].rstrip("/").endswith("/sse") else "streamable-http"


@contextlib.asynccontextmanager
async def _remote_streams(server: Mapping[str, Any]) -> AsyncIterator[tuple[Any, Any]]:
    """The read and write streams of a remote server, its ``headers`` and those of its
    ``auth`` sent with every request.
    """
    headers = {str(k): str(v) for k, v in (server.get("headers") or {}).items()}
    headers.update(auth_headers(server.get("auth")))
    url = str(server["url"])
    timeout = float(server.get("timeout") or 30)
    read_timeout = float(server.get("sse_read_timeout") or 300)
    if remote_transport(server) == "sse":
        from mcp.client.sse import sse_client

        opened = sse_client(url, headers=headers, timeout=timeout, sse_read_timeout=read_timeout)
        async with _first_two(opened) as streams:
            yield streams
        return
    from mcp.client import streamable_http

    if not hasattr(streamable_http, "streamable_http_client"):  # mcp 1.x
        opened = streamable_http.streamablehttp_client(  # type: ignore[attr-defined,unused-ignore]
            url, headers=headers, timeout=timeout, sse_read_timeout=read_timeout
        )
        async with _first_two(opened) as streams:
            yield streams
        return
    from mcp.shared._httpx_utils import create_mcp_http_client  # the client mcp itself makes

    async with (
        create_mcp_http_client(headers=headers) as http,
        _first_two(streamable_http.streamable_http_client(url, http_client=http)) as streams,
    ):
        yield streams


@contextlib.asynccontextmanager
async def _first_two(
    opened: contextlib.AbstractAsyncContextManager[Any],
) -> AsyncIterator[tuple[Any, Any]]:
    """A transport's read and write streams (mcp 1.x's streamable HTTP yields a third item)."""
    async with opened as streams:
        yield streams[0], streams[1]


async def _list_tools(session: Any) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        if cursor is None:
            page = await session.list_tools()
        else:
            from mcp.types import PaginatedRequestParams

            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        data = page.model_dump(mode="json", by_alias=True, exclude_none=True)
        tools.extend(data.get("tools", []))
        cursor = data.get("nextCursor")
        if not cursor:
            return tools


def _shown_url(url: str) -> str:
    """A server URL as messages show it: a password in it and secret-looking query values
    masked.
    """
    from urllib.parse import urlsplit, urlunsplit

    from trajkit.redact import MASK, mask_secret_query

    parts = urlsplit(url)
    if parts.password:
        host = parts.netloc.rsplit("@", 1)[1]
        parts = parts._replace(netloc=f"{parts.username}:{MASK}@{host}")
    return mask_secret_query(urlunsplit(parts))


def _describe(exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)[:40]


def result_to_observation(tool_name: str, result: Mapping[str, Any]) -> MCPToolObservation:
    """An ``MCPToolObservation`` from a ``CallToolResult`` (MCP JSON), as the SDK builds it."""
    content: list[TextContent | ImageContent] = [
        TextContent(text=f"[Tool '{tool_name}' executed.]")
    ]
    for block in result.get("content") or []:
        kind = block.get("type")
        if kind == "text":
            content.append(TextContent(text=str(block.get("text", ""))))
        elif kind == "image":
            mime = block.get("mimeType") or "image/png"
            content.append(ImageContent(image_urls=[f"data:{mime};base64,{block.get('data', '')}"]))
        else:  # audio, resource, resource_link: keep them readable
            content.append(TextContent(text=json.dumps(block, ensure_ascii=False)))
    return MCPToolObservation(
        tool_name=tool_name, content=content, is_error=bool(result.get("isError"))
    )


class MCPTool(RuntimeTool):
    """One tool of a running MCP server, as the agent offers and runs it."""

    name = "mcp"
    action_type = MCPToolAction
    observation_type = MCPToolObservation

    def __init__(
        self,
        connection: MCPServerConnection,
        mcp_tool: Mapping[str, Any],
        *,
        timeout: float,
        prefix: str = "",
    ) -> None:
        self.connection = connection
        self.server_tool = str(mcp_tool["name"])
        """The name the server knows the tool by (``name`` adds ``prefix``)."""
        self.name = prefix + self.server_tool
        self.mcp_tool = {k: mcp_tool[k] for k in _MCP_TOOL_KEYS if k in mcp_tool}
        self.mcp_tool["name"] = self.name
        self.mcp_tool.setdefault("inputSchema", {"type": "object", "properties": {}})
        self.description = str(mcp_tool.get("description") or "")
        self.annotations = mcp_tool.get("annotations")
        self.timeout = timeout

    @property
    def kind(self) -> str:
        return "MCPToolDefinition"

    def _definition_fields(self) -> dict[str, Any]:
        return {"mcp_tool": self.mcp_tool}

    def parameters_schema(self) -> dict[str, Any]:
        return tool_parameters(self.definition())

    def action_from_arguments(self, arguments: dict[str, Any]) -> MCPToolAction:
        return MCPToolAction(data=own_arguments(arguments))

    def __call__(self, action: Any) -> MCPToolObservation:
        data = action.data if isinstance(action, MCPToolAction) else dict(action)
        try:
            result = self.connection.call_tool(self.server_tool, data, timeout=self.timeout)
        except MCPError as exc:
            return MCPToolObservation(
                tool_name=self.name,
                content=[TextContent(text=f"Error calling MCP tool {self.name}: {exc}")],
                is_error=True,
            )
        return result_to_observation(self.name, result)


class MCPToolset:
    """The servers of one ``mcp_config`` and their tools, started as one unit as the SDK does:
    when several servers are enabled each tool is offered as ``<server>_<tool>``, and when one
    of them fails to start none of their tools is offered (``errors`` says why).
    """

    def __init__(
        self, config: Mapping[str, Any] | None, *, timeouts: MCPTimeouts | None = None
    ) -> None:
        self.servers = normalize_mcp_config(config)
        self.timeouts = timeouts or MCPTimeouts()
        self.connections: dict[str, MCPServerConnection] = {}
        self.tools: list[MCPTool] = []
        self.errors: list[MCPError] = []

    def start(self) -> MCPToolset:
        """Start every enabled server; the first that fails stops the others and is added to
        ``errors`` instead of raising.
        """
        enabled = {n: s for n, s in self.servers.items() if s.get("enabled") is not False}
        seen: set[str] = set()
        for name, server in enabled.items():
            connection = MCPServerConnection(name, server, timeouts=self.timeouts)
            try:
                listed = connection.start()
            except MCPError as exc:
                connection.close()
                self.close()
                self.tools.clear()
                self.errors.append(_without_frames(exc))
                break
            self.connections[name] = connection
            prefix = f"{name}_" if len(enabled) > 1 else ""
            for mcp_tool in listed:
                tool = MCPTool(connection, mcp_tool, timeout=self.timeouts.call, prefix=prefix)
                if not mcp_tool.get("name") or tool.name in seen:
                    logger.warning("MCP server %r: skipping duplicate tool %r", name, tool.name)
                    continue
                seen.add(tool.name)
                self.tools.append(tool)
        return self

    def close(self) -> None:
        for connection in self.connections.values():
            connection.close()
        self.connections.clear()

    def __enter__(self) -> MCPToolset:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _without_frames(exc: MCPError) -> MCPError:
    """`exc` (and the exceptions it chains) without tracebacks: kept in ``errors`` for its
    message, its frames would keep the caller alive (a `Conversation` and its writer lock).
    """
    chained: BaseException | None = exc
    seen: set[int] = set()
    while chained is not None and id(chained) not in seen:
        seen.add(id(chained))
        chained.__traceback__ = None
        chained = chained.__cause__ or chained.__context__
    return exc
