"""Write a file atomically: a temporary file in the same folder, renamed over the target.

Every file the CLI writes goes through :func:`atomic_write` (``kg viz``, ``kg export -o``;
``kg build`` swaps whole folders the same way): a reader never sees half a file, a failed
write (a full disk, a file-size limit, Ctrl-C) leaves the previous file as it was and no
temporary file behind, and the failure is one line.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from kg.core.errors import Messages, OutputError
from kg.core.processes import file_mode_mask

__all__ = ["atomic_write"]


@contextlib.contextmanager
def atomic_write(path: str | Path, *, text: bool = False) -> Iterator[IO[Any]]:
    """A file open for writing that becomes ``path`` only when the block ends without error.

    Raises
    ------
    OutputError
        One line (the target and the reason) when the folder is missing or
        read-only, or a write fails (a full disk); the temporary file is removed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "page.html"
    >>> with atomic_write(target, text=True) as f:
    ...     _ = f.write("<p>hello</p>")
    >>> target.read_text(), [p.name for p in target.parent.iterdir()]
    ('<p>hello</p>', ['page.html'])
    >>> with atomic_write(target.parent / "no" / "x.html") as f:  # doctest: +ELLIPSIS
    ...     pass
    Traceback (most recent call last):
    ...
    kg.core.errors.OutputError: cannot write the output .../no/x.html: ...
    """
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        raise OutputError(Messages.OUT_NOT_WRITABLE.format(out=path, detail=_reason(e))
                          ) from None
    try:
        f: IO[Any] = os.fdopen(fd, "w", encoding="utf-8") if text else os.fdopen(fd, "wb")
        with f:
            yield f
        os.chmod(tmp, 0o666 & ~file_mode_mask())  # mkstemp's 0600 would make it private
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise OutputError(Messages.OUT_NOT_WRITABLE.format(out=path, detail=_reason(e))
                              ) from None
        raise


def _reason(e: OSError) -> str:
    return e.strerror or " ".join(str(e).split()) or type(e).__name__
