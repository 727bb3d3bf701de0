"""Where ingestion tasks run, and what a worker process keeps between tasks.

Engines run one task per input file and hand back results as tasks finish:

* :class:`LocalEngine` — a :class:`concurrent.futures.ProcessPoolExecutor` on this machine (``workers=0``:
  in this process, no pool, which in-process stores such as ``memory://`` need);
* :class:`DaskEngine` — Dask distributed: an existing cluster (``scheduler="tcp://host:8786"``) or a
  ``LocalCluster`` of single-threaded worker processes started for the run. Inputs and the output directory must
  be at the same paths on every worker (a shared file system).

A task that fails with :class:`~fce.errors.StoreFailure` (the store unreachable) is retried ``retries`` times
(Dask retries any failure); what still fails is reported to the orchestrator, which stops submitting and ends
the run with that error.

Per worker process (module state, never pickled): one store object per store URL (:func:`worker_store`), so a
worker holds one connection pool however many tasks it runs; one :class:`~fce.pipeline.Extractor` per run
(:func:`worker_extractor`), whose LRU keeps compiled templates across the tasks of a run.

**Time limits** are :mod:`fce.limits` (``SIGALRM`` in a process's main thread — local pool workers, ``workers=0`` —
and a watchdog thread in Dask's worker threads); :func:`drop_swallowed_timeouts` keeps the interruptions that
land in finalizers out of the logs. :func:`prepare_worker` is what every task does first.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import multiprocessing.context
import os
import select
import socket
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, TypeVar

from fce.errors import EngineError, StoreFailure
from fce.extras import require

if TYPE_CHECKING:
    from fce.pipeline import Extractor
    from templates_store import TemplateStore

__all__ = [
    "DaskEngine",
    "Engine",
    "LocalEngine",
    "drop_swallowed_timeouts",
    "end_with_driver",
    "open_engine",
    "prepare_worker",
    "process_id",
    "worker_extractor",
    "worker_store",
]

T = TypeVar("T")
R = TypeVar("R")

#: Seconds before a failed task is tried again (doubling per attempt): long enough for a Redis restart or
#: failover to finish, short enough that a dead store is reported within seconds.
RETRY_DELAY = 0.5

#: Seconds to wait for a Dask scheduler named by ``--scheduler``.
SCHEDULER_TIMEOUT = 10.0


# --- time limits -------------------------------------------------------------------------------------------


class _DropExpired:
    """``sys.unraisablehook`` wrapper that drops :class:`fce.limits.Expired`.

    A time limit's interruption that lands while the thread runs a finalizer (``__del__``, a weakref or
    garbage-collector callback; Dask installs some) cannot propagate: Python prints "Exception ignored in ..."
    (under pytest, an unraisable-exception error) and fce.limits interrupts again a moment later. Over millions
    of records that noise is expected, so it is dropped; anything else goes to the hook installed before.
    """

    def __init__(self, previous: Callable[[Any], object]) -> None:
        self.previous = previous

    def __call__(self, unraisable: Any) -> None:
        from fce.limits import Expired

        if not isinstance(unraisable.exc_value, Expired):
            self.previous(unraisable)


def drop_swallowed_timeouts() -> None:
    """Install :class:`_DropExpired` in this process (idempotent; re-installed if another hook replaced it)."""
    if not isinstance(sys.unraisablehook, _DropExpired):
        sys.unraisablehook = _DropExpired(sys.unraisablehook)


_frozen_in: int | None = None  # the pid of the worker process whose start-up objects were frozen


def prepare_worker(owner: tuple[str, int]) -> None:
    """What every task does first: :func:`drop_swallowed_timeouts`, and, once per worker process (not in the
    driver, ``owner``), ``gc.freeze()``.

    Freezing moves the objects a worker holds when its first task starts (the modules of fce, lxml, tldextract's
    suffix list, Dask; inherited from the driver when forked) out of the cyclic garbage collector's reach, so a
    full collection no longer walks them. Records make no reference cycles (a collection after 740 pages of the
    benchmark found none), but they allocate enough objects to trigger full collections: 63 ms each, 0.34 ms a
    page, and 0.03 ms a page once frozen (the benchmark's pages in one process, ``gc.callbacks``). What is frozen
    is never collected, which costs nothing here: it lives as long as the worker.
    """
    global _frozen_in
    drop_swallowed_timeouts()
    pid = os.getpid()
    if _frozen_in != pid and process_id() != owner:
        gc.freeze()
        _frozen_in = pid


# --- worker processes ----------------------------------------------------------------------------------------

#: How local worker processes start. ``forkserver``: each worker is forked from a server process that has never
#: run a thread (started once, with fce's ingestion modules imported), not from the driver, whose threads (Dask's,
#: the time limits' watchdog, the store's connection pools) may hold a lock at the moment of a fork and leave the
#: child waiting on it forever — a hang of the test suite, once, with the main thread waiting on a pool with no
#: workers left. ``spawn`` where the platform has no forkserver (Windows, and macOS, where fork is unsafe).
WORKER_START = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"

#: Modules the forkserver imports once, so that a worker starts ready (without them each would import fce, lxml,
#: NumPy and the store afresh: ~0.5 s a worker). Named one by one: ``import fce`` itself imports nothing.
WORKER_PRELOAD: tuple[str, ...] = ("fce.ingest.detection", "fce.ingest.learning", "fce.api", "templates_store")

def _worker_context() -> multiprocessing.context.BaseContext:
    context = multiprocessing.get_context(WORKER_START)
    if WORKER_START == "forkserver":
        context.set_forkserver_preload(list(WORKER_PRELOAD))
    return context


def end_with_driver(driver: int) -> None:
    """A worker's first step: end when the driver process ``driver`` (the ``fce ingest`` that started the pool)
    ends, whatever way it ends — ``kill -9`` included, which runs none of the driver's clean-up. Its parent is not
    the driver but the forkserver, which lives as long as any process holds its "alive" pipe, workers included,
    and the workers wait on a queue whose other end they hold themselves: without this, they wait forever. A thread
    waits for the driver's end (a pidfd on Linux, which names that very process; elsewhere its pid polled every
    :data:`DRIVER_POLL` seconds) and ends the worker at once; the forkserver and the resource tracker then see
    their pipes close and end too."""
    try:
        handle = os.pidfd_open(driver)  # type: ignore[attr-defined,unused-ignore]
    except (AttributeError, OSError):
        handle = None
        if not _running(driver):
            os._exit(1)
    threading.Thread(target=_wait_for_end, args=(driver, handle), name="fce-driver-watch", daemon=True).start()


#: Seconds between two looks at the driver where it cannot be waited for (no pidfd: not Linux).
DRIVER_POLL = 0.5


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _wait_for_end(driver: int, handle: int | None) -> None:
    if handle is not None:
        select.select([handle], [], [])  # readable once the process has ended
    else:
        while _running(driver):
            time.sleep(DRIVER_POLL)
    os._exit(1)


# --- per-process state of workers ---------------------------------------------------------------------------


def process_id() -> tuple[str, int]:
    """``(host, pid)``: tells the driver's process from workers, also across machines."""
    return socket.gethostname(), os.getpid()


_stores: dict[str, TemplateStore] = {}
_extractors: dict[str, tuple[str, Extractor]] = {}
_state_lock = threading.Lock()


def worker_store(store: TemplateStore, *, owner: tuple[str, int]) -> TemplateStore:
    """The store this process uses for ``store.url``: the first copy it received (one client per process).

    In the process that made ``store`` (``owner``, the driver when tasks run in-process), ``store`` itself.
    """
    if process_id() == owner:
        return store
    with _state_lock:
        return _stores.setdefault(f"{type(store).__name__}:{store.url}", store)


def worker_extractor(store: TemplateStore, *, owner: tuple[str, int], run_id: str,
                     fallback: str | None) -> Extractor:
    """The run's Extractor in this process: its template LRU lives across the tasks of one run, and is dropped
    when a new run starts (a long-lived Dask worker must not keep a previous run's templates)."""
    from fce.pipeline import Extractor

    store = worker_store(store, owner=owner)
    key = f"{type(store).__name__}:{store.url}"
    with _state_lock:
        current = _extractors.get(key)
        if current is None or current[0] != run_id or current[1].store is not store:
            current = (run_id, Extractor(store, fallback=fallback))
            _extractors[key] = current
        return current[1]


# --- engines ------------------------------------------------------------------------------------------------


def _retryable(exc: BaseException) -> bool:
    from templates_store import StoreUnavailable

    return isinstance(exc, StoreFailure | StoreUnavailable | BrokenProcessPool)


class Engine(ABC):
    """Runs tasks, one per input, and yields ``(task index, result or exception)`` as they finish."""

    workers: int

    @abstractmethod
    def run(self, fn: Callable[[T], R], tasks: Sequence[T], *, retries: int = 0,
            label: str = "task") -> Iterator[tuple[int, R | BaseException]]:
        """Results as tasks finish. After :meth:`cancel` the tasks not started are dropped (no result)."""

    @abstractmethod
    def cancel(self) -> None:
        """Do not start the remaining tasks of the current :meth:`run`."""

    @abstractmethod
    def close(self) -> None:
        """Release workers; idempotent."""

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalEngine(Engine):
    """Worker processes on this machine (``workers >= 1``), or this process itself (``workers=0``)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = (os.cpu_count() or 1) if workers is None else workers
        if self.workers < 0:
            raise ValueError(f"workers must be >= 0, not {workers}")
        self._pool: ProcessPoolExecutor | None = None
        self._cancelled = False

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=_worker_context(),
                                             initializer=end_with_driver, initargs=(os.getpid(),))
        return self._pool

    def run(self, fn: Callable[[T], R], tasks: Sequence[T], *, retries: int = 0,
            label: str = "task") -> Iterator[tuple[int, R | BaseException]]:
        self._cancelled = False
        if self.workers == 0:
            yield from self._run_here(fn, tasks, retries)
        else:
            yield from self._run_pool(fn, tasks, retries)

    def _run_here(self, fn: Callable[[T], R], tasks: Sequence[T],
                  retries: int) -> Iterator[tuple[int, R | BaseException]]:
        for index, task in enumerate(tasks):
            if self._cancelled:
                return
            for attempt in range(retries + 1):
                try:
                    result: R | BaseException = fn(task)
                except Exception as exc:  # noqa: BLE001 -- a task's failure is its result; the caller reports it
                    result = exc
                    if _retryable(exc) and attempt < retries:
                        time.sleep(RETRY_DELAY * 2 ** attempt)
                        continue
                break
            yield index, result

    def _run_pool(self, fn: Callable[[T], R], tasks: Sequence[T],
                  retries: int) -> Iterator[tuple[int, R | BaseException]]:
        """At most ``workers`` tasks in flight. When a worker process dies (killed, out of memory, a crash in C
        code) the pool breaks and every task in flight is lost; those are then run one at a time, so that the
        one that kills its worker is known, and only it is charged an attempt."""
        attempts = [0] * len(tasks)
        queue = deque(range(len(tasks)))
        suspects: deque[int] = deque()
        running: dict[Future[R], int] = {}
        solo = False
        while queue or suspects or running:
            if not self._cancelled and not running and suspects:
                index = suspects.popleft()
                running[self._executor().submit(fn, tasks[index])] = index
                solo = True
            while not self._cancelled and not solo and queue and len(running) < self.workers:
                index = queue.popleft()
                running[self._executor().submit(fn, tasks[index])] = index
            if self._cancelled:
                # A task the pool had not yet handed to a worker is cancelled by its shutdown with
                # Future.cancel(), which wakes no wait(): waiting for it would never end. Cancelling it here
                # (True also when the pool got there first) drops it; a task already running cannot be
                # cancelled and still ends with a result or BrokenProcessPool.
                for future in [f for f in running if f.cancel()]:
                    del running[future]
            if not running:
                break  # cancelled: the tasks not started are dropped
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            lost: list[int] = []
            for future in done:
                index = running.pop(future)
                exc = future.exception()
                if exc is None:
                    yield index, future.result()
                elif isinstance(exc, BrokenProcessPool):
                    lost.append(index)
                elif _retryable(exc) and attempts[index] < retries and not self._cancelled:
                    attempts[index] += 1
                    time.sleep(RETRY_DELAY * 2 ** (attempts[index] - 1))
                    queue.appendleft(index)
                else:
                    yield index, exc
            if lost:
                lost += running.values()  # the pool is gone: what was still running is lost too
                running.clear()
                self._restart_pool()
                if solo:  # it ran alone: it is the one that killed its worker
                    (index,) = lost
                    attempts[index] += 1
                    if attempts[index] > retries or self._cancelled:
                        yield index, BrokenProcessPool(f"the worker process running task {index} died")
                    else:
                        suspects.appendleft(index)
                else:
                    suspects.extend(sorted(lost))
            solo = False

    def _restart_pool(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = None

    def cancel(self) -> None:
        self._cancelled = True
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class DaskEngine(Engine):
    """Dask distributed: the cluster at ``scheduler``, or a LocalCluster of ``workers`` processes (one thread
    each, since fce releases the GIL only inside lxml) started here and closed by :meth:`close`."""

    def __init__(self, scheduler: str | None = None, workers: int | None = None) -> None:
        require("dask.distributed", "ingest", "fce ingest --engine dask")
        from dask.distributed import Client, LocalCluster

        self._cluster = None
        if scheduler:
            try:
                self.client = Client(scheduler, timeout=SCHEDULER_TIMEOUT)
            except (OSError, TimeoutError) as exc:
                raise EngineError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
        else:
            self._cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                                         processes=True, dashboard_address=None, silence_logs=logging.ERROR)
            self.client = Client(self._cluster)
        info = self.client.scheduler_info()
        self.workers = sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()) or (workers or 1)
        self._futures: list[Any] = []

    def run(self, fn: Callable[[T], R], tasks: Sequence[T], *, retries: int = 0,
            label: str = "task") -> Iterator[tuple[int, R | BaseException]]:
        from dask.distributed import as_completed

        # pure=False: a rerun of the same input must run again, not hit a cached result.
        self._futures = [self.client.submit(fn, task, retries=retries, pure=False, key=f"fce-{label}-{i}-"
                                            f"{os.urandom(4).hex()}") for i, task in enumerate(tasks)]
        index = {future.key: i for i, future in enumerate(self._futures)}
        for future in as_completed(self._futures):
            if future.cancelled():
                continue
            try:
                yield index[future.key], future.result()
            except Exception as exc:  # noqa: BLE001 -- a task's failure is its result; the caller reports it
                yield index[future.key], exc
        self._futures = []

    def cancel(self) -> None:
        pending = [f for f in self._futures if not f.done()]
        if pending:
            self.client.cancel(pending)

    def close(self) -> None:
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


def open_engine(name: str, *, scheduler: str | None = None, workers: int | None = None) -> Engine:
    """``"local"`` or ``"dask"`` (see the module docstring)."""
    if name == "local":
        if scheduler:
            raise ValueError("--scheduler is for --engine dask")
        return LocalEngine(workers)
    if name == "dask":
        if workers == 0:
            raise ValueError("--workers 0 (in this process) is for --engine local")
        return DaskEngine(scheduler, workers)
    raise ValueError(f"unknown engine {name!r}: use local or dask")
