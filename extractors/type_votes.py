"""The type votes of a corpus's concepts: how often its mentions were said to be each type.

Resolution counts, for every concept it gives a candidate term, the type the span model or a
pattern said each mention had; the concept's type is voted from them (and the termhood
filter retypes accepted datasets with them). A ``Counter`` per concept took ~250 bytes, for
~3 concepts a paper, most of them candidate terms rejected later: the largest thing
resolution kept per paper after the mentions (issue 17). :class:`TypeVotes` keeps each
concept's votes as one integer, a 32-bit count per type packed side by side.

Examples
--------
>>> votes = TypeVotes()
>>> votes.add("gnn", "method"); votes.add("gnn", "method"); votes.add("gnn", "task")
>>> votes["gnn"]
Counter({'method': 2, 'task': 1})
>>> votes["rl"] = Counter({"": 1, "method": 4})
>>> sorted(votes), "bert" in votes, votes.get("bert")
(['gnn', 'rl'], False, None)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, MutableMapping

__all__ = ["TypeVotes"]

_BITS = 32
_MASK = (1 << _BITS) - 1


class TypeVotes(MutableMapping[str, Counter[str]]):
    """Concept id → its type votes, as a mapping of ``Counter`` made when read.

    A ``Counter`` read from it is a copy: change a concept's votes with :meth:`add` or by
    setting them (``votes[cid] = votes[cid] + more``).
    """

    __slots__ = ("_packed", "_names", "_codes")

    def __init__(self) -> None:
        self._packed: dict[str, int] = {}
        self._names: list[str] = []
        self._codes: dict[str, int] = {}

    def _shift(self, vote: str) -> int:
        code = self._codes.get(vote)
        if code is None:
            code = self._codes[vote] = len(self._names)
            self._names.append(vote)
        return code * _BITS

    def add(self, concept: str, vote: str, n: int = 1) -> None:
        """Count ``n`` more votes for type ``vote`` (``""``: none said) of ``concept``."""
        if not 0 <= n <= _MASK:
            raise ValueError(f"a vote count is 0 to {_MASK}, not {n}")
        shift = self._shift(vote)
        packed = self._packed.get(concept, 0)
        if (packed >> shift & _MASK) + n > _MASK:
            raise OverflowError(f"more than {_MASK} votes for {vote!r} of {concept!r}")
        self._packed[concept] = packed + (n << shift)

    def __getitem__(self, concept: str) -> Counter[str]:
        packed = self._packed[concept]
        out: Counter[str] = Counter()
        for code, name in enumerate(self._names):
            n = packed >> (code * _BITS) & _MASK
            if n:
                out[name] = n
        return out

    def __setitem__(self, concept: str, votes: Counter[str]) -> None:
        self._packed.pop(concept, None)
        for vote, n in votes.items():
            self.add(concept, vote, n)
        self._packed.setdefault(concept, 0)

    def __delitem__(self, concept: str) -> None:
        del self._packed[concept]

    def __contains__(self, concept: object) -> bool:
        return concept in self._packed

    def __iter__(self) -> Iterator[str]:
        return iter(self._packed)

    def __len__(self) -> int:
        return len(self._packed)
