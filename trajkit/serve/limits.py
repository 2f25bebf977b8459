"""Connection limits of `trajkit serve`: no connection holds the server without a request.

uvicorn closes a kept-alive connection that stays idle after a response (`timeout_keep_alive`),
but never one that opens and sends nothing, or half a request: about 1,000 such connections
used up a 1024 file limit and the server stopped answering (issue 30). So:
- `REQUEST_TIMEOUT_S`: a connection that has not finished sending a request's headers this long
  after it opened, or after its last response, is closed (a request being answered, such as a
  live stream, is never cut);
- `IDLE_TIMEOUT_S`: uvicorn's keep-alive timeout, for the common idle case;
- `MAX_CONNECTIONS`: above this many open connections (or running requests), a request gets 503
  at once instead of queueing.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["IDLE_TIMEOUT_S", "MAX_CONNECTIONS", "REQUEST_TIMEOUT_S", "uvicorn_options"]

REQUEST_TIMEOUT_S = 15.0
"""Time a connection has to send a complete request head (from its start or its last answer)."""
IDLE_TIMEOUT_S = 5
"""Time a kept-alive connection may stay silent after a response."""
MAX_CONNECTIONS = 256
"""Open connections (or running requests) beyond which requests are answered 503."""


def uvicorn_options() -> dict[str, Any]:
    """Keyword arguments for `uvicorn.Config` that apply the limits above."""
    return {
        "http": TimedH11Protocol,
        "timeout_keep_alive": IDLE_TIMEOUT_S,
        "limit_concurrency": MAX_CONNECTIONS,
    }


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection that sends no complete request in time."""

    _waiting_since: float | None = None
    _timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._waiting_since = self.loop.time()
        self._arm(REQUEST_TIMEOUT_S)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before:  # a request's head arrived: it is being answered
            self._waiting_since = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._waiting_since = self.loop.time()

    def _arm(self, delay: float) -> None:
        self._timer = self.loop.call_later(delay, self._check)

    def _check(self) -> None:
        if self.transport.is_closing():
            return
        if self._waiting_since is None:  # answering: look again later
            self._arm(REQUEST_TIMEOUT_S)
            return
        left = self._waiting_since + REQUEST_TIMEOUT_S - self.loop.time()
        if left > 0:
            self._arm(left)
        else:
            self.transport.close()
