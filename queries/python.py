"""The plain-Python engine: questions answered from the in-memory model.

This is the reference implementation: the SPARQL and Cypher engines must give
the same answers in the same order.
"""

from __future__ import annotations

from kg.core.errors import Messages, NotFoundError
from kg.core.model import KnowledgeGraph
from queries.resolve import resolve_concept, suggestions


def papers_for_concept(kg: KnowledgeGraph, text: str, *, narrower: bool = True) -> list[dict]:
    """Papers that mention the concept named ``text`` (or, by default, a narrower one).

    Ordered by the number of matching mentions (most first), then paper id.
    Each row says why: the matched concepts and the first evidence sentence.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
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


# -- helpers shared by the engines' contract (docs/queries.md) -------------------------------

#: scores are rounded to this many decimals before ordering (docs/queries.md)
SCORE_DIGITS = 6


def _require_paper(kg: KnowledgeGraph, paper_id: str):
    p = kg.papers.get(paper_id)
    if p is None:
        near = suggestions(paper_id, sorted(kg.papers))
        hint = f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""
        raise NotFoundError(Messages.NO_PAPER.format(id=paper_id, hint=hint))
    return p


def related_papers(kg: KnowledgeGraph, paper_id: str, *, limit: int = 10) -> list[dict]:
    """Papers that share concepts with ``paper_id``, rare shared concepts weighing more.

    The score is the sum of the shared concepts' idf (direct mentions only),
    rounded to 6 decimals; papers with score 0 are left out.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, c, c + ".", "lexicon")
    >>> kg = KnowledgeGraph(papers={p: Paper(p, p.upper(), "x") for p in "abc"},
    ...     concepts={c: Concept(c, c) for c in ("gnn", "dl")},
    ...     mentions=[m("a", "gnn"), m("a", "dl"), m("b", "gnn"), m("b", "dl"), m("c", "dl")])
    >>> [(r["id"], r["score"], r["shared"]) for r in related_papers(kg, "a")]
    [('b', 0.405465, ['dl', 'gnn'])]

    ("dl" is in every paper: idf 0, so "c" scores 0 and is left out.)
    """
    _require_paper(kg, paper_id)
    scores: dict[str, float] = {}
    shared: dict[str, list[str]] = {}
    for cid in sorted(kg.paper_concepts.get(paper_id, ())):
        idf = kg.idf(cid)
        for other in kg.concept_papers.get(cid, ()):
            if other != paper_id:
                scores[other] = scores.get(other, 0.0) + idf
                shared.setdefault(other, []).append(kg.concepts[cid].label)
    rows = [{"id": o, "title": kg.papers[o].title, "score": round(s, SCORE_DIGITS),
             "shared": sorted(shared[o])} for o, s in scores.items()]
    rows = [r for r in rows if r["score"] > 0]
    rows.sort(key=lambda r: (-r["score"], r["id"]))
    return rows[:limit]


def cooccurring(kg: KnowledgeGraph, text: str, *, limit: int = 20) -> list[dict]:
    """Concepts mentioned by the papers that mention the concept ``text`` (or a narrower one).

    The concept and its narrower concepts (the anchors) are left out; rows are
    ordered by the number of such papers (most first), then concept id.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, c, c + ".", "lexicon")
    >>> kg = KnowledgeGraph(papers={p: Paper(p, p, "x") for p in "ab"},
    ...     concepts={c: Concept(c, c) for c in ("gnn", "calibration", "llm")},
    ...     mentions=[m("a", "gnn"), m("a", "calibration"), m("b", "gnn"), m("b", "llm"),
    ...               m("b", "calibration")])
    >>> [(r["id"], r["papers"]) for r in cooccurring(kg, "gnn")]
    [('calibration', 2), ('llm', 1)]
    """
    anchors = kg.descendants(resolve_concept(kg, text).id)
    papers = set()
    for a in anchors:
        papers |= kg.concept_papers.get(a, set())
    found: dict[str, list[str]] = {}
    for p in papers:
        for d in kg.paper_concepts.get(p, ()):
            if d not in anchors:
                found.setdefault(d, []).append(p)
    rows = [{"id": d, "label": kg.concepts[d].label, "type": kg.concepts[d].type,
             "papers": len(ps), "paper_ids": sorted(ps)} for d, ps in found.items()]
    rows.sort(key=lambda r: (-r["papers"], r["id"]))
    return rows[:limit]


def concept_path(kg: KnowledgeGraph, a: str, b: str) -> list[dict]:
    """The shortest path from concept ``a`` to concept ``b`` through papers.

    One row per paper step (see :func:`queries.paths.path_rows`); an empty
    list when ``a`` and ``b`` name the same concept.

    Raises
    ------
    NotFoundError
        When a concept is unknown or no path links them.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> m = lambda p, c: Mention(p, c, "abstract", 0, 1, c, p + " uses " + c, "lexicon")
    >>> kg = KnowledgeGraph(papers={p: Paper(p, p, "x") for p in ("p1", "p2")},
    ...     concepts={c: Concept(c, c) for c in ("x", "y", "z")},
    ...     mentions=[m("p1", "x"), m("p1", "y"), m("p2", "y"), m("p2", "z")])
    >>> [(r["from"], r["paper"], r["to"]) for r in concept_path(kg, "x", "z")]
    [('x', 'p1', 'y'), ('y', 'p2', 'z')]
    """
    from queries.paths import path_rows, shortest_path

    ca, cb = resolve_concept(kg, a), resolve_concept(kg, b)
    path = shortest_path(
        ca.id, cb.id,
        lambda ids: {i: kg.concept_papers.get(i, set()) for i in ids},
        lambda ids: {i: set(kg.paper_concepts.get(i, ())) for i in ids})
    if path is None:
        raise NotFoundError(Messages.NO_PATH.format(a=ca.label, b=cb.label))
    evidence: dict[tuple[str, str], list[str]] = {}
    for i in range(1, len(path), 2):
        for m in kg.mentions_by_paper.get(path[i], []):
            if m.concept in (path[i - 1], path[i + 1]):
                sentences = evidence.setdefault((m.paper, m.concept), [])
                if m.sentence not in sentences:
                    sentences.append(m.sentence)
    return path_rows(path, labels={c: kg.concepts[c].label for c in path[::2]},
                     titles={p: kg.papers[p].title for p in path[1::2]}, evidence=evidence)


def stats(kg: KnowledgeGraph) -> dict:
    """Corpus statistics: counts, concepts per type, the 10 concepts with most papers.

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph
    >>> stats(KnowledgeGraph())["papers"]
    0
    """
    by_type: dict[str, int] = {}
    for c in kg.concepts.values():
        by_type[c.type] = by_type.get(c.type, 0) + 1
    top = sorted((-len(kg.concept_papers.get(c, ())), c) for c in kg.concepts)[:10]
    return {
        "papers": len(kg.papers), "concepts": len(kg.concepts), "mentions": len(kg.mentions),
        "by_type": dict(sorted(by_type.items())),
        "top_concepts": [{"id": c, "label": kg.concepts[c].label, "papers": -n}
                         for n, c in top],
    }
