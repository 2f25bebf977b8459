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

What differs between engines is theirs to answer, so callers never ask which engine they hold:
`portable(paths)` makes paths usable by the workers (Ray's do not run in this folder: local
paths become absolute), `shares_local_disk` says whether workers can write into this machine's
temporary folders, and `forks_workers` whether workers start as copies of this process (so
caches built here before `map` are inherited).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Protocol, TypeVar

from trajkit.engine.local import LocalEngine
from trajkit.errors import EngineError

__all__ = [
    "ENGINES",
    "Engine",
    "EngineError",
    "LocalEngine",
    "make_engine",
    "open_engine",
]

T = TypeVar("T")
R = TypeVar("R")
P = TypeVar("P")

ENGINES = ("local", "ray")
"""Names accepted by `--engine`."""


class Engine(Protocol):
    """Maps a function over items, results in input order (see the module docstring)."""

    name: str

    @property
    def shares_local_disk(self) -> bool:
        """True when every worker sees this machine's files (its temporary folders too)."""
        ...

    @property
    def forks_workers(self) -> bool:
        """True when workers are forked from this process (they inherit what it built)."""
        ...

    def portable(self, paths: Iterable[P]) -> tuple[P, ...]:
        """`paths` as the workers must see them (absolute where they run elsewhere)."""
        ...

    def map(
        self,
        func: Callable[[T], R],
        items: Iterable[T],
        *,
        on_error: Callable[[T, BaseException], R] | None = None,
        chunksize: int = 1,
    ) -> Iterator[R]:
        """`func` over `items` in input order; `on_error` makes results for failed items.

        `chunksize` is a hint: items handed to a worker at once (for many tiny items).
        """
        ...

    def close(self) -> None:
        """Release what the engine started (a local Ray instance)."""
        ...


def make_engine(
    name: str = "local", *, workers: int | None = None, address: str | None = None
) -> Engine:
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
) -> Iterator[Engine]:
    """`make_engine(...)`, closed on exit (a Ray instance started for the run is shut down)."""
    engine = make_engine(name, workers=workers, address=address)
    try:
        yield engine
    finally:
        engine.close()
