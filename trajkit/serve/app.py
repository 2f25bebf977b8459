"""The `trajkit serve` web application (Starlette, run by uvicorn).

Routes (nothing else is served; there is no route that takes a file path):
- `/`: the index page; `/api/rows`: one page of rows as JSON (`Catalog.query`).
- `/c/<key>`: a conversation's report; `/api/live/<key>`: its new entries, server-sent events.
- `/compare?a=<key>&b=<key>`: two conversations side by side.
A key is an opaque digest the catalog gave; an unknown key (`..`, `%2e%2e`, `/etc/passwd`)
is a 404, and a known one is served only while its real path is under a PATH.

Security (`SecurityMiddleware`): every response gets a fresh CSP nonce and a strict policy
(no script or style without it, no network but the page's own origin), `nosniff`,
`no-referrer`, `DENY` framing and `no-store`. Bound to loopback, only `Host` headers naming
loopback are accepted (DNS rebinding); bound elsewhere, an access token is required: given
once as `?token=`, then kept in an HttpOnly, SameSite=Strict cookie.
"""

from __future__ import annotations

import hmac
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trajkit.errors import TrajkitError
from trajkit.serve.catalog import Catalog, Source
from trajkit.serve.pages import PageBuilds, signature
from trajkit.store.layout import conversation_parts
from trajkit.views.index_page import index_to_html
from trajkit.views.load import LoadedConversation
from trajkit.views.page import content_security_policy, new_nonce

__all__ = ["create_app", "load_source"]

_COOKIE = "trajkit_token"
_MAX_AT = 1000
_MAX_NUMBER = 10**9
"""Largest `page`/`size` taken from a query (a larger one is clamped to it)."""


def load_source(catalog: Catalog, source: Source, *, lazy: bool = False) -> LoadedConversation:
    """Load what a catalog key names, for a page (a folder, or a `file#key` address); `lazy`:
    the events are read as the page is drawn (`views.load`), never all held at once.
    """
    from trajkit.views.load import load_conversation

    if "://" not in source.path:  # s3://…: no local links to check
        _check_inside(catalog, Path(source.path))
    return load_conversation(source.path, masker=catalog.masker, lazy=lazy)


def entries_at(catalog: Catalog, source: Source, at: list[int]) -> list[dict[str, Any]]:
    """Full entries (as the report's script reads them) of the events at positions `at`."""
    from trajkit.views.entries import iter_entries, usage_by_response
    from trajkit.views.html import entry_data

    if not at:
        return []
    loaded = load_source(catalog, source, lazy=True)  # only the events at `at` are parsed
    items = loaded.iter_items(set(at))
    return [entry_data(e) for e in iter_entries(items, usage_by_response(loaded.state))]


def _check_inside(catalog: Catalog, folder: Path) -> None:
    for part in conversation_parts(folder):
        if part.exists() and not catalog.inside(str(part)):
            raise TrajkitError(f"{part}: leads outside the served folders")


def create_app(catalog: Catalog, *, token: str | None = None, loopback: bool = True) -> ASGIApp:
    """The application over `catalog` (see the module docstring)."""
    pages = PageBuilds()
    live_watchers: list[Any] = []  # one Watchers, made with the first stream (a heavy import)

    async def index(request: Request) -> Response:
        config = {
            "mode": "server",
            "api": "/api/rows",
            "page": "/c/",
            "compare": "/compare",
            "page_size": 50,
            "refresh": 2000,
        }
        return HTMLResponse(index_to_html(config, nonce=request.state.nonce))

    async def rows(request: Request) -> Response:
        p = request.query_params

        def number(name: str, default: int) -> int:
            try:  # clamped: SQLite's OFFSET is 64-bit (`page=<30 digits>` overflowed it)
                return max(0, min(int(p.get(name, default)), _MAX_NUMBER))
            except ValueError:
                return default

        result = await run_in_threadpool(
            catalog.query,
            sort=p.get("sort", "first_time"),
            order=p.get("order", "desc"),
            page=number("page", 0),
            size=number("size", 50),
            status=p.get("status", ""),
            model=p.get("model", ""),
            tool=p.get("tool", ""),
            since=p.get("since", ""),
            until=p.get("until", ""),
            errors=p.get("errors", "") in ("1", "true"),
            q=p.get("q", ""),
        )
        return JSONResponse(result)

    def source_or_404(key: str) -> Source | Response:
        source = catalog.source(key)
        if source is None:
            return PlainTextResponse("no such conversation", status_code=404)
        return source

    async def conversation(request: Request) -> Response:
        key = request.path_params["key"]
        source = source_or_404(key)
        if isinstance(source, Response):
            return source

        def build(nonce: str) -> str:
            from trajkit.views.html import conversation_to_html

            loaded = load_source(catalog, source, lazy=True)
            local = source.container is None and "://" not in source.path
            return conversation_to_html(
                loaded,
                nonce=nonce,
                back="/",
                live=f"/api/live/{key}" if local else None,
                remote=f"/api/c/{key}/entries",
            )

        try:
            sig = signature(source)
            return await pages.page(request, None if sig is None else ("c", key, sig), build)
        except TrajkitError as exc:
            return PlainTextResponse(f"cannot show this conversation: {exc}", status_code=404)

    async def entries(request: Request) -> Response:
        source = source_or_404(request.path_params["key"])
        if isinstance(source, Response):
            return source
        try:
            at = sorted({int(x) for x in request.query_params.get("at", "").split(",") if x})
        except ValueError:
            return PlainTextResponse("at: expected positions like 3,4,5", status_code=400)
        if len(at) > _MAX_AT:
            return PlainTextResponse(f"at: at most {_MAX_AT} positions", status_code=400)
        try:
            found = await run_in_threadpool(entries_at, catalog, source, at)
        except TrajkitError as exc:
            return PlainTextResponse(f"cannot read this conversation: {exc}", status_code=404)
        return JSONResponse(found)

    async def live(request: Request) -> Response:
        from trajkit.serve.live import Tail, Watchers, follow

        source = source_or_404(request.path_params["key"])
        if isinstance(source, Response):
            return source
        if source.container is not None or "://" in source.path:
            return PlainTextResponse("only local V1 folders are followed live", status_code=404)
        try:
            after = int(request.headers.get("last-event-id") or request.query_params["after"])
        except (KeyError, ValueError):
            after = -1
        after = max(-1, after)  # `Last-Event-ID: -1000` would index the file list from its end
        tail = Tail(Path(source.path), after, masker=catalog.masker)
        if not live_watchers:
            live_watchers.append(Watchers())
        stream = follow(live_watchers[0], tail, request.is_disconnected)
        return StreamingResponse(
            stream, media_type="text/event-stream", headers={"X-Accel-Buffering": "no"}
        )

    async def compare(request: Request) -> Response:
        from trajkit.serve.compare import compare_to_html

        keys = request.query_params.get("a", ""), request.query_params.get("b", "")
        found = [source_or_404(k) for k in keys]
        for s in found:
            if isinstance(s, Response):
                return s
        sources: list[Source] = found  # type: ignore[assignment]

        def build(nonce: str) -> str:
            a = load_source(catalog, sources[0], lazy=True)
            b = a if sources[1] == sources[0] else load_source(catalog, sources[1], lazy=True)
            links = (f"/c/{keys[0]}", f"/c/{keys[1]}")
            return compare_to_html(a, b, links=links, nonce=nonce)

        sigs = [signature(s) for s in sources]
        kept = None if None in sigs else ("compare", keys, *sigs)
        try:
            return await pages.page(request, kept, build)
        except TrajkitError as exc:
            return PlainTextResponse(f"cannot compare: {exc}", status_code=404)

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api/rows", rows),
            Route("/c/{key}", conversation),
            Route("/api/live/{key}", live),
            Route("/api/c/{key}/entries", entries),
            Route("/compare", compare),
        ]
    )
    return SecurityMiddleware(app, token=token, loopback=loopback)


class SecurityMiddleware:
    """Headers, Host check and access token for every request (see the module docstring)."""

    def __init__(self, app: ASGIApp, *, token: str | None, loopback: bool) -> None:
        self.app = app
        self.token = token
        self.loopback = loopback

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refused = self._refuse(request)
        if refused is not None:
            await refused(scope, receive, send)
            return
        nonce = new_nonce()
        scope.setdefault("state", {})["nonce"] = nonce
        headers = [
            (b"content-security-policy", content_security_policy(nonce, connect=True).encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
            (b"x-frame-options", b"DENY"),
            (b"cache-control", b"no-store"),
            (b"cross-origin-resource-policy", b"same-origin"),
        ]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *headers]}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _refuse(self, request: Request) -> Response | None:
        if self.loopback and self.token is None:
            if _host_name(request.headers.get("host") or "") not in _LOOPBACK_NAMES:
                return PlainTextResponse("unexpected Host header", status_code=403)
            return None
        if self.token is None:
            return None
        given = request.query_params.get("token")
        if given is not None and hmac.compare_digest(given, self.token):
            rest = urlencode([(k, v) for k, v in parse_qsl(request.url.query) if k != "token"])
            # One leading slash: `//evil.example/x` would be a protocol-relative URL, a
            # redirect off this site (a backslash is already %5C in `url.path`, never `/\`).
            target = "/" + request.url.path.lstrip("/") + (f"?{rest}" if rest else "")
            response = RedirectResponse(target, status_code=303)
            response.set_cookie(_COOKIE, self.token, httponly=True, samesite="strict")
            return response
        cookie = request.cookies.get(_COOKIE, "")
        if cookie and hmac.compare_digest(cookie, self.token):
            return None
        return PlainTextResponse(
            "access token required: open the URL trajkit serve printed", status_code=403
        )


_LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
_HOST_RE = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-]+)(?::([0-9]{1,5}))?")


def _host_name(header: str) -> str | None:
    """The host of a `Host` header (`name[:port]`, RFC 9110), lower-cased; None when the header
    is not one (`127.0.0.1:80@evil`, `localhost:`, `a:b:c`): parsed, not split.
    """
    found = _HOST_RE.fullmatch(header)
    return found.group(1).lower() if found else None
