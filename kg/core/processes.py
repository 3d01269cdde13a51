"""This machine's processes and ports: is a process still running, which port is free.

The build uses :func:`pid_alive` to tell the leftovers of a killed build from a build
that still runs; the local Bolt server (:mod:`kg.stores.bolt_server`) uses all of them
to start, watch and stop its Java process.
"""

from __future__ import annotations

import contextlib
import os
import socket
from pathlib import Path

__all__ = ["file_mode_mask", "free_port", "pid_alive", "port_in_use"]


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
