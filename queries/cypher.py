"""The Cypher engine: the questions of ``docs/queries.md`` asked of a Bolt server.

Every function takes a :class:`kg.stores.bolt.BoltGraph` (see :func:`kg.stores.bolt.connect`,
or :func:`kg.stores.bolt.local_graph` for the graph served from a build folder) and
returns the same rows, in the same order, as :mod:`queries.python`. User text
never enters a query: concept text is resolved to an id by the shared
resolver (:mod:`queries.resolve`) over the concepts read from the server, and
ids travel as parameters.

The property-graph schema is described in ``docs/property-graph.md``.
"""

from __future__ import annotations

from kg.core.errors import Messages, NotFoundError
from kg.core.model import Concept, KnowledgeGraph
from kg.stores.bolt import BoltGraph
from queries.python import SCORE_DIGITS
from queries.resolve import resolve_concept, suggestions

_CONCEPTS = """
MATCH (c:Concept)
OPTIONAL MATCH (c)-[:BROADER]->(b:Concept)
RETURN c.id AS id, c.label AS label, c.type AS type, c.aliases AS aliases,
       c.hidden AS hidden, collect(b.id) AS broader
"""

_PAPERS_FOR_CONCEPT = """
UNWIND $ids AS cid
MATCH (c:Concept {id: cid})<-[m:MENTIONS]-(p:Paper)
WITH p, sum(m.count) AS mentions, collect(DISTINCT c.label) AS concepts,
     min(m.first) AS first, collect([m.first, m.evidence[0]]) AS evidence
RETURN p.id AS id, p.title AS title, p.year AS year, p.venue AS venue, mentions, concepts,
       [e IN evidence WHERE e[0] = first][0][1] AS evidence
ORDER BY mentions DESC, id
"""

_PAPER = """
MATCH (p:Paper {id: $id})
RETURN p.id AS id, p.title AS title, p.year AS year, p.venue AS venue, p.url AS url,
       p.abstract AS abstract
"""

_PAPER_CONCEPTS = """
MATCH (:Paper {id: $id})-[m:MENTIONS]->(c:Concept)
RETURN c.id AS id, c.label AS label, c.type AS type, m.count AS mentions,
       m.evidence AS evidence
ORDER BY mentions DESC, label, m.first
"""

_RELATED = """
MATCH (p:Paper {id: $id})-[:MENTIONS]->(c:Concept)<-[:MENTIONS]-(q:Paper)
WHERE q.id <> $id
WITH q, round(sum(c.idf), $digits) AS score, collect(c.label) AS shared
WHERE score > 0
RETURN q.id AS id, q.title AS title, score, shared
ORDER BY score DESC, id
LIMIT $limit
"""

_COOCCURRING = """
UNWIND $ids AS cid
MATCH (:Concept {id: cid})<-[:MENTIONS]-(p:Paper)
WITH DISTINCT p
MATCH (p)-[:MENTIONS]->(d:Concept)
WHERE NOT d.id IN $ids
WITH d, collect(p.id) AS paper_ids
RETURN d.id AS id, d.label AS label, d.type AS type, size(paper_ids) AS papers, paper_ids
ORDER BY papers DESC, id
LIMIT $limit
"""

_PAPERS_OF = """
MATCH (p:Paper)-[:MENTIONS]->(c:Concept)
WHERE c.id IN $ids
RETURN c.id AS id, collect(p.id) AS ids
"""

_CONCEPTS_OF = """
MATCH (p:Paper)-[:MENTIONS]->(c:Concept)
WHERE p.id IN $ids
RETURN p.id AS id, collect(c.id) AS ids
"""

_PATH_DETAILS = """
UNWIND $steps AS s
MATCH (p:Paper {id: s.paper})-[m:MENTIONS]->(c:Concept {id: s.concept})
RETURN p.id AS paper, p.title AS title, c.id AS concept, c.label AS label,
       m.evidence AS evidence
"""

_STATS = """
MATCH (c:Concept)
RETURN c.type AS type, count(c) AS n
"""

_TOP = """
MATCH (c:Concept)
RETURN c.id AS id, c.label AS label, c.papers AS papers
ORDER BY papers DESC, id
LIMIT 10
"""


def concept_model(g: BoltGraph) -> KnowledgeGraph:
    """The concepts on the server (labels, aliases, hierarchy) as a model without papers.

    Read once per connection; used to resolve user text to concept ids.
    """
    kg = g.cache.get("concepts")
    if kg is None:
        concepts = {}
        for r in g.run(_CONCEPTS):
            concepts[r["id"]] = Concept(
                r["id"], r["label"], r["type"] or "concept", aliases=list(r["aliases"] or []),
                broader=sorted(r["broader"]), hidden_labels=list(r["hidden"] or []))
        kg = g.cache["concepts"] = KnowledgeGraph(concepts=concepts)
    return kg


def resolve(g: BoltGraph, text: str) -> Concept:
    """The concept that ``text`` names (label, alias, acronym; see :mod:`queries.resolve`)."""
    known = g.cache.setdefault("resolved", {})
    if text not in known:
        known[text] = resolve_concept(concept_model(g), text)
    return known[text]


def narrower_ids(g: BoltGraph, concept_id: str) -> list[str]:
    """``concept_id`` and every concept below it through ``BROADER`` links, sorted.

    The hierarchy is the one read from the server with the concepts
    (:func:`concept_model`), walked like :meth:`kg.core.model.KnowledgeGraph.descendants`.
    """
    return sorted(concept_model(g).descendants(concept_id))


def _no_paper(g: BoltGraph, paper_id: str) -> NotFoundError:
    ids = sorted(r["id"] for r in g.run("MATCH (p:Paper) RETURN p.id AS id"))
    near = suggestions(paper_id, ids)
    hint = f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""
    return NotFoundError(Messages.NO_PAPER.format(id=paper_id, hint=hint))


def papers_for_concept(g: BoltGraph, text: str, *, narrower: bool = True) -> list[dict]:
    """Papers that mention the concept named ``text`` (or, by default, a narrower one).

    Rows ``id, title, year, venue, mentions, concepts, evidence``, most mentions
    first, then by id — as :func:`queries.python.papers_for_concept`.

    Examples
    --------
    >>> from kg.stores.bolt import connect
    >>> with connect("bolt://127.0.0.1:7687") as g:  # doctest: +SKIP
    ...     [r["id"] for r in papers_for_concept(g, "GNNs")]
    ['neurips2026-abstracts-14', 'neurips2026-abstracts-18', 'neurips2026-abstracts-3']
    """
    concept = resolve(g, text)
    ids = narrower_ids(g, concept.id) if narrower else [concept.id]
    rows = g.run(_PAPERS_FOR_CONCEPT, {"ids": ids})
    for r in rows:
        r["concepts"] = sorted(r["concepts"])
    return rows


def paper(g: BoltGraph, paper_id: str) -> dict:
    """One paper with its concepts (``id, label, type, mentions, evidence``).

    Concepts are ordered by mentions (most first), then label.

    Examples
    --------
    >>> from kg.stores.bolt import connect
    >>> with connect("bolt://127.0.0.1:7687") as g:  # doctest: +SKIP
    ...     paper(g, "neurips2026-abstracts-11")["concepts"][0]["label"]
    'MinHash'
    """
    found = g.run(_PAPER, {"id": paper_id})
    if not found:
        raise _no_paper(g, paper_id)
    row = found[0]
    row["concepts"] = g.run(_PAPER_CONCEPTS, {"id": paper_id})
    return row


def related_papers(g: BoltGraph, paper_id: str, *, limit: int = 10) -> list[dict]:
    """Papers sharing concepts with ``paper_id``: ``id, title, score, shared``.

    The score is the sum of the shared concepts' stored ``idf``, rounded to 6
    decimals; best first, then by id.

    Examples
    --------
    >>> from kg.stores.bolt import connect
    >>> with connect("bolt://127.0.0.1:7687") as g:  # doctest: +SKIP
    ...     related_papers(g, "neurips2026-abstracts-3", limit=1)[0]["id"]
    'neurips2026-abstracts-18'
    """
    if not g.run("MATCH (p:Paper {id: $id}) RETURN p.id AS id", {"id": paper_id}):
        raise _no_paper(g, paper_id)
    rows = g.run(_RELATED, {"id": paper_id, "digits": SCORE_DIGITS, "limit": int(limit)})
    for r in rows:
        r["score"] = round(float(r["score"]), SCORE_DIGITS)
        r["shared"] = sorted(r["shared"])
    return rows


def cooccurring(g: BoltGraph, text: str, *, limit: int = 20) -> list[dict]:
    """Concepts mentioned by papers that mention ``text`` (or a narrower concept).

    Rows ``id, label, type, papers, paper_ids``: most papers first, then by id.

    Examples
    --------
    >>> from kg.stores.bolt import connect
    >>> with connect("bolt://127.0.0.1:7687") as g:  # doctest: +SKIP
    ...     cooccurring(g, "MinHash", limit=1)[0]["papers"]
    1
    """
    concept = resolve(g, text)
    rows = g.run(_COOCCURRING, {"ids": narrower_ids(g, concept.id), "limit": int(limit)})
    for r in rows:
        r["paper_ids"] = sorted(r["paper_ids"])
    return rows


def _neighbours(g: BoltGraph, query: str):
    def fetch(ids: list[str]) -> dict[str, list[str]]:
        return {r["id"]: r["ids"] for r in g.run(query, {"ids": list(ids)})}
    return fetch


def concept_path(g: BoltGraph, a: str, b: str) -> list[dict]:
    """The shortest path between two concepts through papers (see :mod:`queries.paths`).

    One row per paper step: ``step, from, from_label, paper, title, to, to_label,
    evidence_from, evidence_to``.

    Raises
    ------
    NotFoundError
        When a concept is unknown or no path links them.

    Examples
    --------
    >>> from kg.stores.bolt import connect
    >>> with connect("bolt://127.0.0.1:7687") as g:  # doctest: +SKIP
    ...     [r["paper"] for r in concept_path(g, "MinHash", "GNNs")][:1]
    ['neurips2026-abstracts-11']
    """
    from queries.paths import path_rows, shortest_path

    ca, cb = resolve(g, a), resolve(g, b)
    path = shortest_path(ca.id, cb.id, _neighbours(g, _PAPERS_OF), _neighbours(g, _CONCEPTS_OF))
    if path is None:
        raise NotFoundError(Messages.NO_PATH.format(a=ca.label, b=cb.label))
    steps = [{"paper": path[i], "concept": path[j]}
             for i in range(1, len(path), 2) for j in (i - 1, i + 1)]
    labels = {ca.id: ca.label, cb.id: cb.label}
    titles, evidence = {}, {}
    for r in g.run(_PATH_DETAILS, {"steps": steps}):
        labels[r["concept"]] = r["label"]
        titles[r["paper"]] = r["title"]
        evidence[(r["paper"], r["concept"])] = list(r["evidence"] or [])
    return path_rows(path, labels=labels, titles=titles, evidence=evidence)


def stats(g: BoltGraph) -> dict:
    """Counts of papers, concepts and mentions, concepts per type, top 10 concepts by papers.

    Examples
    --------
    >>> from kg.stores.bolt import connect
    >>> with connect("bolt://127.0.0.1:7687") as g:  # doctest: +SKIP
    ...     stats(g)["papers"]
    19
    """
    papers = g.run("MATCH (p:Paper) RETURN count(p) AS n")[0]["n"]
    concepts = g.run("MATCH (c:Concept) RETURN count(c) AS n")[0]["n"]
    mentions = g.run("MATCH (:Paper)-[m:MENTIONS]->(:Concept) "
                     "RETURN coalesce(sum(m.count), 0) AS n")[0]["n"]
    by_type = {r["type"]: r["n"] for r in g.run(_STATS)}
    return {
        "papers": papers, "concepts": concepts, "mentions": mentions,
        "by_type": dict(sorted(by_type.items())),
        "top_concepts": g.run(_TOP),
    }
