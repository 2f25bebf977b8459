"""MCP server configuration: the accepted ``mcp_config`` forms, the environment a stdio server
gets, and how its secrets are written to disk.

- `MCPServer`: one server as a typed model (the SDK's ``openhands.sdk.mcp.MCPServer``); a map of
  them is accepted wherever a plain map is, and is stored as the plain map.
- `normalize_mcp_config`: ``{"mcpServers": {...}}`` (the reference document's form) or the plain
  ``{name: server}`` map the SDK persists, into the plain map; each server needs a ``command``
  or a ``url``.
- `server_environment`: the ``mcp`` package's minimal set plus what launchers need to reach
  their registry, never a secret-looking variable of the parent; then the server's own ``env``.
- `protect_mcp_config` / `unprotect_mcp_config`: secret-looking ``env``/``headers`` values
  encrypted with the conversation's cipher, else masked (and dropped when read back).
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_serializer, model_validator

from trajkit.errors import TrajkitError

__all__ = [
    "MCPError",
    "MCPServer",
    "auth_headers",
    "normalize_mcp_config",
    "protect_mcp_config",
    "server_environment",
    "unprotect_mcp_config",
]


class MCPError(TrajkitError):
    """An MCP server could not be configured, started, listed or called."""


class MCPServer(BaseModel):
    """One MCP server: a program to run over stdio (``command``, ``args``, ``env``, ``cwd``) or
    a remote ``url`` (streamable HTTP, or SSE: ``transport``, else a URL ending in ``/sse``),
    sent ``headers`` and ``auth`` (a bearer token) with each request; ``enabled=False`` keeps a server
    configured but offers none of its tools. ``env``/``headers`` values are secrets: masked in
    ``repr``, given in clear by `as_config` (the agent encrypts or masks them on disk).
    """

    model_config = ConfigDict(extra="forbid")

    url: str | None = None
    transport: Literal["stdio", "http", "streamable-http", "sse"] | None = None
    command: str | None = None
    args: list[str] | None = None
    env: dict[str, SecretStr] | None = None
    cwd: str | None = None
    description: str | None = None
    icon: str | None = None
    timeout: float | None = None
    sse_read_timeout: float | None = None
    keep_alive: bool | None = None
    headers: dict[str, SecretStr] | None = None
    auth: str | dict[str, Any] | None = Field(default=None, repr=False)
    """A bearer token, or a credential ``{"strategy": "bearer"|"api_key"|"basic"|"header", ...}``
    (`auth_headers`); secret, so kept out of ``repr``."""
    enabled: bool = True

    @model_validator(mode="after")
    def _command_or_url(self) -> MCPServer:
        remote = self.transport not in (None, "stdio")
        if not remote and self.command is None and self.url is None:
            raise ValueError("an MCP server needs 'command' (a program to run) or 'url'")
        if remote and not self.url:
            raise ValueError(f"a {self.transport!r} MCP server needs 'url'")
        return self

    @field_serializer("env", "headers")
    def _plain(self, v: dict[str, SecretStr] | None) -> dict[str, str] | None:
        return None if v is None else {k: s.get_secret_value() for k, s in v.items()}

    def as_config(self) -> dict[str, Any]:
        """The plain map the agent stores: the fields that are set, secrets in clear (the SDK
        persists a server this way, ``enabled`` included).
        """
        return self.model_dump(mode="json", exclude_none=True)


def normalize_mcp_config(config: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """The plain ``{name: server}`` map from either accepted form; raises MCPError if malformed.

    A server is an `MCPServer` or a map with a ``command`` (str) or a ``url``; ``args`` must be
    a list of strings and ``env`` a map of strings. Other keys are kept as given.
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
        if isinstance(server, MCPServer):
            server = server.as_config()
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


def auth_headers(auth: str | Mapping[str, Any] | None) -> dict[str, str]:
    """The HTTP headers a remote server's ``auth`` stands for, with the SDK's strategies: a
    string or ``bearer`` is ``Authorization: Bearer <value>``; ``api_key`` is that header
    (``header_name``) or a bearer token; ``basic`` is HTTP basic; ``header`` gives ``headers``.
    OAuth sign-in is not supported (MCPError).
    """
    if not auth:
        return {}
    if isinstance(auth, str):
        if auth == "oauth":
            raise MCPError("MCP server auth 'oauth': OAuth sign-in is not supported")
        return {"Authorization": f"Bearer {auth}"}
    strategy, value = auth.get("strategy"), auth.get("value")
    if strategy == "bearer" or (strategy == "api_key" and not auth.get("header_name")):
        return {"Authorization": f"Bearer {value}"}
    if strategy == "api_key":
        return {str(auth["header_name"]): str(value)}
    if strategy == "basic":
        pair = f"{auth.get('username', '')}:{auth.get('password', '')}".encode()
        return {"Authorization": "Basic " + base64.b64encode(pair).decode()}
    if strategy == "header" and isinstance(auth.get("headers"), Mapping):
        return {str(k): str(v) for k, v in auth["headers"].items()}
    raise MCPError(f"MCP server auth strategy {strategy!r} is not supported")


_SECRET_MAPS = ("env", "headers")
_AUTH_CLEAR_KEYS = frozenset({"strategy", "header_name", "username", "type"})
"""Keys of an ``auth`` credential that are not secret; every other string in it is."""

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
    name looks secret; then the server's own ``env`` on top.
    """
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
    (``*_TOKEN``, ``*KEY*``, ``Authorization``, ...) and the secrets of ``auth`` encrypted with
    ``cipher``, else masked.
    """
    from trajkit.sdk.secret.secrets import dump_secret

    return _map_secret_values(config, lambda value: dump_secret(value, cipher))


def unprotect_mcp_config(config: Mapping[str, Any], cipher: Any) -> dict[str, Any]:
    """The config read back: secret values decrypted with ``cipher``; masked ones dropped."""
    from trajkit.sdk.secret.secrets import load_secret

    return _map_secret_values(config, lambda value: load_secret(value, cipher))


def _map_secret_values(
    config: Mapping[str, Any], change: Callable[[str], str | None]
) -> dict[str, Any]:
    """A copy of ``config`` with ``change`` applied to each secret-named ``env``/``headers``
    value and each secret of ``auth`` (a value it turns into None is dropped).
    """
    from trajkit.redact import is_secret_key

    out: dict[str, Any] = {}
    for name, server in config.items():
        server = dict(server) if isinstance(server, Mapping) else server
        for field in _SECRET_MAPS:
            values = server.get(field) if isinstance(server, dict) else None
            if isinstance(values, Mapping):
                kept: dict[str, Any] = {}
                for k, v in values.items():
                    if is_secret_key(str(k)) and isinstance(v, str):
                        v = change(v)
                        if v is None:
                            continue
                    kept[k] = v
                server[field] = kept
        if isinstance(server, dict) and server.get("auth"):
            server["auth"] = _map_auth(server["auth"], change)
            if server["auth"] is None:
                del server["auth"]
        out[name] = server
    return out


def _map_auth(auth: Any, change: Callable[[str], str | None]) -> Any:
    if isinstance(auth, str):
        return auth if auth == "oauth" else change(auth)
    if not isinstance(auth, Mapping):
        return auth
    out: dict[str, Any] = {}
    for key, value in auth.items():
        if isinstance(value, Mapping):
            value = {k: change(v) if isinstance(v, str) else v for k, v in value.items()}
        elif isinstance(value, str) and key not in _AUTH_CLEAR_KEYS:
            value = change(value)
        out[key] = value
    return out
