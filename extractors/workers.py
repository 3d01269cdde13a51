"""Forked worker pools, shared by extraction and propagation.

Workers are ``fork``-ed so they inherit what the parent already built (the loaded
pipeline, the phrase matchers) instead of pickling it; the parent alone handles
Ctrl-C and SIGTERM, and terminates the pool.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from multiprocessing.pool import Pool

__all__ = ["can_fork", "fork_pool", "ignore_signals"]


def can_fork() -> bool:
    """True when this process may fork workers: the platform can, and no other thread runs
    (forking a process that runs other threads can deadlock them)."""
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def ignore_signals() -> None:
    """Worker initializer: leave Ctrl-C and SIGTERM to the parent, which terminates the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def fork_pool(processes: int) -> Pool:
    """A pool of ``processes`` forked workers that leave signals to the parent."""
    return multiprocessing.get_context("fork").Pool(processes, initializer=ignore_signals)
