"""Fewer garbage collections while a long job builds millions of objects that it keeps, and
the memory it no longer needs given back before the next phase."""

from __future__ import annotations

import contextlib
import ctypes
import gc
from collections.abc import Iterable, Iterator
from typing import TypeVar

__all__ = ["BUILD_THRESHOLD", "fewer_collections", "release_free_memory", "return_free_pages",
           "trimming"]

T = TypeVar("T")

#: Allocations between young collections during a build (Python's default is 700). A
#: build makes millions of spans, mentions and triples that live until it ends, so the
#: default sweeps them again and again for nothing (~4 % of ``kg build`` on NeurIPS 2018).
BUILD_THRESHOLD = (100_000, 50, 100)


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the collector's thresholds for the block (or, as a decorator, the call).

    The previous thresholds come back after.

    Examples
    --------
    >>> import gc
    >>> before = gc.get_threshold()
    >>> with fewer_collections():
    ...     gc.get_threshold()[0] > before[0]
    True
    >>> gc.get_threshold() == before
    True
    """
    before = gc.get_threshold()
    gc.set_threshold(*BUILD_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def release_free_memory() -> None:
    """Collect garbage, then give the C heap's free pages back to the system (glibc).

    Consolidation needs several times the memory of the model it leaves (candidates,
    every text's spans); once they are freed, glibc keeps most of their pages, and a build's
    writers and the store's bulk loader then grow on top of them. ``malloc_trim`` returns
    them (the 5,000-paper build: 595 MB → 499 MB before writing; its peak 1,274 → 1,228 MB).
    Elsewhere (no glibc) only the collection runs.

    >>> release_free_memory()
    """
    gc.collect()
    return_free_pages()


def return_free_pages() -> None:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``; elsewhere
    nothing).

    Native code that frees what it allocated (Oxigraph's bulk loader, between two loads)
    leaves glibc holding the pages: a large block freed raises glibc's threshold for
    giving blocks their own mapping, so the next loads' blocks come from arenas that keep
    their pages. Safe from any thread.

    >>> return_free_pages()
    """
    try:
        trim = ctypes.CDLL(None).malloc_trim  # the C library this process runs on
    except (OSError, AttributeError):  # not glibc (musl, macOS, Windows)
        return
    trim(0)


def trimming(items: Iterable[T], *, every: int) -> Iterator[T]:
    """``items``, with the C heap's free pages given back after every ``every`` of them.

    For a long pass that makes and drops temporaries item after item (chunks of texts)
    while it grows what it keeps: glibc reuses little of what the pass freed, and without
    a trim on the way the process held the pass's garbage until its end (term propagation
    at 100,000 papers: ~120 MB, given back only after the pass, issue 17).

    >>> list(trimming(range(5), every=2))
    [0, 1, 2, 3, 4]
    """
    for n, item in enumerate(items, start=1):
        yield item
        if n % every == 0:
            return_free_pages()
