"""The plain-Python engine: questions answered from the in-memory model.

This is the reference implementation: the SPARQL and Cypher engines must give
the same answers in the same order.
"""

from __future__ import annotations

from kg.errors import Messages, NotFoundError
from kg.model import KnowledgeGraph
from queries.resolve import resolve_concept, suggestions


def papers_for_concept(kg: KnowledgeGraph, text: str, *, narrower: bool = True) -> list[dict]:
    """Papers that mention the concept named ``text`` (or, by default, a narrower one).

    Ordered by the number of matching mentions (most first), then paper id.
    Each row says why: the matched concepts and the first evidence sentence.

    Examples
    --------
    >>> from kg.model import Concept, KnowledgeGraph, Mention, Paper
    >>> kg = KnowledgeGraph(
    ...     papers={"p": Paper("p", "On GNNs", "GNNs work.")},
    ...     concepts={"gnn": Concept("gnn", "graph neural network", aliases=["GNN"])},
    ...     mentions=[Mention("p", "gnn", "abstract", 0, 4, "GNNs", "GNNs work.", "acronym")])
    >>> [r["id"] for r in papers_for_concept(kg, "graph neural networks")]
    ['p']
    """
    concept = resolve_concept(kg, text)
    wanted = kg.descendants(concept.id) if narrower else {concept.id}
    rows: dict[str, dict] = {}
    for m in kg.mentions:
        if m.concept not in wanted:
            continue
        row = rows.get(m.paper)
        if row is None:
            p = kg.papers[m.paper]
            row = rows[m.paper] = {
                "id": p.id, "title": p.title, "year": p.year, "venue": p.venue,
                "mentions": 0, "concepts": [], "evidence": m.sentence,
            }
        row["mentions"] += 1
        label = kg.concepts[m.concept].label
        if label not in row["concepts"]:
            row["concepts"].append(label)
    for row in rows.values():
        row["concepts"].sort()
    return sorted(rows.values(), key=lambda r: (-r["mentions"], r["id"]))


def concepts(kg: KnowledgeGraph, *, type: str | None = None) -> list[dict]:  # noqa: A002
    """Concepts with their paper counts, most papers first, then label."""
    rows = []
    for c in kg.concepts.values():
        if type and c.type != type:
            continue
        rows.append({
            "id": c.id, "label": c.label, "type": c.type,
            "papers": len(kg.concept_papers.get(c.id, ())),
            "aliases": sorted(set(c.aliases)),
            "broader": [kg.concepts[b].label for b in sorted(c.broader) if b in kg.concepts],
        })
    return sorted(rows, key=lambda r: (-r["papers"], r["label"].lower(), r["id"]))


def paper(kg: KnowledgeGraph, paper_id: str) -> dict:
    """One paper with its concepts, each with its mention count and evidence sentences."""
    p = kg.papers.get(paper_id)
    if p is None:
        near = suggestions(paper_id, sorted(kg.papers))
        hint = f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""
        raise NotFoundError(Messages.NO_PAPER.format(id=paper_id, hint=hint))
    by_concept: dict[str, dict] = {}
    for m in kg.mentions_by_paper.get(paper_id, []):
        c = kg.concepts[m.concept]
        row = by_concept.setdefault(c.id, {
            "id": c.id, "label": c.label, "type": c.type, "mentions": 0, "evidence": [],
        })
        row["mentions"] += 1
        if m.sentence not in row["evidence"]:
            row["evidence"].append(m.sentence)
    return {
        "id": p.id, "title": p.title, "year": p.year, "venue": p.venue, "url": p.url,
        "abstract": p.abstract,
        "concepts": sorted(by_concept.values(), key=lambda r: (-r["mentions"], r["label"])),
    }
