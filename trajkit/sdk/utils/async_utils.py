"""``AsyncCallbackWrapper``: use a coroutine as a conversation callback.

`Conversation.run` is synchronous and calls its callbacks on the thread that runs it (in the
SDK's async pattern, an executor thread of the event loop). The wrapper hands each event to
the coroutine on *the loop's* thread with `asyncio.run_coroutine_threadsafe`, so async code
(websockets, queues) sees events without blocking the run. Events that arrive while the loop
is not running are dropped, as nothing could run them. `wait_for_pending` lets a script wait
until every scheduled callback has finished.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from concurrent.futures import wait as wait_futures
from typing import Any

from trajkit.events import Event

__all__ = ["AsyncCallbackWrapper", "AsyncConversationCallback"]

AsyncConversationCallback = Callable[[Event], Coroutine[Any, Any, None]]


class AsyncCallbackWrapper:
    """A synchronous callback that schedules ``async_callback(event)`` on ``loop``."""

    def __init__(
        self, async_callback: AsyncConversationCallback, loop: asyncio.AbstractEventLoop
    ) -> None:
        self.async_callback = async_callback
        self.loop = loop
        self._futures: list[Future[None]] = []
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        if not self.loop.is_running():
            return
        future = asyncio.run_coroutine_threadsafe(self.async_callback(event), self.loop)
        with self._lock:
            self._futures = [f for f in self._futures if not f.done()]
            self._futures.append(future)

    def wait_for_pending(self, timeout: float | None = None) -> None:
        """Block until the scheduled callbacks are done (their errors are not re-raised).

        Raises:
            TimeoutError: some callback still runs after ``timeout`` seconds.
        """
        with self._lock:
            futures = list(self._futures)
        _, running = wait_futures(futures, timeout=timeout)
        if running:
            raise TimeoutError(f"{len(running)} callbacks still running after {timeout}s")
