"""Relations between spans → relations between concepts: which kept concept each argument is.

A relation extractor states "span A used-for span B" in one sentence; the graph needs
"concept X used-for concept Y". Each argument span is given the concept of the kept mention
(same paper, same field) that covers it best:

1. a mention that contains the span (the shortest one: the most specific), else
2. a mention inside the span (the longest; then the rightmost, since an English noun
   phrase ends in its head: "scalable GNN training" → *training*), else
3. a mention that overlaps the span's end (the head word again: "differentially private
   algorithm" is no mention of *differential privacy*), the one sharing most characters.

Ties go to the earlier mention, then the smaller concept id, so the result does not depend
on the order mentions come in. A relation whose arguments are not both concepts, or are the
same concept, keeps ``head_concept``/``tail_concept`` ``None``: it stays extraction output
and is no edge of the graph (:attr:`kg.core.model.KnowledgeGraph.relation_edges`).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from functools import partial

from extractors.intervals import Intervals
from extractors.relation_file import Relations
from kg.core.model import Concept, KnowledgeGraph, Mention, Relation, sorted_relations

__all__ = ["FieldMentions", "link_graph", "link_relations", "link_sorted"]


class FieldMentions:
    """The kept mentions of one field of one paper, asked which one covers a span.

    Examples
    --------
    >>> ms = [Mention("p", "gnn", "abstract", 4, 8, "GNNs", "", "acronym"),
    ...       Mention("p", "node-classification", "abstract", 13, 32, "node classification",
    ...               "", "lexicon")]
    >>> spans = FieldMentions(ms)
    >>> spans.concept(0, 8), spans.concept(13, 37), spans.concept(40, 45)
    ('gnn', 'node-classification', None)
    """

    def __init__(self, mentions: Iterable[Mention]) -> None:
        self._mentions = sorted(mentions, key=lambda m: (m.start, m.end, m.concept))
        self._starts = [m.start for m in self._mentions]
        self._longest = max((m.end - m.start for m in self._mentions), default=0)
        self._spans = Intervals((m.start, m.end) for m in self._mentions if m.start < m.end)

    def concept(self, start: int, end: int) -> str | None:
        """The concept of the mention that covers ``start:end`` best, or ``None``."""
        if start >= end or not self._spans.overlaps(start, end):
            return None
        # a mention overlapping start:end starts before end, and at most the longest
        # mention's length before start
        lo = bisect.bisect_left(self._starts, start - self._longest)
        hi = bisect.bisect_left(self._starts, end)
        best: tuple | None = None
        for i in range(lo, hi):
            m = self._mentions[i]
            if m.end <= start:
                continue
            if m.start <= start and end <= m.end:  # contains the span
                rank: tuple = (0, m.end - m.start, 0)
            elif start <= m.start and m.end <= end:  # inside the span
                rank = (1, -(m.end - m.start), -m.end)
            elif m.start < end <= m.end:  # holds the span's last character
                rank = (2, -(end - max(start, m.start)), 0)
            else:
                continue
            rank += (m.start, m.concept)
            if best is None or rank < best[0]:
                best = (rank, m.concept)
        return None if best is None else best[1]


def link_relations(relations: Iterable[Relation], mentions: Iterable[Mention],
                   concepts: dict[str, Concept]) -> list[Relation]:
    """``relations`` with the concepts of their arguments, in :func:`sorted_relations` order.

    ``mentions`` are the kept mentions and ``concepts`` the kept concepts of the graph.
    Every relation comes back; one whose arguments are not two different kept concepts
    has ``head_concept`` and ``tail_concept`` ``None``.

    Examples
    --------
    >>> s = "GNNs are used for node classification."
    >>> ms = [Mention("p", "gnn", "abstract", 0, 4, "GNNs", s, "acronym"),
    ...       Mention("p", "nc", "abstract", 18, 37, "node classification", s, "lexicon")]
    >>> cs = {"gnn": Concept("gnn", "graph neural network"),
    ...       "nc": Concept("nc", "node classification")}
    >>> r = Relation("p", "used-for", "abstract", 0, 4, "GNNs", 18, 37, "node classification",
    ...              s, "model")
    >>> [(x.head_concept, x.tail_concept) for x in link_relations([r], ms, cs)]
    [('gnn', 'nc')]
    """
    return list(link_sorted(sorted_relations(relations), list(mentions), concepts))


def link_sorted(relations: Iterable[Relation], mentions: Sequence[Mention],
                concepts: dict[str, Concept]) -> Iterator[Relation]:
    """:func:`link_relations` of ``relations`` that are in :func:`sorted_relations` order
    already, one at a time as they come (a stream read off disk: nothing is held but the
    mentions of the field at hand).

    Mentions sorted as :func:`~kg.core.model.sorted_mentions` sorts them (a build's) are
    walked along with the relations; others are grouped by field first.
    """
    of_field = _FieldRuns(mentions, concepts)
    where: tuple[str, str] | None = None
    spans = FieldMentions(())
    for r in relations:
        if (r.paper, r.field) != where:
            # a field's relations come together: its mentions are needed once
            where = (r.paper, r.field)
            spans = FieldMentions(of_field.mentions(*where))
        head = spans.concept(r.head_start, r.head_end)
        tail = spans.concept(r.tail_start, r.tail_end)
        if head is None or tail is None or head == tail:
            head = tail = None
        if (head, tail) != (r.head_concept, r.tail_concept):
            r = replace(r, head_concept=head, tail_concept=tail)
        yield r


def _order(paper: str, field: str) -> tuple[str, bool]:
    """Where a field's mentions and relations are in their sorted orders."""
    return paper, field != "title"


class _FieldRuns:
    """The kept mentions of each field, asked for in (paper, title first) order."""

    def __init__(self, mentions: Sequence[Mention], concepts: dict[str, Concept]) -> None:
        self._mentions, self._concepts = mentions, concepts
        self._at = 0  # the first mention not before the field last asked for
        self._by_field: dict[tuple[str, str], list[Mention]] | None = None
        # sorted by field (a build's mentions): walked along with the fields asked for
        last: tuple[str, bool] | None = None
        for m in mentions:
            key = _order(m.paper, m.field)
            if last is not None and key < last:
                break
            last = key
        else:
            return
        # not grouped by field in that order: grouped here instead
        by_field: dict[tuple[str, str], list[Mention]] = defaultdict(list)
        for m in mentions:
            if m.concept in concepts:
                by_field[(m.paper, m.field)].append(m)
        self._by_field = by_field

    def mentions(self, paper: str, field: str) -> list[Mention]:
        """The kept mentions of ``paper``'s ``field``, in the order of the mentions given
        (fields asked for in (paper, title first) order when they were sorted)."""
        if self._by_field is not None:
            return self._by_field.get((paper, field), [])
        ms, key = self._mentions, _order(paper, field)
        while self._at < len(ms):
            first = ms[self._at]  # (read once: a table's row is made at each read)
            if _order(first.paper, first.field) >= key:
                break
            self._at += 1
        out = []
        for k in range(self._at, len(ms)):
            m = ms[k]
            if _order(m.paper, m.field) != key:
                break
            if m.field == field and m.concept in self._concepts:
                out.append(m)
        return out


def link_graph(graph: KnowledgeGraph) -> KnowledgeGraph:
    """``graph`` with its relations linked to its concepts (:func:`link_relations`), in place.

    Call it before anything reads the graph's relation views (they are cached). Relations
    read off disk (:class:`~extractors.relation_file.Relations`, a build's) stay there: they
    are linked once, a text at a time, into a file of their own, with no list of them.
    """
    if isinstance(graph.relations, Relations):
        graph.relations = graph.relations.linked_once(
            partial(link_sorted, mentions=graph.mentions, concepts=graph.concepts))
    else:
        graph.relations = link_relations(graph.relations, graph.mentions, graph.concepts)
    for cached in ("relation_edges", "relations_by_paper"):
        graph.__dict__.pop(cached, None)
    return graph
