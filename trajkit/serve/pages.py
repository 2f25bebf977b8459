"""Heavy pages of `trajkit serve` (a conversation, a comparison): built a few at a time, kept.

Building the page of a 20,000-event conversation takes seconds and hundreds of MB; a threadpool
of 40 building ten at once took 1.41 GB (issue 30). So:
- at most `MAX_BUILDS` pages are built at once (the rest wait their turn, `BUILD_WAIT_S` at
  most, then get 503 with `Retry-After`: never an unbounded queue of builds in memory);
- a built page is kept (`CACHE_BYTES` in all, least recently used first out), keyed by what it
  shows and the `stat` of its files, so a repeated or concurrent request for the same page is
  served without a second build, and a changed conversation is built again;
- pages are built with a placeholder nonce that is swapped for each response's fresh one, so a
  kept page still carries the nonce its response's CSP names;
- a request for a page that is being built waits for that build (no slot, no second build);
- a page is drawn from events read one at a time (`views.load`'s `lazy`): the report of a
  20,000-event conversation (b_terminal's events repeated) peaks at 118 MB where holding every
  event took 410 MB.
"""

from __future__ import annotations

import asyncio
import os
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response

from trajkit.serve.catalog import Source
from trajkit.store.layout import conversation_parts
from trajkit.views.page import new_nonce

__all__ = ["BUILD_WAIT_S", "CACHE_BYTES", "MAX_BUILDS", "PageBuilds", "signature"]

MAX_BUILDS = 2
"""Pages built at once (this project targets 2-core machines)."""
BUILD_WAIT_S = 60.0
"""How long a request waits for a build slot before it is answered 503."""
CACHE_BYTES = 64 * 1024 * 1024
"""Built pages kept, in all; a page larger than a quarter of it is not kept."""


class PageBuilds:
    """The build slots and the kept pages of one server (see the module docstring)."""

    def __init__(self) -> None:
        self._slots: asyncio.Semaphore | None = None
        self._kept: OrderedDict[Hashable, str] = OrderedDict()
        self._building: dict[Hashable, asyncio.Future[str]] = {}
        self._bytes = 0
        self._placeholder = new_nonce()
        self.builds = 0
        """Pages built so far (the rest were served from what was kept)."""

    async def page(
        self, request: Request, key: Hashable | None, build: Callable[[str], str]
    ) -> Response:
        """The page `build(nonce)` makes for `key`, built once and kept (see the module)."""
        nonce = request.state.nonce
        found = self._kept.get(key)
        building = self._building.get(key) if key is not None else None
        if found is not None:
            self._kept.move_to_end(key)
        elif building is not None:  # the same page is being built: wait for it, take no slot
            found = await asyncio.shield(building)
        else:
            if self._slots is None:  # made on the server's own event loop
                self._slots = asyncio.Semaphore(MAX_BUILDS)
            try:
                await asyncio.wait_for(self._slots.acquire(), BUILD_WAIT_S)
            except TimeoutError:
                return PlainTextResponse(
                    f"busy: {MAX_BUILDS} pages are being built; try again in a minute",
                    status_code=503,
                    headers={"Retry-After": "30"},
                )
            try:
                found = await self._build(key, build)
            finally:
                self._slots.release()
        return HTMLResponse(found.replace(self._placeholder, nonce))

    async def _build(self, key: Hashable | None, build: Callable[[str], str]) -> str:
        """Build the page once; requests for the same `key` meanwhile wait for this build."""
        found = self._kept.get(key)  # built while this request waited for a slot
        if found is not None:
            return found
        done: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        if key is not None:
            self._building[key] = done
        try:
            found = await run_in_threadpool(build, self._placeholder)
        except BaseException as exc:
            done.set_exception(exc)
            done.exception()  # retrieved: no warning when nobody waited
            raise
        finally:
            self._building.pop(key, None)
        done.set_result(found)
        self.builds += 1
        self._keep(key, found)
        return found

    def _keep(self, key: Hashable | None, page: str) -> None:
        size = len(page)
        if key is None or size > CACHE_BYTES // 4:
            return
        self._kept[key] = page
        self._bytes += size
        while self._bytes > CACHE_BYTES:
            _, old = self._kept.popitem(last=False)
            self._bytes -= len(old)


def signature(source: Source) -> tuple[object, ...] | None:
    """What changes when the conversation behind `source` changes: the `stat` of its files
    (None for storage URLs, whose pages are not kept).
    """
    if "://" in source.path:
        return None
    path = Path(source.path)
    parts: list[object] = [source.path, source.container, source.line]
    for target in (path, *conversation_parts(path)):
        try:
            st = os.stat(target)
        except OSError:
            continue
        parts.append((st.st_mtime_ns, st.st_size, st.st_ino))
    return tuple(parts)
