"""Many conversations: map work over them in bounded memory.

What the user's PATHs hold is the input registry's answer (`trajkit.shapes.resolve_inputs`).
`map_conversations(func, items)` applies `func` to each item on worker processes and yields
the results in input order. Memory does not grow with the corpus: items are pulled from the
input iterator only as workers free up (at most `2 * workers` chunks in flight), and each
result is handed to the caller before more work is queued. `func` should return something
small (a report, a line of output), not the parsed conversation. Workers start with `fork`
when this process has a single thread (cheapest: the event model is already imported) and
with `forkserver` otherwise, since forking a threaded process can deadlock. With one worker
or fewer than two items, everything runs in this process.

Workers end with their parent, even one killed by SIGKILL (no handler runs then): on Linux the
kernel sends each worker SIGTERM when its parent dies (`prctl(PR_SET_PDEATHSIG)`), and on every
platform a thread in each worker checks twice a second that the parent is still there (the
fallback, and the cover for the moment before `prctl`). A worker whose parent is gone honours
SIGTERM and SIGINT at once; while the parent lives, SIGINT is the parent's to act on and SIGTERM
only interrupts an item (see `_stop_requested`).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from functools import partial
from itertools import chain, islice
from typing import TypeVar

__all__ = ["DEFAULT_WORKERS", "map_conversations"]

T = TypeVar("T")
R = TypeVar("R")

DEFAULT_WORKERS = 2
"""Worker processes used unless told otherwise (this project targets 2-core machines)."""


def map_conversations(
    func: Callable[[T], R],
    items: Iterable[T],
    *,
    workers: int = DEFAULT_WORKERS,
    chunksize: int = 1,
) -> Iterator[R]:
    """`map(func, items)` on up to `workers` processes; results in input order, bounded memory.

    Args:
        func: a picklable (module-level) function; exceptions it raises reach the caller.
        items: usually `resolve_inputs(...)`'s conversations; consumed lazily.
        workers: processes to use; 1 runs everything in this process.
        chunksize: items sent to a worker at once (raise it for many tiny conversations).
    """
    it = iter(items)
    head = list(islice(it, 2))
    workers = max(1, min(workers, os.cpu_count() or 1))
    if workers == 1 or len(head) < 2:
        yield from map(func, chain(head, it))
        return
    chunks = _chunked(chain(head, it), max(1, chunksize))
    apply = partial(_apply_chunk, func)
    others = set(multiprocessing.active_children())
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_context(),
        initializer=_start_worker,
        initargs=(dict(os.environ), os.getpid()),
    ) as pool:
        pending: deque[Future[list[R]]] = deque()
        try:
            for chunk in chunks:
                pending.append(pool.submit(apply, chunk))
                if len(pending) >= 2 * workers:
                    yield from pending.popleft().result()
            while pending:
                yield from pending.popleft().result()
        except BaseException:
            # Ctrl-C, the caller stopped early, or a worker failed: drop queued work and stop
            # the workers now rather than letting each finish its item (a big one takes many
            # seconds). Their half-written output is temp files, which the callers clean up.
            # SIGTERM only interrupts a worker inside an item (see `_stop_requested`): killed
            # while sending a result, it would leave half a message in the result pipe, and the
            # pool's reader thread would wait for the rest for ever (the process then hangs at
            # exit, seen under load with a full disk).
            for future in pending:
                future.cancel()
            for child in set(multiprocessing.active_children()) - others:
                child.terminate()
            pool.shutdown(wait=True, cancel_futures=True)
            raise


class WorkerStopped(Exception):
    """Raised inside a worker's item when the parent stops the pool (never reaches callers)."""


_in_item = False
"""True in a worker while it runs an item: only then may a stop request interrupt it."""
_stop_pending = False
_PARENT_WATCH_S = 0.5
"""How often a worker checks that its parent is still there (the fallback to PR_SET_PDEATHSIG)."""
_parents: tuple[int, int] = (0, 0)
"""In a worker: (the pid that started the pool, this worker's parent pid at its start)."""


def _start_worker(env: dict[str, str], owner: int) -> None:
    """The pool's initializer: environment, signals, and ending with the parent."""
    global _parents
    # A forkserver (used when this process has threads) was started at its first use and
    # would hand every later worker the environment of that moment: credentials, endpoints
    # and limits set since then must reach the workers too.
    os.environ.clear()
    os.environ.update(env)
    _parents = (owner, os.getppid())
    # Ctrl-C reaches the whole process group; the parent decides what stops (and stops the
    # workers itself), so a worker never dies half-way through an item on its own.
    signal.signal(signal.SIGINT, _interrupted)
    signal.signal(signal.SIGTERM, _stop_requested)
    _die_with_parent()
    threading.Thread(target=_watch_parent, name="trajkit-parent-watch", daemon=True).start()
    if _orphaned():  # the parent died before the line above could notice
        os._exit(128 + signal.SIGTERM)


def _die_with_parent() -> None:
    """Linux: ask the kernel for SIGTERM when the parent dies (`TRAJKIT_NO_PDEATHSIG` tests
    the fallback without it).
    """
    if not sys.platform.startswith("linux") or os.environ.get("TRAJKIT_NO_PDEATHSIG"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - no libc prctl: the watch remains
        pass


def _orphaned() -> bool:
    """Whether this worker's parent, or the process that started the pool, is gone."""
    owner, parent = _parents
    if os.getppid() != parent:  # re-parented: the parent (fork) or the forkserver died
        return True
    if owner == parent:
        return False
    try:  # a forkserver's worker: the pool's owner is its grandparent
        os.kill(owner, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _watch_parent() -> None:
    while not _orphaned():
        time.sleep(_PARENT_WATCH_S)
    os.kill(os.getpid(), signal.SIGTERM)  # the same path as the kernel's parent-death signal
    time.sleep(10 * _PARENT_WATCH_S)
    os._exit(128 + signal.SIGTERM)  # an item that would not stop


def _interrupted(signum: int, frame: object) -> None:
    # Ignored while the parent lives (it stops the workers); an orphan's Ctrl-C ends it.
    if _orphaned():
        os._exit(128 + signum)


def _stop_requested(signum: int, frame: object) -> None:
    # Items still queued for this worker stop at once; between items (in the pool's own
    # code, maybe sending a result) the worker goes on, and the parent's shutdown ends it.
    # With the parent gone no one reads the result, so the worker ends at once (inside an
    # item, once the item's own clean-up has run: see `_apply_chunk`).
    global _stop_pending
    _stop_pending = True
    if _in_item:
        raise WorkerStopped("stopped by the parent")
    if _orphaned():
        os._exit(128 + signum)


def _apply_chunk(func: Callable[[T], R], chunk: list[T]) -> list[R]:
    global _in_item
    if _stop_pending:
        raise WorkerStopped("stopped by the parent")
    _in_item = True
    results: list[R] = []
    try:
        for item in chunk:
            if _stop_pending:  # also when `func` caught the WorkerStopped of the last item
                raise WorkerStopped("stopped by the parent")
            results.append(func(item))
    except WorkerStopped:
        if _orphaned():
            os._exit(128 + signal.SIGTERM)
        raise
    finally:
        _in_item = False
    if _stop_pending and _orphaned():
        os._exit(128 + signal.SIGTERM)
    return results


def _chunked(items: Iterator[T], size: int) -> Iterator[list[T]]:
    while chunk := list(islice(items, size)):
        yield chunk


def _context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context("spawn")
