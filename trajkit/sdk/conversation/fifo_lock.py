"""``FIFOLock``: a re-entrant lock handed to its waiters in the order they asked.

The conversation's state lock is held by `Conversation.run` for a whole agent step. With a
plain ``threading.RLock`` the run thread, releasing it at the end of a step and taking it
again for the next one at once, usually wins over a thread already waiting (``send_message``
from the user's thread, ``pause()``), so a message sent while the agent works could miss the
run that was processing and land after it had finished. The SDK's state lock is fair for
this reason; this one is too: on release, ownership passes straight to the longest waiter.
"""

from __future__ import annotations

import threading
from collections import deque

__all__ = ["FIFOLock"]


class FIFOLock:
    """Re-entrant, first come first served (``with lock:``, ``acquire``/``release``)."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._waiters: deque[tuple[int, threading.Lock]] = deque()
        self._owner: int | None = None
        self._depth = 0

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        """Take the lock (again, if this thread holds it); False when not taken in time."""
        me = threading.get_ident()
        with self._mutex:
            if self._owner == me:
                self._depth += 1
                return True
            if self._owner is None and not self._waiters:
                self._owner, self._depth = me, 1
                return True
            if not blocking:
                return False
            ticket = threading.Lock()
            ticket.acquire()
            entry = (me, ticket)
            self._waiters.append(entry)
        handed = ticket.acquire(timeout=timeout) if timeout >= 0 else ticket.acquire()
        if handed:
            return True  # release() made this thread the owner before waking it
        with self._mutex:
            if self._owner == me:  # handed over just as the wait timed out
                return True
            self._waiters.remove(entry)
            return False

    def release(self) -> None:
        """Release one level; the last one hands the lock to the first waiter."""
        with self._mutex:
            if self._owner != threading.get_ident():
                raise RuntimeError("cannot release a FIFOLock this thread does not hold")
            self._depth -= 1
            if self._depth:
                return
            if self._waiters:
                owner, ticket = self._waiters.popleft()
                self._owner, self._depth = owner, 1
                ticket.release()
            else:
                self._owner = None

    def owned(self) -> bool:
        """Whether the calling thread holds the lock."""
        return self._owner == threading.get_ident()

    def locked(self) -> bool:
        """Whether any thread holds the lock."""
        return self._owner is not None

    def __enter__(self) -> FIFOLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
