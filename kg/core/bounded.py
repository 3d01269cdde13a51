"""Run a long call so that it ends at a deadline and on Ctrl-C (``kg sparql``, ``kg cypher``).

A query engine's native code (Oxigraph's evaluation, a socket waiting for a Bolt
server) does not return to Python until it is done, so Python's signal handlers
would run only then: SIGINT and SIGTERM would wait for a query that may never end.
:func:`run_bounded` runs the call in a daemon thread and waits for it in the main
thread, where signals are handled at once; on a timeout or an interrupt the caller
exits the process, leaving the thread behind (it holds nothing that needs closing:
the engines only read).
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import TypeVar

from kg.core.errors import KGError, Messages

__all__ = ["QueryTimeout", "run_bounded"]

T = TypeVar("T")


class QueryTimeout(KGError):
    """A query ran past its ``--timeout``."""


def run_bounded(call: Callable[[], T], timeout: float | None) -> T:
    """``call()``, or :class:`QueryTimeout` after ``timeout`` seconds (``None``: no limit).

    The call's own exception is raised here; ``KeyboardInterrupt`` (Ctrl-C, or
    SIGTERM as ``kg`` turns it) is raised while the call still runs.

    Examples
    --------
    >>> run_bounded(lambda: 6 * 7, timeout=5)
    42
    >>> import time
    >>> run_bounded(lambda: time.sleep(5), timeout=0.1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kg.core.bounded.QueryTimeout: the query did not finish within 0.1 s ...
    """
    result: list[T] = []
    error: list[BaseException] = []
    done = threading.Event()

    def work() -> None:
        try:
            result.append(call())
        except BaseException as e:  # handed to the waiting thread
            _clear_frames(e)
            error.append(e)
        finally:
            done.set()

    threading.Thread(target=work, name="kg-query", daemon=True).start()
    if not done.wait(timeout):  # interruptible: Ctrl-C raises here at once
        raise QueryTimeout(Messages.QUERY_TIMEOUT.format(seconds=f"{timeout:g}"))
    if error:
        raise error[0]
    return result[0]


def _clear_frames(error: BaseException | None) -> None:
    # The frames of a failed call hold its locals (an Oxigraph result may be dropped only by
    # the thread that made it): free them here, keeping the lines for --debug.
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if error.__traceback__ is not None:
            traceback.clear_frames(error.__traceback__)
        error = error.__cause__ or error.__context__
