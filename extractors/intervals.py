"""A fixed set of character spans, asked which of them contain, overlap or cross a span.

Consolidation asks these questions for every span found in a text against every other
kind of span found there; asked pair by pair, a text with ``n`` spans costs ``n²`` (a
5 MB abstract took over ten minutes). :class:`Intervals` sorts the spans once and answers
each question in ``O(log n)``: a binary search for the spans that start (or end) in a
range, and a sparse table for the largest end (smallest start) among them.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable

import numpy as np

__all__ = ["Intervals"]


class Intervals:
    """Spans ``(start, end)`` with ``start < end``, queried in ``O(log n)`` each.

    Examples
    --------
    >>> spans = Intervals([(0, 10), (12, 20)])
    >>> spans.contains(2, 5), spans.contains(8, 14)
    (True, False)
    >>> spans.overlaps(9, 12), spans.overlaps(10, 12)
    (True, False)
    >>> spans.crosses(5, 15), spans.crosses(0, 20), spans.crosses(12, 20)
    (True, False, False)
    """

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        by_start = sorted((s, e) for s, e in spans)
        by_end = sorted(by_start, key=lambda se: (se[1], se[0]))
        self._starts = [s for s, _ in by_start]
        self._max_end = _SparseTable([e for _, e in by_start], np.maximum)
        self._ends = [e for _, e in by_end]
        self._min_start = _SparseTable([s for s, _ in by_end], np.minimum)

    def __len__(self) -> int:
        return len(self._starts)

    def contains(self, start: int, end: int) -> bool:
        """Whether one span holds ``start:end`` (``s <= start`` and ``end <= e``)."""
        n = bisect.bisect_right(self._starts, start)
        return n > 0 and self._max_end.query(0, n) >= end

    def overlaps(self, start: int, end: int) -> bool:
        """Whether one span shares a character with ``start:end``."""
        n = bisect.bisect_left(self._starts, end)
        return n > 0 and self._max_end.query(0, n) > start

    def crosses(self, start: int, end: int) -> bool:
        """Whether one span overlaps ``start:end`` and neither holds the other."""
        # starts inside, ends after: s < b.start < e < b.end
        lo = bisect.bisect_right(self._starts, start)
        hi = bisect.bisect_left(self._starts, end)
        if lo < hi and self._max_end.query(lo, hi) > end:
            return True
        # ends inside, starts before: b.start < s < b.end < e
        lo = bisect.bisect_right(self._ends, start)
        hi = bisect.bisect_left(self._ends, end)
        return lo < hi and self._min_start.query(lo, hi) < start


class _SparseTable:
    """``op`` (max or min) of any range of ``values`` in ``O(1)``, after ``O(n log n)``."""

    def __init__(self, values: list[int], op: Callable) -> None:
        self._op = op
        self._levels = [np.asarray(values, dtype=np.int64)]
        width = 1
        while 2 * width <= len(values):
            prev = self._levels[-1]
            self._levels.append(op(prev[:-width], prev[width:]))
            width *= 2

    def query(self, lo: int, hi: int) -> int:
        """``op`` of ``values[lo:hi]`` (not empty)."""
        level = (hi - lo).bit_length() - 1
        row = self._levels[level]
        return int(self._op(row[lo], row[hi - (1 << level)]))
