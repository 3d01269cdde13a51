"""Relations between two spans of one sentence, in SciERC's seven types.

Candidate arguments are picked by the relation model's argument model
(:mod:`extractors.relation_args`) among the text's own candidate spans: the span model's
terms (its Generic spans too: "our method is used for X" is a relation in SciERC),
pronouns ("it is used for X"), parts of the span model's terms and noun-phrase-like runs
of words. Without it (or without a relation model) they are the span model's terms and
the pipeline's mentions where no model term overlaps them (:func:`candidates`). Every
pair of candidates in one sentence is read by the statistical relation model
(:mod:`extractors.relation_model`, when its weights are installed) and, for adjacent
pairs, by the pattern layer (:mod:`extractors.relation_patterns`).

Examples
--------
>>> text = "We use a CRF model for named entity recognition."
>>> spans = [(9, 18, "method"), (23, 47, "task")]
>>> [(r.type, r.head_text, r.tail_text) for r in
...  find_relations("p", "abstract", text, [(0, len(text))], spans, model=None)]
[('used-for', 'CRF model', 'named entity recognition')]
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

from extractors.relation_patterns import match_between
from kg.core.model import Relation

__all__ = [
    "Candidate",
    "PATTERN_SCORE",
    "WORD",
    "candidates",
    "find_relations",
    "pattern_pairs",
    "sentence_candidates",
    "sorted_relations",
    "words",
]

#: The score of a relation that only the pattern layer found.
PATTERN_SCORE = 0.9
#: A word or a punctuation mark (relation features and patterns read text as these).
WORD = re.compile(r"\w+(?:[-'.]\w+)*|[^\w\s]")


@dataclass(frozen=True, order=True)
class Candidate:
    """A span that can be a relation's argument: character offsets in its field and a type."""

    start: int
    end: int
    type: str


def candidates(model: Iterable[tuple[int, int, str]],
               mentions: Iterable[tuple[int, int, str]] = ()) -> list[Candidate]:
    """The span model's terms, plus the mentions that overlap none of them, in text order.

    >>> [c.start for c in candidates([(0, 5, "method")], [(2, 4, "task"), (6, 9, "task")])]
    [0, 6]
    """
    found = sorted({Candidate(a, b, t) for a, b, t in model if a < b})
    kept: list[Candidate] = []
    for c in found:  # the model predicts flat spans; keep the first of any clash
        if not kept or c.start >= kept[-1].end:
            kept.append(c)
    starts = [c.start for c in kept]
    extra = []
    for a, b, t in sorted(set(mentions)):
        i = bisect.bisect_left(starts, b)
        if a < b and not any(c.start < b and a < c.end for c in kept[max(0, i - 2):i + 1]) \
                and not any(e.start < b and a < e.end for e in extra[-1:]):
            extra.append(Candidate(a, b, t))
    return sorted(kept + extra)


def words(text: str) -> list[str]:
    """Lower-case word and punctuation tokens of ``text``.

    >>> words("X, such as Y-2")
    ['x', ',', 'such', 'as', 'y-2']
    """
    return [w.lower() for w in WORD.findall(text)]


def find_relations(paper: str, field: str, text: str, sents: list[tuple[int, int]],
                   spans: Iterable[tuple[int, int, str]],
                   mentions: Iterable[tuple[int, int, str]] = (), *,
                   model=None, patterns: bool = True) -> list[Relation]:
    """Relations between candidate spans of each sentence of one field.

    Parameters
    ----------
    paper, field : str
        Where ``text`` comes from.
    text : str
        The field's text exactly as read (offsets index it).
    sents : list of (int, int)
        The sentences' character bounds.
    spans : iterable of (start, end, type)
        The span model's terms (Generic ones included).
    mentions : iterable of (start, end, type)
        The pipeline's mentions, used where no model term overlaps them (unless the
        relation model has an argument model: then it picks the arguments).
    model : RelationModel, optional
        The statistical relation model; ``None`` uses the pattern layer only. When it
        carries an argument model (:mod:`extractors.relation_args`), the arguments are
        the spans that one picks among its own candidates of the text.
    patterns : bool
        Add the pattern layer's relations (the model's win where both speak).
    """
    arguments = getattr(model, "arguments", None)
    cands = arguments.arguments(text, spans) if arguments is not None \
        else candidates(spans, mentions)
    sentences = sentence_candidates(cands, sents)
    predicted = model.predict(text, sentences) if model is not None and sentences else []
    out: list[Relation] = []
    for s, (sa, sb, inside) in enumerate(sentences):
        found: dict[tuple[int, int], tuple[str, bool, float, str]] = {}
        if patterns:
            for pair, (kind, reverse) in pattern_pairs(text, sa, inside).items():
                found[pair] = (kind, reverse, PATTERN_SCORE, "pattern")
        if predicted:  # the model's word wins where both speak
            found.update(predicted[s])
        sentence = text[sa:sb].strip()
        for (i, j), (kind, reverse, score, source) in sorted(found.items()):
            head, tail = (inside[j], inside[i]) if reverse else (inside[i], inside[j])
            out.append(Relation(
                paper=paper, type=kind, field=field,
                head_start=head.start, head_end=head.end, head_text=text[head.start:head.end],
                tail_start=tail.start, tail_end=tail.end, tail_text=text[tail.start:tail.end],
                sentence=sentence, extractor=source, score=round(score, 3)))
    return out


def sentence_candidates(cands: list[Candidate], sents: list[tuple[int, int]]
                        ) -> list[tuple[int, int, list[Candidate]]]:
    """The sentences ``(start, end, candidates inside)`` with two candidates or more;
    ``cands`` in text order.

    >>> sentence_candidates([Candidate(0, 2, "x"), Candidate(3, 5, "x"), Candidate(9, 12, "x")],
    ...                     [(0, 8), (8, 20)])
    [(0, 8, [Candidate(start=0, end=2, type='x'), Candidate(start=3, end=5, type='x')])]
    """
    starts = [c.start for c in cands]
    out = []
    for sa, sb in sents:
        inside = cands[bisect.bisect_left(starts, sa):bisect.bisect_left(starts, sb)]
        inside = [c for c in inside if c.end <= sb]
        if len(inside) >= 2:
            out.append((sa, sb, inside))
    return out


def pattern_pairs(text: str, sent_start: int, inside: list[Candidate]
                  ) -> dict[tuple[int, int], tuple[str, bool]]:
    """The pattern layer's relations between adjacent candidates ``inside`` (in text order)
    of the sentence starting at ``sent_start``: ``(i, i + 1) -> (type, reversed)``.

    >>> text = "We use a CRF model for named entity recognition."
    >>> pattern_pairs(text, 0, [Candidate(9, 18, "method"), Candidate(23, 47, "task")])
    {(0, 1): ('used-for', False)}
    """
    out = {}
    for i in range(len(inside) - 1):
        first, second = inside[i], inside[i + 1]
        before = words(text[max(sent_start, first.start - 30):first.start])
        hit = match_between(" ".join(words(text[first.end:second.start])),
                            before[-1] if before else "")
        if hit is not None:
            out[(i, i + 1)] = hit
    return out


def sorted_relations(relations: Iterable[Relation]) -> list[Relation]:
    """Relations in a stable order: paper, field (title first), head, tail, type."""
    return sorted(relations, key=lambda r: (r.paper, r.field != "title", r.head_start,
                                            r.head_end, r.tail_start, r.tail_end, r.type))

