"""An immutable set of ids held as one sorted tuple.

A model's :attr:`~kg.core.model.KnowledgeGraph.concept_papers` holds, for each concept, the
papers that mention it: ~2 million (concept, paper) pairs at 100,000 papers. As built-in
sets (a hash table each, 216 bytes at least) they were ~70 MB, the last rise of a build's
peak (issue 17); as sorted tuples they are 8 bytes an id and 40 a concept. Membership is
by bisection (a few comparisons: concepts are in few papers), iteration is in id order,
and the set operators (``&``, ``|``, ``-``, ``^``, comparisons) work with built-in sets
either way round and give built-in sets.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Set

__all__ = ["SortedIds"]


class SortedIds(Set[str]):
    """The distinct strings of ``items``, in sorted order.

    Examples
    --------
    >>> ids = SortedIds(["p2", "p1", "p2"])
    >>> len(ids), "p1" in ids, "p3" in ids, list(ids)
    (2, True, False, ['p1', 'p2'])
    >>> ids & {"p2", "p9"}, {"p9"} | ids == {"p1", "p2", "p9"}, ids == {"p1", "p2"}
    ({'p2'}, True, True)
    """

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[str] = ()) -> None:
        self._items = tuple(sorted(set(items)))

    def __contains__(self, item: object) -> bool:
        items = self._items
        if not isinstance(item, str):
            return False
        i = bisect_left(items, item)
        return i < len(items) and items[i] == item

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __and__(self, other: object) -> set[str]:
        if not isinstance(other, Iterable):
            return NotImplemented
        if isinstance(other, (set, frozenset, dict)) and len(other) > len(self._items):
            # the smaller side is walked, as for built-in sets: a concept's few papers
            # against the many shown on a page
            return {x for x in self._items if x in other}
        return {x for x in other if x in self}

    __rand__ = __and__

    def __repr__(self) -> str:
        return f"SortedIds({list(self._items)!r})"

    def __reduce__(self) -> tuple[type[SortedIds], tuple[tuple[str, ...]]]:
        return (SortedIds, (self._items,))

    @classmethod
    def _from_iterable(cls, items: Iterable[str]) -> set[str]:  # type: ignore[override]
        # what the operators give: a built-in set, as they would for built-in sets
        return set(items)
