"""The local engine: this machine's worker processes (`trajkit.corpus.map_conversations`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

__all__ = ["Failed", "LocalEngine", "guarded"]

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Failed:
    """`func` raised on an item in a worker: the exception, as text that survives pickling."""

    error: str
    exception: BaseException | None = None


def guarded(func: Callable[[T], R], item: T) -> R | Failed:
    """`func(item)`, or `Failed` when it raises (so one item cannot end the run)."""
    try:
        return func(item)
    except Exception as exc:
        try:
            return Failed(_describe(exc), exc)
        except Exception:  # pragma: no cover - an exception that cannot be kept
            return Failed(_describe(exc))


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class LocalEngine:
    """Worker processes on this machine (default: up to 2)."""

    name = "local"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers

    def map(
        self,
        func: Callable[[T], R],
        items: Iterable[T],
        *,
        on_error: Callable[[T, BaseException], R] | None = None,
    ) -> Iterator[R]:
        """`trajkit.corpus.map_conversations`, with `on_error` for items whose call raised."""
        from trajkit.corpus import DEFAULT_WORKERS, map_conversations

        workers = self.workers or DEFAULT_WORKERS
        if on_error is None:
            yield from map_conversations(func, items, workers=workers)
            return
        kept: deque[Any] = deque()

        def remember(stream: Iterable[T]) -> Iterator[T]:
            for item in stream:
                kept.append(item)
                yield item

        results = map_conversations(partial(guarded, func), remember(items), workers=workers)
        for result in results:
            item = kept.popleft()
            if isinstance(result, Failed):
                yield on_error(item, result.exception or RuntimeError(result.error))
            else:
                yield result

    def close(self) -> None:
        return None
