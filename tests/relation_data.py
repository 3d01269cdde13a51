"""Relations made by hand for tests of the relation graph (before a relation extractor runs).

:func:`with_relations` states one relation between each two neighbouring mentions of one
sentence, the types taken in turn, so every engine, store and page has relation edges to show.
"""

from __future__ import annotations

from dataclasses import replace

from extractors.relation_links import link_relations
from kg.core.model import RELATION_TYPES, KnowledgeGraph, Relation


def made_relations(kg: KnowledgeGraph) -> list[Relation]:
    """Span-level relations (no concepts yet) between neighbouring mentions of a sentence, and
    one whose tail is no mention (it must stay out of the graph's edges)."""
    out: list[Relation] = []
    for pid in sorted(kg.mentions_by_paper):
        ms = kg.mentions_by_paper[pid]
        for a, b in zip(ms, ms[1:], strict=False):
            if a.sentence != b.sentence or a.field != b.field or a.concept == b.concept:
                continue
            rtype = RELATION_TYPES[len(out) % len(RELATION_TYPES)]
            out.append(Relation(pid, rtype, a.field, a.start, a.end, a.text, b.start, b.end,
                                b.text, a.sentence, "hand", 0.5))
    if out:
        first = out[0]
        out.append(replace(first, type="part-of", tail_start=first.head_end,
                           tail_end=first.head_end, tail_text=""))
    return out


def with_relations(kg: KnowledgeGraph) -> KnowledgeGraph:
    """A copy of ``kg`` with :func:`made_relations`, linked to its concepts."""
    return KnowledgeGraph(papers=kg.papers, concepts=kg.concepts, mentions=kg.mentions,
                          relations=link_relations(made_relations(kg), kg.mentions, kg.concepts))
