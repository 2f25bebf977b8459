"""Where per-conversation work runs: this machine's process pool, or a Ray cluster.

An engine maps one pure, picklable function over a stream of items and yields the results in
input order: `engine.map(func, items)`. Corpus commands (`export`, `validate`) build their work
function once and hand it to whichever engine the user chose, so the local pool and Ray run
the very same function and their outputs are identical.

- `LocalEngine(workers)`: `trajkit.corpus.map_conversations` (worker processes, bounded window).
- `RayEngine(address)`: Ray Data over windows of items (`trajkit.engine.ray`); `ray` is the
  optional extra `pip install 'trajkit[ray]'` and is imported only when this engine is used.

`map(func, items, on_error=...)`: when `func` raises on one item (or the worker running it dies),
`on_error(item, exc)` makes that item's result in this process instead of ending the run, so
one bad conversation is reported and the rest completes. Without it the error propagates.
Engines that cannot start (Ray missing, a cluster address that does not answer) raise
`EngineError`, a `UsageError` (exit 2), before any work.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

from trajkit.engine.local import LocalEngine
from trajkit.errors import UsageError

__all__ = [
    "ENGINES",
    "Engine",
    "EngineError",
    "LocalEngine",
    "make_engine",
    "open_engine",
    "portable_paths",
]

T = TypeVar("T")
R = TypeVar("R")

ENGINES = ("local", "ray")
"""Names accepted by `--engine`."""


class EngineError(UsageError):
    """The chosen engine cannot run here (package missing, cluster unreachable)."""


class Engine(Protocol):
    """Maps a function over items, results in input order (see the module docstring)."""

    name: str

    def map(
        self,
        func: Callable[[T], R],
        items: Iterable[T],
        *,
        on_error: Callable[[T, BaseException], R] | None = None,
    ) -> Iterator[R]:
        """`func` over `items` in input order; `on_error` makes results for failed items."""
        ...

    def close(self) -> None:
        """Release what the engine started (a local Ray instance)."""
        ...


def make_engine(
    name: str = "local", *, workers: int | None = None, address: str | None = None
) -> Any:
    """The engine called `name`; `address` is a Ray cluster (None starts a local one)."""
    if name == "local":
        if address is not None:
            raise EngineError("--address needs --engine ray")
        return LocalEngine(workers)
    if name == "ray":
        from trajkit.engine.ray import RayEngine

        return RayEngine(address=address, workers=workers)
    raise EngineError(f"unknown engine {name!r}; expected one of {', '.join(ENGINES)}")


@contextmanager
def open_engine(
    name: str = "local", *, workers: int | None = None, address: str | None = None
) -> Iterator[Any]:
    """`make_engine(...)`, closed on exit (a Ray instance started for the run is shut down)."""
    engine = make_engine(name, workers=workers, address=address)
    try:
        yield engine
    finally:
        engine.close()


def portable_paths(paths: Iterable[Any]) -> tuple[Any, ...]:
    """Local paths made absolute (a Ray worker does not run in this folder); URLs unchanged."""
    from pathlib import Path

    return tuple(p.absolute() if isinstance(p, Path) else p for p in paths)
