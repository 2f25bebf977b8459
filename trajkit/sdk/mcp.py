"""MCP servers as agent tools: start stdio servers, list their tools, call them.

``Agent(mcp_config=...)`` takes either the reference document's form
``{"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}}}`` or the plain map
``{"fetch": {...}}`` the current OpenHands SDK persists; `normalize_mcp_config` turns both into the
plain map, which is what ``agent.mcp_config`` holds on disk.

The ``mcp`` client is asynchronous and the runtime is not, so every server lives on one shared
background event loop (a daemon thread). Each server is a long-lived task that owns its
``stdio_client`` and ``ClientSession`` contexts (anyio needs them entered and left by the same
task) until `MCPServerConnection.close`. The runtime thread waits on concurrent futures, always
with a timeout (`MCPTimeouts`): a server that does not start, does not list its tools, or does not
answer a call in time gives an `MCPError`, never a hang. A server that dies makes its pending and
later calls fail at once with an error observation naming the server and the end of its stderr
(kept in a temporary file, not shown on the console).

Each MCP tool becomes an `MCPTool`: offered to the LLM under the MCP tool's own name with its
``inputSchema`` (plus ``security_risk``/``summary`` as the SDK adds them, built by
`trajkit.convert.tools.tool_parameters` so requests and conversions agree), recorded in the
SystemPromptEvent as an ``MCPToolDefinition`` with ``mcp_tool`` {name, description, inputSchema},
called with ``MCPToolAction{data}`` and answered with ``MCPToolObservation{tool_name}`` whose
content is ``[Tool '<name>' executed.]``, one text item per MCP text block and one data-URL image
per MCP image block; ``is_error`` is MCP's ``isError``.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import json
import logging
import os
import shlex
import shutil
import tempfile
import threading
import weakref
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from trajkit.errors import TrajkitError
from trajkit.events import (
    ImageContent,
    MCPToolAction,
    MCPToolObservation,
    TextContent,
    ToolDefinition,
)
from trajkit.sdk.tool import RuntimeTool

__all__ = [
    "MCPError",
    "MCPServerConnection",
    "MCPTimeouts",
    "MCPTool",
    "MCPToolset",
    "normalize_mcp_config",
    "protect_mcp_config",
    "result_to_observation",
    "server_environment",
    "start_mcp_tools",
    "unprotect_mcp_config",
]

logger = logging.getLogger(__name__)
_T = TypeVar("_T")
_MCP_TOOL_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
_STDERR_TAIL = 1500


class MCPError(TrajkitError):
    """An MCP server could not be configured, started, listed or called."""


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


def normalize_mcp_config(config: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """The plain ``{name: server}`` map from either accepted form; raises MCPError if malformed.

    Each server needs a ``command`` (str) or a ``url``; ``args`` must be a list of strings and
    ``env`` a map of strings. Other keys are kept as given.
    """
    if not config:
        return {}
    if not isinstance(config, Mapping):
        raise MCPError(f"mcp_config: expected a JSON object, got {type(config).__name__}")
    servers = config.get("mcpServers", config)
    if not isinstance(servers, Mapping):
        raise MCPError("mcp_config/mcpServers: expected an object mapping names to servers")
    out: dict[str, dict[str, Any]] = {}
    for name, server in servers.items():
        where = f"mcp_config/{name}"
        if not isinstance(server, Mapping):
            raise MCPError(f"{where}: expected an object with 'command', got {server!r}")
        if not isinstance(server.get("command"), str) and not isinstance(server.get("url"), str):
            raise MCPError(f"{where}: expected 'command' (a program to run) or 'url'")
        args = server.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise MCPError(f"{where}/args: expected a list of strings, got {args!r}")
        env = server.get("env", {})
        if not isinstance(env, Mapping) or not all(isinstance(v, str) for v in env.values()):
            raise MCPError(f"{where}/env: expected an object of string values")
        out[str(name)] = dict(server)
    return out


_SECRET_MAPS = ("env", "headers")

_INHERITED_ENV = frozenset(
    {
        "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
        "http_proxy", "https_proxy", "no_proxy", "all_proxy",
        "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
        "NODE_EXTRA_CA_CERTS", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ",
        "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
    }
)  # fmt: skip
_INHERITED_PREFIXES = ("UV_", "PIP_", "NPM_CONFIG_", "npm_config_")


def server_environment(extra: Mapping[str, str] | None) -> dict[str, str]:
    """Environment of a stdio server: besides the ``mcp`` package's minimal set (PATH, HOME,
    ...), what launchers like ``uvx``/``npx`` need to reach their registry (proxies, CA
    certificates, locale, ``UV_*``/``PIP_*``/``npm_config_*`` settings), never a variable whose
    name looks secret; then the server's own ``env`` on top."""
    from trajkit.redact import is_secret_key

    env = {
        k: v
        for k, v in os.environ.items()
        if (k in _INHERITED_ENV or k.startswith(_INHERITED_PREFIXES)) and not is_secret_key(k)
    }
    env.update(extra or {})
    return env


def protect_mcp_config(config: Mapping[str, Any], cipher: Any) -> dict[str, Any]:
    """The config as written to disk: ``env``/``headers`` values whose names look secret
    (``*_TOKEN``, ``*KEY*``, ``Authorization``, ...) encrypted with ``cipher``, else masked."""
    from trajkit.redact import is_secret_key
    from trajkit.sdk.secrets import dump_secret

    out: dict[str, Any] = {}
    for name, server in config.items():
        server = dict(server) if isinstance(server, Mapping) else server
        for field in _SECRET_MAPS:
            values = server.get(field) if isinstance(server, dict) else None
            if isinstance(values, Mapping):
                server[field] = {
                    k: dump_secret(v, cipher) if is_secret_key(str(k)) and isinstance(v, str) else v
                    for k, v in values.items()
                }
        out[name] = server
    return out


def unprotect_mcp_config(config: Mapping[str, Any], cipher: Any) -> dict[str, Any]:
    """The config read back: secret values decrypted with ``cipher``; masked ones dropped."""
    from trajkit.redact import is_secret_key
    from trajkit.sdk.secrets import load_secret

    out: dict[str, Any] = {}
    for name, server in config.items():
        server = dict(server) if isinstance(server, Mapping) else server
        for field in _SECRET_MAPS:
            values = server.get(field) if isinstance(server, dict) else None
            if isinstance(values, Mapping):
                kept: dict[str, Any] = {}
                for k, v in values.items():
                    if is_secret_key(str(k)) and isinstance(v, str):
                        loaded = load_secret(v, cipher)
                        if loaded is None:
                            continue
                        v = loaded
                    kept[k] = v
                server[field] = kept
        out[name] = server
    return out


class _LoopThread:
    """One asyncio loop in a daemon thread, shared by every MCP connection."""

    _instance: ClassVar[_LoopThread | None] = None
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="trajkit-mcp", daemon=True
        )
        self.thread.start()

    @classmethod
    def get(cls) -> _LoopThread:
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def submit(self, coro: Coroutine[Any, Any, _T]) -> concurrent.futures.Future[_T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)


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
    """One running stdio MCP server and its client session."""

    def __init__(
        self, name: str, server: Mapping[str, Any], *, timeouts: MCPTimeouts | None = None
    ) -> None:
        self.name = name
        self.server = dict(server)
        self.timeouts = timeouts or MCPTimeouts()
        self._session: Any = None
        self._stop: asyncio.Event | None = None
        self._task: concurrent.futures.Future[None] | None = None
        self._ended: str | None = None
        self._done = threading.Event()
        self._session_started = False
        fd, self._stderr_path = tempfile.mkstemp(
            prefix=f"trajkit-mcp-{_safe(name)}-", suffix=".log"
        )
        self._stderr = os.fdopen(fd, "w")

    @property
    def command_line(self) -> str:
        return shlex.join([str(self.server.get("command", "")), *self.server.get("args", [])])

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
        """Spawn the server, initialize and list its tools (MCP JSON shapes); raises MCPError."""
        if not isinstance(self.server.get("command"), str):
            raise MCPError(
                f"MCP server {self.name!r}: only stdio servers (with 'command') are supported; "
                f"got {sorted(self.server)}"
            )
        command = self.server["command"]
        if shutil.which(command) is None and not Path(command).is_file():
            hint = " (install uv: https://docs.astral.sh/uv/)" if command in ("uv", "uvx") else ""
            raise MCPError(
                f"MCP server {self.name!r}: cannot start `{self.command_line}`: "
                f"command {command!r} not found on PATH{hint}"
            )
        initialized: concurrent.futures.Future[None] = concurrent.futures.Future()
        listed: concurrent.futures.Future[list[dict[str, Any]]] = concurrent.futures.Future()
        _LIVE.add(self)
        self._task = _LoopThread.get().submit(self._serve(initialized, listed))
        self._wait(initialized, self.timeouts.start, "start (spawn and initialize)")
        return self._wait(listed, self.timeouts.list, "list its tools")

    def _wait(self, future: concurrent.futures.Future[_T], timeout: float, step: str) -> _T:
        try:
            return future.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            self.close()  # stops the process first, so its last stderr lines are in the file
            message = f"did not {step} within {timeout:g}s"
        except Exception as exc:
            self.close()
            message = f"failed to {step}: {_describe(exc)}"
        note = self._stderr_note()
        self._remove_stderr()
        raise MCPError(f"MCP server {self.name!r} (`{self.command_line}`) {message}{note}")

    async def _serve(
        self,
        initialized: concurrent.futures.Future[None],
        listed: concurrent.futures.Future[list[dict[str, Any]]],
    ) -> None:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        self._stop = asyncio.Event()
        params = StdioServerParameters(
            command=self.server["command"],
            args=list(self.server.get("args", [])),
            env=server_environment(self.server.get("env")),
            cwd=self.server.get("cwd"),
        )
        try:
            async with (
                stdio_client(params, errlog=self._stderr) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                initialized.set_result(None)
                tools = await _list_tools(session)
                self._session = session
                self._session_started = True
                listed.set_result(tools)
                await self._stop.wait()
        except BaseException as exc:  # noqa: BLE001 (reported through the futures)
            leaf = _leaf(exc)
            self._ended = _describe(leaf)
            for future in (initialized, listed):
                if not future.done():
                    future.set_exception(
                        leaf if isinstance(leaf, Exception) else MCPError(str(leaf))
                    )
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._session = None
            if self._ended is None:
                self._ended = "it was closed"
            self._done.set()

    def call_tool(
        self, tool: str, arguments: Mapping[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]:
        """Call one tool; the ``CallToolResult`` as MCP JSON. Raises MCPError."""
        session = self._session
        if session is None:
            raise MCPError(
                f"MCP server {self.name!r} is not running ({self._ended or 'not started'})"
                f"{self._stderr_note()}"
            )
        limit = self.timeouts.call if timeout is None else timeout
        future = _LoopThread.get().submit(session.call_tool(tool, dict(arguments)))
        try:
            result = future.result(timeout=limit)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise MCPError(
                f"MCP tool {tool!r} on server {self.name!r} did not answer within {limit:g}s"
            ) from None
        except Exception as exc:
            raise MCPError(
                f"MCP server {self.name!r} failed while calling {tool!r}: {_describe(exc)}"
                f"{self._stderr_note()}"
            ) from None
        data: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return data

    def close(self) -> None:
        """Stop the server (bounded); safe to call twice."""
        task, stop = self._task, self._stop
        if task is not None and not task.done():
            if self._session is not None and stop is not None:
                _LoopThread.get().loop.call_soon_threadsafe(stop.set)
            else:  # still starting: nothing to shut down politely
                task.cancel()
            if not self._done.wait(self.timeouts.close):
                task.cancel()
                self._done.wait(self.timeouts.close)
        self._session = None
        _LIVE.discard(self)
        with contextlib.suppress(OSError):
            self._stderr.close()
        if self._session_started:
            self._remove_stderr()

    def _remove_stderr(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self._stderr_path)

    def _stderr_note(self) -> str:
        tail = self.stderr_tail()
        return f"\nserver stderr (last lines):\n{tail}" if tail else ""


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
        self, connection: MCPServerConnection, mcp_tool: Mapping[str, Any], *, timeout: float
    ) -> None:
        self.connection = connection
        self.mcp_tool = {k: mcp_tool[k] for k in _MCP_TOOL_KEYS if k in mcp_tool}
        self.mcp_tool.setdefault("inputSchema", {"type": "object", "properties": {}})
        self.name = str(mcp_tool["name"])
        self.description = str(mcp_tool.get("description") or "")
        self.annotations = mcp_tool.get("annotations")
        self.timeout = timeout

    @property
    def kind(self) -> str:
        return "MCPToolDefinition"

    def definition(self) -> ToolDefinition:
        data: dict[str, Any] = {
            "description": self.description,
            "action_type": "MCPToolAction",
            "observation_type": "MCPToolObservation",
        }
        if self.annotations is not None:
            data["annotations"] = self.annotations
        data["mcp_tool"] = self.mcp_tool
        data["kind"] = self.kind
        data["title"] = (self.annotations or {}).get("title") or self.name
        return ToolDefinition.model_validate(data)

    def parameters_schema(self) -> dict[str, Any]:
        from trajkit.convert.tools import tool_parameters

        return tool_parameters(self.definition())

    def action_from_arguments(self, arguments: dict[str, Any]) -> MCPToolAction:
        data = {k: v for k, v in arguments.items() if k not in ("security_risk", "summary")}
        return MCPToolAction(data=data)

    def __call__(self, action: Any) -> MCPToolObservation:
        data = action.data if isinstance(action, MCPToolAction) else dict(action)
        try:
            result = self.connection.call_tool(self.name, data, timeout=self.timeout)
        except MCPError as exc:
            return MCPToolObservation(
                tool_name=self.name,
                content=[TextContent(text=f"Error calling MCP tool {self.name}: {exc}")],
                is_error=True,
            )
        return result_to_observation(self.name, result)


class MCPToolset:
    """The servers of one ``mcp_config``, their tools, and the errors of those that failed."""

    def __init__(
        self, config: Mapping[str, Any] | None, *, timeouts: MCPTimeouts | None = None
    ) -> None:
        self.servers = normalize_mcp_config(config)
        self.timeouts = timeouts or MCPTimeouts()
        self.connections: dict[str, MCPServerConnection] = {}
        self.tools: list[MCPTool] = []
        self.errors: list[MCPError] = []

    def start(self) -> MCPToolset:
        """Start every server; a failing server adds to ``errors`` instead of raising."""
        seen: set[str] = set()
        for name, server in self.servers.items():
            connection = MCPServerConnection(name, server, timeouts=self.timeouts)
            try:
                listed = connection.start()
            except MCPError as exc:
                logger.warning("%s", exc)
                connection.close()
                self.errors.append(exc)
                continue
            self.connections[name] = connection
            for mcp_tool in listed:
                tool_name = str(mcp_tool.get("name", ""))
                if not tool_name or tool_name in seen:
                    logger.warning("MCP server %r: skipping duplicate tool %r", name, tool_name)
                    continue
                seen.add(tool_name)
                self.tools.append(MCPTool(connection, mcp_tool, timeout=self.timeouts.call))
        return self

    def close(self) -> None:
        for connection in self.connections.values():
            connection.close()
        self.connections.clear()

    def __enter__(self) -> MCPToolset:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_mcp_tools(
    config: Mapping[str, Any] | None, *, timeouts: MCPTimeouts | None = None
) -> MCPToolset:
    """Start the servers of ``config``; read ``.tools`` and ``.errors``, then ``close()``."""
    return MCPToolset(config, timeouts=timeouts).start()
