"""This machine's processes and ports: is a process still running, which port is free.

The build uses :func:`pid_alive` to tell the leftovers of a killed build from a build
that still runs, and :func:`run_apart` to extract in a process of its own; the local Bolt
server (:mod:`kg.stores.bolt_server`) uses the others to start, watch and stop its Java
process.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, TypeVar

__all__ = ["file_mode_mask", "free_port", "kill_and_reap", "pid_alive", "port_in_use",
           "run_apart"]

T = TypeVar("T")

#: Seconds a child that :func:`run_apart` passed an interruption on to has to end (closing
#: what it started) before it is killed.
CHILD_GRACE = 60


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (and is not a zombie we could reap).

    A child of ours that has exited is reaped here; someone else's live process
    counts as alive even though we may not signal it.

    Examples
    --------
    >>> pid_alive(os.getpid())
    True
    """
    with contextlib.suppress(ChildProcessError, OSError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    try:  # a zombie of someone else's still "exists"; /proc tells
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except (OSError, IndexError):
        return True


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that nothing listens on right now.

    Examples
    --------
    >>> 1024 <= free_port() <= 65535
    True
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    """Whether something already listens on ``host:port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def file_mode_mask() -> int:
    """The process's umask (``os.umask`` can only be read by setting it, so set it back).

    Files made by :func:`tempfile.mkstemp` and folders made by :func:`tempfile.mkdtemp`
    are private (0600, 0700); a file or folder that replaces a user's output gets
    the mode an ordinary one would have: ``0o666 & ~file_mode_mask()`` (``0o777`` for
    folders).

    Examples
    --------
    >>> 0 <= file_mode_mask() <= 0o777
    True
    """
    mask = os.umask(0)
    os.umask(mask)
    return mask


def run_apart(work: Callable[[], T], *, spill: Path | None = None,
              dump: Callable[[T, BinaryIO], None] | None = None,
              load: Callable[[BinaryIO], T] | None = None) -> T:
    """``work()``, run in a forked child process; its result comes back pickled.

    What the work allocates on the way (a build's extraction and consolidation: every
    text's spans, the candidates, Python's partly used memory pools) goes back to the
    system when the child ends, instead of staying in this process for the rest of its
    life. Where there is no ``fork``, or other threads run here (forking them is unsafe),
    the work runs in this process.

    The result comes through a pipe, read here while the child writes it: both processes
    hold it meanwhile. With ``spill`` (a file path) it is written to that file instead and
    read here once the child has ended, so that the child's memory is free first; the
    file is removed after reading. ``dump(result, file)`` and ``load(file)`` write and read
    it there (default: ``pickle.dump`` and ``pickle.load``, whose memo holds an entry per
    object of the result while it runs; a model has its own, in pieces:
    :func:`kg.core.model.dump_rows`).

    An exception of the work is raised here (with its class and message). An interruption
    here (``KeyboardInterrupt``: SIGINT, or SIGTERM where ``kg``'s command line turns it
    into one) is passed on to the child, which unwinds and ends; the child is killed if it
    has not ended after :data:`CHILD_GRACE` seconds or at a second interruption.

    Examples
    --------
    >>> run_apart(lambda: sum(range(10)))
    45
    """
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return work()
    read, write = os.pipe()
    held = {signal.SIGINT, signal.SIGTERM}
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, held)  # no signal between fork and
    try:                                                      # the child's own handlers
        pid = os.fork()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        os.close(read)
        os.close(write)
        raise
    if pid == 0:  # the child: never returns
        os.close(read)
        _child(work, write, blocked, spill, dump)
    os.close(write)
    f = os.fdopen(read, "rb")
    try:
        with f:
            # an interruption that came since the fork is raised here, where the child
            # is passed it on: outside this try it would be left running
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
            _wait_readable(read)
            try:
                kind, value = pickle.load(f)
            except (EOFError, pickle.UnpicklingError):  # the child died without its
                # result (killed, out of memory), or midway through sending it
                kind, value = "died", None
    except BaseException:
        _end_child(pid)
        raise
    _reap(pid)
    if kind == "ok":
        return value
    if kind == "spilled" and spill is not None:
        try:
            with open(spill, "rb") as f:
                return (load or pickle.load)(f)
        finally:
            spill.unlink(missing_ok=True)
    if kind == "error":
        raise _rebuilt(*value)
    raise ChildProcessError(f"the process (pid {pid}) running the work ended without its result")


def _child(work: Callable[[], T], write: int, blocked: set[int | signal.Signals],
           spill: Path | None, dump: Callable[[T, BinaryIO], None] | None) -> None:
    """In the forked child: run ``work``, send back ``("ok", result)`` (or write the result
    to ``spill`` and send ``("spilled", None)``) or the error, leave."""
    status = 1
    try:
        stopping: list[int] = []

        def stop(signum: int, _frame: object) -> None:
            # once: the unwinding (closing a cluster) must not be cut by the next signal
            # (Ctrl-C reaches this process, and the parent passes it on, each second until
            # this process ends). The handler stays
            # set: a signal already pending when it became SIG_IGN would be raised as an
            # OSError ("ignored due to race condition").
            if not stopping:
                stopping.append(signum)
                raise KeyboardInterrupt(signal.Signals(signum).name)

        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, stop)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        with os.fdopen(write, "wb") as f:
            try:
                result = work()
                if spill is not None:  # streamed: the result may be large (a model)
                    with open(spill, "wb") as out:
                        if dump is None:
                            pickle.dump(result, out, protocol=pickle.HIGHEST_PROTOCOL)
                        else:
                            dump(result, out)
            except BaseException as e:  # noqa: BLE001 - every error goes to the parent
                f.write(_error_message(e))
            else:
                if spill is None:
                    pickle.dump(("ok", result), f, protocol=pickle.HIGHEST_PROTOCOL)
                else:
                    pickle.dump(("spilled", None), f)
        status = 0
    except BaseException:  # noqa: BLE001
        pass
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(status)


def _error_message(e: BaseException) -> bytes:
    """``("error", …)`` for :func:`_rebuilt`, pickled (a generic error if ``e``'s fields
    cannot be)."""
    trace = "".join(traceback.format_exception(e))
    args = e.args
    if isinstance(e, OSError) and e.filename is not None:  # the path is no attribute of args
        args = (e.errno, e.strerror, e.filename, None, e.filename2)
    try:
        return pickle.dumps(("error", (type(e), args, dict(getattr(e, "__dict__", {})), trace)))
    except Exception:
        return pickle.dumps(("error", (RuntimeError, (f"{type(e).__name__}: {e}",), {}, trace)))


def _rebuilt(cls: type[BaseException], args: tuple, state: dict, trace: str) -> BaseException:
    """The child's exception again, without calling its ``__init__`` (whose arguments may
    differ from ``args``, as :class:`~kg.core.errors.InputError`'s do); its traceback in
    the child is a note (shown where tracebacks are: ``kg --debug``)."""
    if issubclass(cls, OSError):  # its constructor sets errno, strerror and the paths
        e: BaseException = cls(*args)
    else:
        e = cls.__new__(cls)
        e.args = args
    with contextlib.suppress(AttributeError, TypeError):
        e.__dict__.update(state)
    if trace:
        e.add_note(f"raised in the child process:\n{trace.rstrip()}")
    return e


def _end_child(pid: int) -> None:
    """Pass the interruption on to the child (each second until it ends) and wait for it to
    end (killed after the grace time, or at once if we are interrupted again).

    As SIGINT, whatever came here: the child may be starting a Dask cluster, with SIGINT
    held off but SIGTERM at its default (which would end it at once and leave the workers
    it has started behind).
    """
    try:
        for tick in range(CHILD_GRACE * 20):
            if tick % 20 == 0:  # again each second: one that came just before the child
                # blocked (in a sleep, a read) is only seen when it wakes; its handler
                # acts on the first that it sees and ignores the rest
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGINT)
            done, _status = os.waitpid(pid, os.WNOHANG)
            if done:
                return
            time.sleep(0.05)
    except BaseException:
        kill_and_reap(pid)
        raise
    kill_and_reap(pid)


def _wait_readable(fd: int) -> None:
    """Wait until ``fd`` can be read, seeing signals meanwhile.

    Python's handlers run between bytecodes: a signal that comes after the last check
    but before a blocking read starts would wait for the read to end (here: for the
    child's result). Waits of a quarter of a second at most each see it in time.
    """
    while not select.select([fd], [], [], 0.25)[0]:
        pass


def kill_and_reap(pid: int) -> None:
    """Kill our child ``pid`` (SIGKILL) and reap it; nothing if it is already gone."""
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
