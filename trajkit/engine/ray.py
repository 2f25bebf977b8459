"""The Ray engine: the same per-item function, run by Ray Data on a cluster (or a local one).

`RayEngine(address)` joins the cluster at `address` (`host:port` of its head, `ray://host:10001`
for Ray Client, or `auto`), or starts a private local instance when `address` is None (shut
down again by `close()`). An address is first tried with a plain TCP connection (5 s), so a
wrong one is a one-line `EngineError` instead of Ray's long retry loop.

`map(func, items)` takes the items in windows so that a corpus of any size streams: the first
window holds two items per CPU and each next one twice as many, up to `window` (default 256),
so the first results come back soon and a producer that sizes its items from earlier results
(the export's chunk sizer) sees one before the next window is taken. The next window starts
as soon as the current one gives its first result, so the cluster does not idle while a
window's last tasks finish. Each window becomes a small Ray
Dataset of pickled items (`from_items`, split in blocks across the cluster's CPUs),
`map_batches` runs `trajkit.engine.local.guarded(func, item)` on each item inside the Ray
workers, and the results come back pickled, in input order (`preserve_order`). Items and
results must be small (paths, summaries): the work reads its inputs and writes its outputs
itself, on the worker; the export's shards go straight to OUT_DIR, which must therefore be a
folder every worker sees (a shared file system; `trajkit.export.storage` stages a bucket
output in a local folder, so it needs workers on this machine).

A window whose Ray tasks fail even after Ray's retries (a worker killed, a node lost) is
reported through `on_error` item by item, and the next window runs.
"""

from __future__ import annotations

import logging
import os
import pickle
import queue
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from trajkit.engine.local import Failed, guarded
from trajkit.errors import EngineError

__all__ = ["RayEngine", "check_address"]

T = TypeVar("T")
R = TypeVar("R")
P = TypeVar("P")

_GCS_PORT = 6379
_CLIENT_PORT = 10001


def check_address(address: str, *, timeout: float = 5.0) -> None:
    """Raise `EngineError` unless something accepts TCP connections at the cluster address."""
    if address in ("auto", "local"):
        return
    client = address.startswith("ray://")
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    host = parts.hostname
    try:
        port = parts.port or (_CLIENT_PORT if client else _GCS_PORT)
    except ValueError:
        host = None
    if not host:
        raise EngineError(
            f"--address {address!r}: expected HOST:PORT of the Ray head (e.g. 10.0.0.5:6379), "
            "ray://HOST:10001 or auto"
        )
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror.lower() if exc.strerror else (str(exc) or type(exc).__name__)
        raise EngineError(
            f"cannot reach the Ray cluster at {address} ({reason}); start one with "
            "`ray start --head` and pass the address it prints"
        ) from None


class RayEngine:
    """Runs items on Ray (see the module docstring)."""

    name = "ray"

    def __init__(
        self, *, address: str | None = None, workers: int | None = None, window: int = 256
    ) -> None:
        self.address = address
        self.workers = workers
        self.window = max(1, window)
        self._started = False
        self._connect()

    def _connect(self) -> None:
        try:
            import ray
            import ray.data  # noqa: F401
        except ImportError:
            raise EngineError("--engine ray needs Ray: pip install 'trajkit[ray]'") from None
        _quiet()
        os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")  # no C++ retry spam on stderr
        if ray.is_initialized():  # already connected in this process (tests, notebooks)
            return
        kwargs: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": False}
        if self.address is not None:
            check_address(self.address)
            kwargs["address"] = self.address
        else:  # "local": a new private instance, even if `ray start` left an address behind
            kwargs["address"] = "local"
            kwargs["num_cpus"] = self.workers or os.cpu_count() or 1
            kwargs["include_dashboard"] = False
        try:
            ray.init(**kwargs)
        except Exception as exc:  # ConnectionError, RuntimeError, version mismatch, ...
            where = self.address or "a local Ray instance"
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            hint = ""
            if self.address is not None and os.environ.get("RAY_AUTH_MODE") != "token":
                hint = (
                    "; if the cluster uses token authentication (the default of `ray start`), "
                    "set RAY_AUTH_MODE=token and its token (RAY_AUTH_TOKEN or ~/.ray/auth_token)"
                )
            raise EngineError(f"cannot start Ray on {where}: {first}{hint}") from None
        self._started = True

    @property
    def shares_local_disk(self) -> bool:
        """True for a Ray instance started here; a cluster's workers run on other machines."""
        return self.address is None

    forks_workers = False

    def portable(self, paths: Iterable[P]) -> tuple[P, ...]:
        """Local paths made absolute (a Ray worker does not run in this folder); URLs unchanged."""
        return tuple(p.absolute() if isinstance(p, Path) else p for p in paths)

    def cpus(self) -> int:
        import ray

        return max(1, int(ray.cluster_resources().get("CPU", 1)))

    def map(
        self,
        func: Callable[[T], R],
        items: Iterable[T],
        *,
        on_error: Callable[[T, BaseException], R] | None = None,
        chunksize: int = 1,
    ) -> Iterator[R]:
        """`func` over `items` on Ray, results in input order (see the module docstring).

        `chunksize` is ignored: Ray Data splits each window in blocks itself.
        """
        it = iter(items)
        blocks = self.cpus() * 4
        size = min(self.window, blocks // 2)  # two items per CPU: first results soon
        window = list(islice(it, size))
        current = _Window(func, window, blocks) if window else None
        while current is not None:
            following = None
            for n, result in enumerate(current.results(on_error)):
                yield result
                if n == 0:  # the next window overlaps this one, sized after a first result
                    size = min(self.window, size * 2)
                    window = list(islice(it, size))
                    following = _Window(func, window, blocks) if window else None
            current = following

    def close(self) -> None:
        """Shut down the Ray instance this engine started (or disconnect from the cluster)."""
        if self._started:
            import ray

            ray.shutdown()
            self._started = False


class _Window:
    """One window of items as a Ray Dataset, its rows pulled by a thread as they come."""

    def __init__(self, func: Callable[[Any], Any], items: list[Any], blocks: int) -> None:
        import ray.data
        from ray import cloudpickle

        context = ray.data.DataContext.get_current()
        context.execution_options.preserve_order = True
        context.enable_progress_bars = False
        rows = [{"item": cloudpickle.dumps(item)} for item in items]
        source = ray.data.from_items(rows, override_num_blocks=min(len(rows), blocks))
        self.items = items
        self.dataset = source.map_batches(
            _run_batch,  # type: ignore[arg-type]
            fn_kwargs={"func": func},
            batch_size=None,
            batch_format="numpy",
        )
        self.queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        threading.Thread(target=self._pull, daemon=True).start()

    def _pull(self) -> None:
        try:
            for row in self.dataset.iter_rows():
                self.queue.put(row["result"])
        except BaseException as exc:
            self.queue.put(_Stop(exc))
        else:
            self.queue.put(_Stop(None))

    def results(self, on_error: Callable[[Any, BaseException], Any] | None) -> Iterator[Any]:
        done = 0
        while not isinstance(raw := self.queue.get(), _Stop):
            result = pickle.loads(raw)
            item = self.items[done]
            done += 1
            if not isinstance(result, Failed):
                yield result
                continue
            exc = result.exception or RuntimeError(result.error)
            if on_error is None:
                raise exc
            yield on_error(item, exc)
        if raw.error is None:
            return
        if on_error is None or done >= len(self.items):
            raise raw.error
        for item in self.items[done:]:  # the window's tasks failed beyond Ray's retries
            yield on_error(item, _task_failure(raw.error))


class _Stop:
    def __init__(self, error: BaseException | None) -> None:
        self.error = error


def _run_batch(batch: dict[str, Any], func: Callable[[Any], Any]) -> dict[str, Any]:
    """Inside a Ray worker: unpickle each item, run `guarded(func, item)`, pickle the result."""
    import numpy as np
    from ray import cloudpickle

    results = []
    for raw in batch["item"]:
        result = guarded(func, pickle.loads(raw))
        try:
            results.append(cloudpickle.dumps(result))
        except Exception as exc:  # a result that cannot travel back
            results.append(cloudpickle.dumps(Failed(f"result not picklable: {exc}")))
    return {"result": np.array(results, dtype=object)}


def _task_failure(exc: BaseException) -> Exception:
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return RuntimeError(f"Ray task failed: {first[:300]}")


def _quiet() -> None:
    """Ray Data logs each dataset's plan at INFO on stderr; the CLI prints its own progress."""
    for name in ("ray", "ray.data", "ray.data._internal"):
        logging.getLogger(name).setLevel(logging.ERROR)
