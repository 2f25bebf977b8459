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
P = TypeVar("P")


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
    """Worker processes on this machine (default: `trajkit.corpus.DEFAULT_WORKERS`, 2)."""

    name = "local"
    shares_local_disk = True

    def __init__(self, workers: int | None = None) -> None:
        from trajkit.corpus import DEFAULT_WORKERS

        self.workers: int = workers or DEFAULT_WORKERS

    def __repr__(self) -> str:
        return f"LocalEngine({self.workers})"

    @property
    def forks_workers(self) -> bool:
        """True with more than one worker (one runs everything in this process)."""
        return self.workers > 1

    def portable(self, paths: Iterable[P]) -> tuple[P, ...]:
        """`paths` unchanged: the workers run in this folder."""
        return tuple(paths)

    def map(
        self,
        func: Callable[[T], R],
        items: Iterable[T],
        *,
        on_error: Callable[[T, BaseException], R] | None = None,
        chunksize: int = 1,
    ) -> Iterator[R]:
        """`trajkit.corpus.map_conversations`, with `on_error` for items whose call raised."""
        from trajkit.corpus import map_conversations

        workers = self.workers
        if on_error is None:
            yield from map_conversations(func, items, workers=workers, chunksize=chunksize)
            return
        kept: deque[Any] = deque()

        def remember(stream: Iterable[T]) -> Iterator[T]:
            for item in stream:
                kept.append(item)
                yield item

        results = map_conversations(
            partial(guarded, func), remember(items), workers=workers, chunksize=chunksize
        )
        for result in results:
            item = kept.popleft()
            if isinstance(result, Failed):
                yield on_error(item, result.exception or RuntimeError(result.error))
            else:
                yield result

    def close(self) -> None:
        """Nothing to release: each `map` closes its own pool."""
        return None
