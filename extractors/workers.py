"""Forked worker processes, shared by extraction and propagation.

Workers are ``fork``-ed so they inherit what the parent already built (the loaded
pipeline, the phrase matchers) instead of pickling it; the parent alone handles
Ctrl-C and SIGTERM, and kills the workers.

:func:`fork_map` runs on :class:`concurrent.futures.ProcessPoolExecutor` rather than
:class:`multiprocessing.pool.Pool`: a ``Pool`` replaces a worker that dies (killed by the
out-of-memory killer, ``kill -9``) but loses its task, and the parent then waits for
that result forever. The executor notices the death at once (``BrokenProcessPool``),
which :func:`fork_map` turns into one :class:`~kg.core.errors.WorkerError` line.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import threading
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import ForkContext
from multiprocessing.process import BaseProcess
from typing import TypeVar

from kg.core.errors import Messages, WorkerError

__all__ = ["can_fork", "fork_map", "ignore_signals"]

T = TypeVar("T")
R = TypeVar("R")


def can_fork() -> bool:
    """True when this process may fork workers: the platform can, and no other thread runs
    (forking a process that runs other threads can deadlock them)."""
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


_HELD = {signal.SIGINT, signal.SIGTERM}


def ignore_signals() -> None:
    """Worker initializer: leave Ctrl-C and SIGTERM to the parent, which kills the workers.

    The workers are forked with both signals blocked (:func:`fork_map`), so a Ctrl-C that
    reaches the whole process group before this runs is dropped here, not raised.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)


def fork_map(fn: Callable[[T], R], tasks: Iterable[T], processes: int, *,
             what: str = "extraction") -> Generator[R, None, None]:
    """``fn(task)`` for every task in ``processes`` forked workers; results in task order.

    If a worker dies, this raises :class:`~kg.core.errors.WorkerError` (``what`` names the
    stage in its message) as soon as the death is seen; if the caller stops early or is
    interrupted (Ctrl-C, SIGTERM), the workers are killed before this returns.

    Examples
    --------
    >>> list(fork_map(abs, [-1, 2, -3], 2))
    [1, 2, 3]
    """
    context = _ForkRecording()
    executor = ProcessPoolExecutor(processes, mp_context=context, initializer=ignore_signals)
    finished = False
    # not executor.map: on Ctrl-C it cancels the pending tasks, and then killing the workers
    # makes the executor's own thread fail on those cancelled tasks (Python 3.11)
    try:
        futures = []
        for task in tasks:
            if context.workers:
                futures.append(executor.submit(fn, task))
                continue
            # the first task forks every worker: with Ctrl-C blocked until they ignore it
            blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
            try:
                futures.append(executor.submit(fn, task))
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        for future in futures:
            yield future.result()
        finished = True
    except BrokenProcessPool:
        # the executor's thread reaps the workers: their exit codes are known once it is done
        executor.shutdown(wait=True)
        raise WorkerError(Messages.WORKER_DIED.format(what=what,
                                                      how=_how_died(context.workers))) \
            from None
    finally:
        if not finished:  # a worker still busy with a task would finish it first
            for p in context.workers:
                with contextlib.suppress(OSError):
                    p.kill()
        executor.shutdown(wait=True)


class _ForkRecording(ForkContext):
    """The ``fork`` start method, keeping every process it starts.

    The executor does not say which processes it runs; :func:`fork_map` must kill them
    when it is interrupted, and name the one that died even if it died at once.
    """

    def __init__(self) -> None:
        super().__init__()
        self.workers: list[BaseProcess] = []

    def Process(self, *args, **kwargs) -> BaseProcess:  # type: ignore[override]  # noqa: N802
        process = super().Process(*args, **kwargs)
        self.workers.append(process)
        return process


def _how_died(workers: list[BaseProcess]) -> str:
    """How a dead worker ended: "worker 12 was killed by SIGKILL (out of memory?)" …

    The executor sends SIGTERM to the others once one has died: the first worker that
    ended otherwise is the one to name.
    """
    ended = [p for p in workers if p.exitcode]
    ended.sort(key=lambda p: p.exitcode == -signal.SIGTERM)
    if not ended:
        return "a worker process ended unexpectedly"
    p = ended[0]
    code = p.exitcode or 0
    if code > 0:
        return f"worker {p.pid} exited with status {code}"
    name = signal.Signals(-code).name
    hint = " (out of memory?)" if name == "SIGKILL" else ""
    return f"worker {p.pid} was killed by {name}{hint}"
