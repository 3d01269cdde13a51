"""Phrases found in token sequences: a small index of token-string tuples.

:func:`~extractors.consolidate.propagate` matches every accepted term form of a corpus in
every text. spaCy's ``PhraseMatcher`` does that with a trie of hash maps in C, which
holds ~1.4 KB per form (107 MB for the 77,718 forms of 5,000 recombined papers) and
needs each text as a ``Doc`` (whose words all go into the vocabulary: 21 MB more). A dict
from the forms' token tuples, looked up at the positions where some form starts, gives the
same matches from the texts' words alone: 28 MB with its tokenizer and vocabulary against
128 MB (bench/README.md). The pipeline's concept matcher
(:class:`~extractors.components.ConceptMatcher`) matches its terms with it too, for the same
reason (its ``PhraseMatcher`` objects grew ~3.3 KB per added paper of a corpus).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence


class PhraseIndex:
    """Token sequences (tuples of strings), each with the keys it stands for.

    Examples
    --------
    >>> index = PhraseIndex()
    >>> index.add("gnn", [("graph", "neural", "network"), ("gnn",)])
    >>> index.add("graph", [("graph",)])
    >>> index.find(["a", "graph", "neural", "network", "gnn"])
    [('graph', 1, 2), ('gnn', 1, 4), ('gnn', 4, 5)]

    ``order`` gives the keys of one sequence another order than the one they were added in:

    >>> index = PhraseIndex(order=sorted)
    >>> index.add("b", [("x",)])
    >>> index.add("a", [("x",)])
    >>> index.find(["x"])
    [('a', 0, 1), ('b', 0, 1)]
    """

    def __init__(self, order: Callable[[list[str]], list[str]] | None = None) -> None:
        #: each sequence's keys, in the order :meth:`find` gives them: the key itself where
        #: a sequence has one (most have: a one-item list each was ~60 bytes a form, 7 MB
        #: of propagation's matchers at 5,000 papers), a list where it has several
        self.keys: dict[tuple[str, ...], str | list[str]] = {}
        #: the lengths of the sequences that start with each word, ascending
        self.lengths: dict[str, list[int]] = {}
        self._words: dict[str, str] = {}  # one string object per word
        self._order = order
        #: the keys of a sequence that has several, as added, when ``order`` reorders them
        #: (its result may depend on the order of adding, not only on the keys)
        self._added: dict[tuple[str, ...], list[str]] = {}

    def __len__(self) -> int:
        return len(self.keys)

    def add(self, key: str, sequences: Iterable[Sequence[str]]) -> None:
        """Let each of ``sequences`` stand for ``key`` (empty ones are ignored)."""
        for seq in sequences:
            if not seq:
                continue
            words = tuple(self._words.setdefault(w, w) for w in seq)
            keys = self.keys.get(words)
            if keys is None:
                self.keys[words] = key
            elif isinstance(keys, str) and keys != key:
                # its second key; a first key has no order to be given: kept from here
                if self._order is None:
                    self.keys[words] = [keys, key]
                else:
                    self._added[words] = [keys, key]
                    self.keys[words] = self._order([keys, key])
            elif not isinstance(keys, str) and key not in keys:
                if self._order is None:
                    keys.append(key)
                else:
                    added = self._added[words]
                    added.append(key)
                    self.keys[words] = self._order(list(added))
            lengths = self.lengths.setdefault(words[0], [])
            if len(words) not in lengths:
                lengths.append(len(words))
                lengths.sort()

    def find(self, words: Sequence[str]) -> list[tuple[str, int, int]]:
        """Every ``(key, start, end)`` whose sequence is ``words[start:end]``: overlapping
        and nested ones too, by start, then end, then the order of the keys (as added,
        or as ``order`` gave them)."""
        out = []
        n = len(words)
        for i, word in enumerate(words):
            lengths = self.lengths.get(word)
            if lengths is None:
                continue
            for length in lengths:
                if i + length > n:
                    break
                keys = self.keys.get(tuple(words[i:i + length]))
                if keys is None:
                    continue
                if isinstance(keys, str):
                    out.append((keys, i, i + length))
                else:
                    out.extend((key, i, i + length) for key in keys)
        return out
