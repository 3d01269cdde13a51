"""How every engine's numbers become one ranking: rounding, ties, cut-offs.

Scores are rounded to :data:`SCORE_DIGITS` decimals before they are compared,
so that sums taken in a different order (SPARQL, Cypher, Python) rank alike;
ties go to the smaller id (``docs/queries.md``).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["SCORE_DIGITS", "rounded", "score_floor"]

#: scores are rounded to this many decimals before ordering (docs/queries.md)
SCORE_DIGITS = 6


def rounded(score: float) -> float:
    """``score`` rounded as every ranking rounds it.

    Examples
    --------
    >>> rounded(0.4054651081081644)
    0.405465
    """
    return round(score, SCORE_DIGITS)


def score_floor(counts: Iterable[tuple[float, int]], limit: int) -> float | None:
    """The lowest raw score a row needs to be among the ``limit`` best (ties included).

    ``counts`` are ``(raw score, rows)``; ranking is on :func:`rounded` scores, and
    rows scoring 0 are left out. The floor is lowered by a billionth so that the same
    sums read again cannot miss by their last bit (rows above it are ranked again, so
    a few more than needed change nothing). ``None`` for a negative ``limit``
    (Python's ``rows[:limit]``: no floor), ``0.0`` when nothing ranks. An engine uses
    it to read only the rows that can rank.

    Examples
    --------
    >>> score_floor([(3.0, 1), (2.0000001, 5), (1.0, 9)], 2)
    2.0000000979999997
    >>> score_floor([(0.0, 4)], 10)
    0.0
    """
    if limit < 0:
        return None
    per_rounded: dict[float, list] = {}
    for score, n in counts:
        r = rounded(score)
        if r > 0:
            entry = per_rounded.setdefault(r, [0, score])
            entry[0] += n
            entry[1] = min(entry[1], score)
    floor, need = 0.0, limit
    for r in sorted(per_rounded, reverse=True):
        if need <= 0:
            break
        n, lowest = per_rounded[r]
        floor, need = lowest - abs(lowest) * 1e-9, need - n
    return floor
