"""The questions of ``docs/queries.md``, each answered once for every engine.

Every function takes a *source* — an :class:`~queries.engine.Engine`, or what
:func:`queries.engines.engine_for` turns into one (a
:class:`~kg.core.model.KnowledgeGraph`, a :class:`pyoxigraph.Store`, a
:class:`~kg.stores.bolt.BoltGraph`, an ``OUT`` folder) — fetches what it needs
through the engine interface, and does the rest here: resolving the user's
text, narrower expansion, rounding, ties and ordering. So every engine returns
the same items in the same order.

Each row says why it is there: the concepts it matched, the evidence
sentence, the shared concepts.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from kg.core.errors import Messages, NotFoundError
from queries.engines import engine_for
from queries.paths import path_rows, shortest_path
from queries.ranking import rounded
from queries.topics import no_paper, resolve_concept

__all__ = ["concept_path", "concepts", "cooccurring", "paper", "papers_for_concept",
           "related_papers", "stats"]


def papers_for_concept(source: Any, text: str, *, narrower: bool = True) -> list[dict]:
    """Papers that mention the concept named ``text`` (or, by default, a narrower one).

    Rows ``id, title, year, venue, mentions, concepts, evidence``: the matched
    concepts' labels, and the sentence of the paper's first matching mention.
    Ordered by the number of matching mentions (most first), then paper id.

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
    engine = engine_for(source)
    table = engine.concept_table()
    concept = resolve_concept(table, text)
    ids = sorted(table.narrower(concept.id)) if narrower else [concept.id]
    links, meta = engine.concept_links(ids)
    rows: dict[str, dict] = {}
    first: dict[str, int] = {}
    for link in links:
        m = meta.get(link.paper)
        if m is None:  # a link without its paper's title: not a paper row
            continue
        row = rows.get(link.paper)
        if row is None:
            row = rows[link.paper] = {
                "id": link.paper, "title": m["title"], "year": m["year"], "venue": m["venue"],
                "mentions": 0, "concepts": set(), "evidence": link.evidence}
            first[link.paper] = link.first
        row["mentions"] += link.mentions
        row["concepts"].add(table.label(link.concept))
        if link.first < first[link.paper]:
            first[link.paper], row["evidence"] = link.first, link.evidence
    for row in rows.values():
        row["concepts"] = sorted(row["concepts"])
    return sorted(rows.values(), key=lambda r: (-r["mentions"], r["id"]))


def concepts(source: Any, *, type: str | None = None) -> list[dict]:  # noqa: A002
    """Concepts with their paper counts, most papers first, then label (then id).

    Rows ``id, label, type, papers, aliases, broader`` (broader concepts by label).

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph
    >>> kg = KnowledgeGraph(concepts={"gnn": Concept("gnn", "graph neural network",
    ...                                              type="method")})
    >>> [(r["label"], r["papers"]) for r in concepts(kg, type="method")]
    [('graph neural network', 0)]
    """
    engine = engine_for(source)
    table = engine.concept_table()
    counts = engine.paper_counts()
    rows = []
    for c in table.concepts.values():
        if type and c.type != type:
            continue
        rows.append({
            "id": c.id, "label": c.label, "type": c.type, "papers": counts.get(c.id, 0),
            "aliases": sorted(set(c.aliases)),
            "broader": [table.label(b) for b in sorted(c.broader) if b in table.concepts],
        })
    return sorted(rows, key=lambda r: (-r["papers"], r["label"].lower(), r["id"]))


def paper(source: Any, paper_id: str) -> dict:
    """One paper with its concepts, each with its mention count and evidence sentences.

    Concepts are ordered by mentions (most first), then label, then id.

    Raises
    ------
    NotFoundError
        For an unknown id, with the closest ids.

    Examples
    --------
    >>> from kg.core.model import Concept, KnowledgeGraph, Mention, Paper
    >>> kg = KnowledgeGraph(
    ...     papers={"p": Paper("p", "On GNNs", "GNNs work.")},
    ...     concepts={"gnn": Concept("gnn", "graph neural network", aliases=["GNN"])},
    ...     mentions=[Mention("p", "gnn", "abstract", 0, 4, "GNNs", "GNNs work.", "acronym")])
    >>> paper(kg, "p")["concepts"][0]["evidence"]
    ['GNNs work.']
    """
    engine = engine_for(source)
    record = engine.paper_record(paper_id)
    if record is None:
        raise no_paper(paper_id, engine.paper_ids)
    table = engine.concept_table()
    rows = [{"id": link.concept, "label": table.label(link.concept),
             "type": table.concepts[link.concept].type, "mentions": link.mentions,
             "evidence": list(link.sentences)}
            for link in engine.paper_links(paper_id) if link.concept in table.concepts]
    return {
        "id": paper_id, "title": record["title"], "year": record["year"],
        "venue": record["venue"], "url": record["url"], "abstract": record["abstract"],
        "concepts": sorted(rows, key=lambda r: (-r["mentions"], r["label"], r["id"])),
    }


def related_papers(source: Any, paper_id: str, *, limit: int = 10) -> list[dict]:
    """Papers that share concepts with ``paper_id``, rare shared concepts weighing more.

    The score is the sum of the shared concepts' idf (direct mentions only),
    rounded to 6 decimals; papers with score 0 are left out; best first, then by id.

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
    engine = engine_for(source)
    if engine.paper_record(paper_id) is None:
        raise no_paper(paper_id, engine.paper_ids)
    scored = [(rounded(score), other) for other, score in engine.related_scores(paper_id, limit)]
    ranked = sorted((t for t in scored if t[0] > 0), key=lambda t: (-t[0], t[1]))[:limit]
    if not ranked:
        return []
    others = [o for _, o in ranked]
    table = engine.concept_table()
    concepts_of = engine.paper_concepts([paper_id, *others])
    mine = concepts_of.get(paper_id, set())
    titles = engine.titles(others)
    return [{"id": o, "title": titles[o], "score": s,
             "shared": sorted(table.label(c) for c in mine & concepts_of.get(o, set())
                              if c in table.concepts)}
            for s, o in ranked]


def cooccurring(source: Any, text: str, *, limit: int = 20) -> list[dict]:
    """Concepts mentioned by the papers that mention the concept ``text`` (or a narrower one).

    The concept and its narrower concepts (the anchors) are left out; rows
    ``id, label, type, papers, paper_ids`` are ordered by the number of such
    papers (most first), then concept id.

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
    engine = engine_for(source)
    table = engine.concept_table()
    anchors = sorted(table.narrower(resolve_concept(table, text).id))
    counts = engine.cooccurrence_counts(anchors)
    ranked = sorted((d for d in counts if d not in set(anchors)),
                    key=lambda d: (-counts[d], d))[:limit]
    if not ranked:
        return []
    found = engine.cooccurrence_papers(anchors, ranked)
    return [{"id": d, "label": table.label(d), "type": table.concepts[d].type,
             "papers": len(found.get(d, ())), "paper_ids": sorted(found.get(d, ()))}
            for d in ranked]


def concept_path(source: Any, a: str, b: str) -> list[dict]:
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
    engine = engine_for(source)
    table = engine.concept_table()
    ca, cb = resolve_concept(table, a), resolve_concept(table, b)
    path = shortest_path(ca.id, cb.id, engine.papers_of, engine.paper_concepts)
    if path is None:
        raise NotFoundError(Messages.NO_PATH.format(a=ca.label, b=cb.label))
    if len(path) == 1:
        return []
    steps = [(path[i], path[j]) for i in range(1, len(path), 2) for j in (i - 1, i + 1)]
    return path_rows(path, labels={c: table.label(c) for c in path[::2]},
                     titles=engine.titles(path[1::2]), evidence=engine.sentences(steps))


def stats(source: Any) -> dict:
    """Corpus statistics: counts, concepts per type, the 10 concepts with most papers.

    Examples
    --------
    >>> from kg.core.model import KnowledgeGraph
    >>> stats(KnowledgeGraph())["papers"]
    0
    """
    engine = engine_for(source)
    table = engine.concept_table()
    totals = engine.totals()
    counts = engine.paper_counts()
    top = sorted(table.concepts, key=lambda c: (-counts.get(c, 0), c))[:10]
    return {
        "papers": totals["papers"], "concepts": totals["concepts"],
        "mentions": totals["mentions"],
        "by_type": dict(sorted(Counter(c.type for c in table.concepts.values()).items())),
        "top_concepts": [{"id": c, "label": table.label(c), "papers": counts.get(c, 0)}
                         for c in top],
    }
