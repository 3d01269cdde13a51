"""Worker processes on Dask, for extraction and (on an existing cluster) propagation.

:class:`Workers` runs a function over tasks and gives the results back in task order: in
this process for one worker (no cluster, no overhead), on a local ``dask.distributed``
cluster of ``n`` processes, or on an existing cluster whose scheduler address the user
gave. The same code runs in every case; a task gets ``fn(shared, task)``, where
``shared`` (the pipeline's description, the matchers' forms) is sent to each worker once
and each worker builds what it needs from it once (a cache in the worker process). Local
workers are forked on Linux, so they start with what the build has loaded already.

Failures keep what the forked workers of earlier versions guaranteed:

- a worker that dies (``kill -9``, out of memory) fails the build at once with one
  :class:`~kg.core.errors.WorkerError` line: the local cluster's scheduler does not retry
  the task on another worker (``allowed-failures: 0``), an existing cluster's scheduler
  retries it as it is configured to, then gives up;
- a scheduler that cannot be reached, or that has no worker, is one line too;
- Ctrl-C stops the build and the local workers: they ignore SIGINT (the signal reaches
  the whole foreground process group), the build alone handles it and closes the
  cluster.

The local cluster listens on 127.0.0.1 only, without dashboards; nothing else is
contacted but the scheduler address given.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import Any, TypeVar

from kg.core.errors import Messages, WorkerError

__all__ = ["DASK_CONFIG", "Workers", "default_workers", "sendable", "usable_cores"]

S = TypeVar("S")
T = TypeVar("T")
R = TypeVar("R")

#: Tasks sent ahead per worker: enough to keep every worker busy, few enough that the
#: texts of a huge corpus are not all held by the scheduler at once.
TASKS_AHEAD = 4
#: Seconds to wait for the first worker of an existing cluster.
WORKER_WAIT = 30
#: Dask's own logs of recent messages, kept for debugging, 1,000 messages by default: the
#: client's (every task it submitted, pickled: a chunk of texts each), the local
#: scheduler's (every task it sent to a worker) and each local worker's. Kept, they grew
#: with the corpus up to 1,000 tasks (5,000 papers, ``--workers 2``: the whole build's peak
#: PSS 740 → 649 MB, each worker 268 → 233 MB; bench/README.md).
DASK_CONFIG = {"distributed.admin.low-level-log-length": 0}


def sendable(text: str) -> str:
    """``text`` as a task sent to workers should hold it: a copy if it is not ASCII.

    CPython keeps the UTF-8 form of a ``str`` it pickled that is not ASCII inside the
    ``str``, for good: a paper's text sent itself would grow by a byte or more a character
    for the whole build (~25 MB at 100,000 papers, a fifth of them not ASCII). The copy is
    dropped once sent.

    >>> t, g = "naïve Bayes", "GNN"
    >>> sendable(t) == t, sendable(t) is t, sendable(g) is g
    (True, False, True)
    """
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")


def usable_cores() -> int:
    """The CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def default_workers(n_tasks: int, min_tasks: int) -> int:
    """Worker processes for ``n_tasks`` when the user chose none: every core for a corpus
    large enough to pay for starting them (``min_tasks``), else this process alone.

    >>> default_workers(10, 100)
    1
    """
    return usable_cores() if n_tasks >= min_tasks else 1


class Workers:
    """A pool of worker processes: in this process (``n=1``), a local Dask cluster of ``n``
    processes, or the cluster of the scheduler at ``scheduler``.

    Local workers are forked from this process on Linux (they start at once with what it
    has loaded) unless ``fork`` is false: then they are new processes (as on other systems)
    that load what they need themselves, seconds each, but hold nothing of this process's
    memory. A forked worker shares this process's pages until either writes to them, and
    this process writes to its own as it goes on: over a long extraction the worker ends up
    with a private copy of most of what this process held when it was forked (a
    100,000-paper corpus: ~+160 MiB per worker, issue 17).

    Use it as a context manager: the cluster starts at :meth:`__enter__` and is closed
    (its local processes ended) at :meth:`__exit__`, also on errors and Ctrl-C, or earlier
    by :meth:`close` once nothing more needs it; tasks mapped after that run here.

    Examples
    --------
    >>> with Workers(1) as workers:
    ...     list(workers.map(pow, 2, [1, 2, 3], what="a doctest"))
    [2, 4, 8]
    """

    def __init__(self, n: int = 1, scheduler: str | None = None, *, fork: bool = True) -> None:
        self.n = n
        self.scheduler = scheduler
        self.fork = fork
        self.client: Any = None
        self._cluster: Any = None
        self._stack = contextlib.ExitStack()

    @property
    def parallel(self) -> bool:
        """Whether tasks run in other processes (a cluster), not here."""
        return self.client is not None

    def __enter__(self) -> Workers:
        if self.scheduler is None and self.n <= 1:
            return self
        try:
            self._stack.enter_context(_quiet_dask())
            if self.scheduler is not None:
                self.client = _connect(self.scheduler)
            else:
                if self.fork and sys.platform == "linux":
                    # What this process holds now, its forked workers share page by page
                    # until either writes to a page: a full collection writes to the header
                    # of every object it sweeps, copying every page that holds one. Frozen,
                    # they are not swept here (nor in the workers) until the cluster ends.
                    gc.freeze()
                    self._stack.callback(gc.unfreeze)
                self._cluster, self.client = _local_cluster(self.n, fork=self.fork)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """End the cluster (local processes stop; an existing cluster is only let go).

        Safe to call more than once; :meth:`map` then runs its tasks in this process.
        """
        client, cluster, self.client, self._cluster = self.client, self._cluster, None, None
        with contextlib.suppress(Exception):
            if client is not None:
                client.close()
        with contextlib.suppress(Exception):
            if cluster is not None:
                cluster.close()
        self._stack.close()

    def map(self, fn: Callable[[S, T], R], shared: S, tasks: Iterable[T], *,
            what: str) -> Iterator[R]:
        """``fn(shared, task)`` for every task, in task order.

        ``shared`` goes to each worker once; ``what`` names the stage in the
        :class:`~kg.core.errors.WorkerError` raised if a worker dies.
        """
        if not self.parallel:
            for task in tasks:
                yield fn(shared, task)
            return
        yield from _ordered(self.client, fn, shared, tasks, what, self.scheduler)


def _local_cluster(n: int, *, fork: bool = True) -> tuple[Any, Any]:
    """A ``LocalCluster`` of ``n`` single-threaded processes on 127.0.0.1, and its client;
    the processes are forked from this one if ``fork`` (and the platform allows)."""
    import dask
    from distributed import Client, LocalCluster

    # The worker processes start with SIGINT ignored (an ignored signal stays ignored in a
    # forked or exec'ed child, and Python then installs no handler of its own): Ctrl-C is
    # for the build, which closes the cluster. (A blocked signal alone would not do:
    # spawned processes start with an empty signal mask.) Meanwhile SIGINT is also blocked
    # here, and in the threads Dask starts now, which inherit the mask: a blocked signal is
    # kept pending, not ignored, so a Ctrl-C while the cluster starts arrives when the mask
    # is restored (pthread_sigmask runs the handler before it returns), instead of being
    # lost. SIGTERM ends the workers as the default does, not through the handler of kg's
    # command line, which unwinds a build.
    main = threading.current_thread() is threading.main_thread()
    previous = {}
    mask = None
    if main:
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        previous = {signal.SIGINT: signal.signal(signal.SIGINT, signal.SIG_IGN),
                    signal.SIGTERM: signal.signal(signal.SIGTERM, signal.SIG_DFL)}
    started = None
    try:
        # A task whose worker died fails at once: on one machine it would most likely kill
        # the next worker too (out of memory), and the user should hear of it.
        # Forked workers (Linux) start at once with what this process has loaded (spaCy,
        # the pipeline the build put in the worker cache); spawned ones import and load
        # it all again, seconds each.
        method = "fork" if fork and sys.platform == "linux" else "spawn"
        with dask.config.set({**DASK_CONFIG, "distributed.scheduler.allowed-failures": 0,
                              "distributed.worker.multiprocessing-method": method}):
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None,
                                   worker_dashboard_address=None, memory_limit=0,
                                   silence_logs=logging.CRITICAL,
                                   # the scheduler's HTTP routes (health, metrics) listen
                                   # anyway: on a free port of 127.0.0.1, not 8787
                                   scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
            try:
                client = Client(cluster)  # within the config: its own message log
            except BaseException:
                cluster.close()
                raise
        started = cluster, client
    except Exception as e:  # a worker that could not start, or died at once
        raise WorkerError(Messages.WORKERS_NOT_STARTED.format(n=n, detail=_detail(e))) \
            from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if mask is not None:
            try:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a held Ctrl-C raises here
            except BaseException:
                if started is not None:
                    for part in reversed(started):
                        with contextlib.suppress(Exception):
                            part.close()
                raise
    return started  # set: every failure above has raised


def _connect(address: str) -> Any:
    """A client of the scheduler at ``address``, which has at least one worker."""
    import dask
    from distributed import Client

    try:
        with dask.config.set(DASK_CONFIG):  # the client's message log (the cluster's: its own)
            client = Client(address)
    except Exception as e:
        raise WorkerError(Messages.SCHEDULER_UNREACHABLE.format(
            address=address, detail=_detail(e))) from None
    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT)
    except Exception:
        client.close()
        raise WorkerError(Messages.SCHEDULER_NO_WORKERS.format(
            address=address, seconds=WORKER_WAIT)) from None
    return client


def _ordered(client: Any, fn: Callable[[S, T], R], shared: S, tasks: Iterable[T], what: str,
             scheduler: str | None) -> Iterator[R]:
    """:meth:`Workers.map` on a cluster: a window of tasks ahead, results in task order."""
    from distributed import KilledWorker
    from distributed.client import FutureCancelledError
    from distributed.comm import CommClosedError

    pending: collections.deque = collections.deque()
    try:
        ahead = TASKS_AHEAD * max(1, len(client.scheduler_info(n_workers=-1)["workers"]))
        try:
            [shared_data] = client.scatter([shared], broadcast=True, hash=False)
        except OSError:  # a worker went away while it was sent the data
            raise WorkerError(Messages.WORKER_DIED.format(what=what, how=_how_died(None))) \
                from None
        todo = iter(tasks)
        run = _Sealed(fn)
        for task in todo:
            pending.append(client.submit(run, shared_data, _Sealed(task), pure=False))
            if len(pending) >= ahead:
                break
        while pending:
            result = pending.popleft().result()
            for task in todo:
                pending.append(client.submit(run, shared_data, _Sealed(task), pure=False))
                break
            yield result
    except KilledWorker as e:
        raise WorkerError(Messages.WORKER_DIED.format(what=what, how=_how_died(e))) from None
    except (CommClosedError, FutureCancelledError, TimeoutError) as e:
        if scheduler is None:  # the local scheduler runs here: a worker went away
            raise WorkerError(Messages.WORKER_DIED.format(what=what, how=_how_died(None))) \
                from None
        raise WorkerError(Messages.SCHEDULER_LOST.format(
            what=what, address=scheduler, detail=_detail(e))) from None
    finally:
        if pending:
            with contextlib.suppress(Exception):
                client.cancel(list(pending))


class _Sealed:
    """A task's data as one opaque argument, or the function that opens it.

    Dask walks the lists, tuples and dicts of a task's arguments, item by item, for futures
    to wait on; a task of 64 texts has hundreds of thousands of items (tokens, spans), and
    the walk took seconds of the build's own process. An object of another class is sent
    as it is (pickled).
    """

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __call__(self, shared: Any, task: _Sealed) -> Any:
        return self.value(shared, task.value)

    def __reduce__(self) -> tuple[type[_Sealed], tuple[Any]]:
        return (_Sealed, (self.value,))


def _how_died(e: Exception | None) -> str:
    """"worker tcp://127.0.0.1:40037 died (killed, or out of memory?)" from a KilledWorker."""
    address = getattr(getattr(e, "last_worker", None), "address", None)
    who = f"worker {address}" if address else "a worker"
    return f"{who} died (killed, or out of memory?)"


def _detail(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


@contextlib.contextmanager
def _quiet_dask() -> Iterator[None]:
    """Dask's own log lines (a worker restarting, connection retries) stay off stderr: the
    build reports what went wrong as one line."""
    # asyncio's: the tasks of a scheduler interrupted by Ctrl-C ("Task exception was never
    # retrieved")
    loggers = [logging.getLogger(name) for name in ("distributed", "asyncio")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)
