"""The Cypher engine: answers fetched from a Bolt server (Neo4j 5, or the local ArcadeDB).

:class:`CypherEngine` takes a :class:`kg.stores.bolt.BoltGraph` (see
:func:`kg.stores.bolt.connect`, or the graph served from a build folder).
User text never enters a query: it is resolved over the concepts read from
the server once per connection, and ids travel as parameters.

Each pattern starts from a node looked up by id (``UNWIND $ids … {id: …}``),
which ArcadeDB needs to use its index: 0.25 s instead of 35 s for the 822
concepts under "machine learning" in NeurIPS 2018. The property-graph schema
is described in ``docs/property-graph.md``.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

from kg.core.model import Concept, RelationEdge
from kg.core.salience import MENTION_WEIGHT
from kg.stores import bolt
from queries.concept_table import ConceptTable
from queries.engine import Link, PaperLink, Profile

__all__ = ["CypherEngine"]

_CONCEPTS = """
MATCH (c:Concept)
OPTIONAL MATCH (c)-[:BROADER]->(b:Concept)
RETURN c.id AS id, c.label AS label, c.type AS type, c.aliases AS aliases,
       c.hidden AS hidden, collect(b.id) AS broader
"""

_PAPER = """
MATCH (p:Paper {id: $id})
RETURN p.title AS title, p.year AS year, p.venue AS venue, p.url AS url,
       p.abstract AS abstract
"""

_TITLES = """
UNWIND $ids AS pid
MATCH (p:Paper {id: pid})
RETURN p.id AS id, p.title AS title
"""

_CONCEPT_LINKS = """
UNWIND $ids AS cid
MATCH (c:Concept {id: cid})<-[m:MENTIONS]-(p:Paper)
RETURN p.id AS paper, c.id AS concept, m.count AS n, m.first AS first,
       m.evidence[0] AS evidence, p.title AS title, p.year AS year, p.venue AS venue
"""

_PAPER_LINKS = """
MATCH (:Paper {id: $id})-[m:MENTIONS]->(c:Concept)
RETURN c.id AS id, m.count AS n, m.first AS first, m.evidence AS evidence
"""

_PAPERS_OF = """
UNWIND $ids AS cid
MATCH (c:Concept {id: cid})<-[:MENTIONS]-(p:Paper)
RETURN c.id AS id, collect(p.id) AS ids
"""

_CONCEPTS_OF = """
UNWIND $ids AS pid
MATCH (p:Paper {id: pid})-[:MENTIONS]->(c:Concept)
RETURN p.id AS id, collect(c.id) AS ids
"""

_SENTENCES = """
UNWIND $pairs AS s
MATCH (p:Paper {id: s.paper})-[m:MENTIONS]->(c:Concept {id: s.concept})
RETURN p.id AS p, c.id AS c, m.evidence AS evidence
"""

_PROFILE = """
UNWIND $ids AS cid
MATCH (c:Concept {id: cid})<-[m:MENTIONS]-(p:Paper)
RETURN p.id AS p, c.id AS c, m.count AS n, coalesce(m.title, 0) AS t
"""

_IDF = """
UNWIND $ids AS cid
MATCH (c:Concept {id: cid})
WHERE c.papers > 0
RETURN c.id AS id, c.idf AS idf
"""

_RELATED = """
MATCH (p:Paper {id: $id})-[a:MENTIONS]->(c:Concept)<-[b:MENTIONS]-(q:Paper)
WHERE q.id <> $id
RETURN q.id AS id,
       sum(c.idf * (CASE WHEN a.about THEN 1.0 ELSE $w END)
                 * (CASE WHEN b.about THEN 1.0 ELSE $w END)) AS score
"""

_SALIENCE_OF_CONCEPTS = """
UNWIND $ids AS cid
MATCH (c:Concept {id: cid})<-[m:MENTIONS]-(p:Paper)
RETURN p.id AS p, c.id AS c, m.salience AS s, m.about AS a
"""

_SALIENCE_OF_PAPERS = """
UNWIND $ids AS pid
MATCH (p:Paper {id: pid})-[m:MENTIONS]->(c:Concept)
RETURN p.id AS p, c.id AS c, m.salience AS s, m.about AS a
"""

_COOCCURRENCE_COUNTS = """
UNWIND $ids AS cid
MATCH (:Concept {id: cid})<-[:MENTIONS]-(p:Paper)
WITH DISTINCT p
MATCH (p)-[:MENTIONS]->(d:Concept)
RETURN d.id AS id, count(p) AS n
"""

_COOCCURRENCE_PAPERS = """
UNWIND $ids AS cid
MATCH (:Concept {id: cid})<-[:MENTIONS]-(p:Paper)
WITH DISTINCT p
MATCH (p)-[:MENTIONS]->(d:Concept)
WHERE d.id IN $wanted
RETURN d.id AS id, collect(p.id) AS ids
"""


_PAPER_META = """
MATCH (p:Paper)
RETURN p.id AS id, p.year AS year, p.venue AS venue
"""

_PAPER_LIST = """
MATCH (p:Paper)
OPTIONAL MATCH (p)-[:MENTIONS]->(c:Concept)
RETURN p.id AS id, p.title AS title, p.year AS year, p.venue AS venue, count(c) AS n
"""

_PAPERS_WITH_TEXT = """
MATCH (p:Paper)
WHERE toLower(p.title) CONTAINS $needle OR toLower(p.abstract) CONTAINS $needle
RETURN p.id AS id, p.title AS title, p.abstract AS abstract
"""

#: every relation type as a relationship type pattern (fixed words, never user text)
_ANY_RELATION = "|".join(bolt.RELATIONSHIP_TYPES.values())
_RELATION_TYPE = {v: k for k, v in bolt.RELATIONSHIP_TYPES.items()}
_EDGE = ("RETURN type(r) AS type, h.id AS head, t.id AS tail, r.count AS count, "
         "r.papers AS papers, r.evidence AS evidence")

_RELATIONS_OUT = f"""
UNWIND $ids AS cid
MATCH (h:Concept {{id: cid}})-[r:{_ANY_RELATION}]->(t:Concept)
{_EDGE}
"""

_RELATIONS_IN = f"""
UNWIND $ids AS cid
MATCH (h:Concept)-[r:{_ANY_RELATION}]->(t:Concept {{id: cid}})
{_EDGE}
"""

# the head of a relation a paper states is a concept the paper mentions
_PAPER_RELATIONS = f"""
MATCH (:Paper {{id: $id}})-[:MENTIONS]->(h:Concept)-[r:{_ANY_RELATION}]->(t:Concept)
WHERE $id IN r.papers
{_EDGE}
"""


def _edge(r: dict, only: str | None = None) -> RelationEdge:
    """A relation edge from a row of ``_EDGE`` (with the evidence of the paper ``only``)."""
    evidence = dict(zip(r["papers"] or [], r["evidence"] or [], strict=True))
    if only is not None:
        evidence = {only: evidence[only]} if only in evidence else {}
    return RelationEdge(_RELATION_TYPE[r["type"]], r["head"], r["tail"], int(r["count"]),
                        dict(sorted(evidence.items())))


class CypherEngine:
    """The :class:`~queries.engine.Engine` of a Bolt graph.

    Examples
    --------
    >>> from kg.stores.bolt import connect
    >>> with connect("bolt://127.0.0.1:7687") as g:  # doctest: +SKIP
    ...     CypherEngine(g).totals()["papers"]
    19
    """

    name = "cypher"

    def __init__(self, graph: bolt.BoltGraph) -> None:
        self.graph = graph

    @classmethod
    def from_out(cls, out: Path) -> CypherEngine:
        """``$NEO4J_URI``'s server, else the local Bolt server of ``out``."""
        return cls(bolt.open_bolt_graph(out))

    def _run(self, query: str, **params: Any) -> list[dict]:
        return self.graph.run(query, params)

    def _neighbours(self, query: str, ids: Collection[str]) -> dict[str, set[str]]:
        if not ids:
            return {}
        return {r["id"]: set(r["ids"]) for r in self._run(query, ids=sorted(set(ids)))}

    def concept_table(self) -> ConceptTable:
        """Read once per connection (kept in the graph's cache)."""
        table = self.graph.cache.get("concepts")
        if table is None:
            table = self.graph.cache["concepts"] = ConceptTable({
                r["id"]: Concept(r["id"], r["label"], r["type"] or "concept",
                                 aliases=list(r["aliases"] or []), broader=sorted(r["broader"]),
                                 hidden_labels=list(r["hidden"] or []))
                for r in self._run(_CONCEPTS)})
        return table

    def paper_ids(self) -> list[str]:
        return sorted(r["id"] for r in self._run("MATCH (p:Paper) RETURN p.id AS id"))

    def paper_record(self, paper_id: str) -> dict[str, Any] | None:
        found = self._run(_PAPER, id=paper_id)
        return found[0] if found else None

    def titles(self, paper_ids: Collection[str]) -> dict[str, str]:
        if not paper_ids:
            return {}
        return {r["id"]: r["title"] for r in self._run(_TITLES, ids=sorted(set(paper_ids)))}

    def totals(self) -> dict[str, int]:
        return {
            "papers": self._run("MATCH (p:Paper) RETURN count(p) AS n")[0]["n"],
            "concepts": self._run("MATCH (c:Concept) RETURN count(c) AS n")[0]["n"],
            "mentions": self._run("MATCH (:Paper)-[m:MENTIONS]->(:Concept) "
                                  "RETURN coalesce(sum(m.count), 0) AS n")[0]["n"],
        }

    def paper_counts(self) -> dict[str, int]:
        return {r["id"]: r["n"] for r in self._run(
            "MATCH (c:Concept) WHERE c.papers IS NOT NULL RETURN c.id AS id, c.papers AS n")}

    def paper_meta(self) -> dict[str, tuple[int | None, str | None]]:
        return {r["id"]: (None if r["year"] is None else int(r["year"]), r["venue"])
                for r in self._run(_PAPER_META)}

    def paper_list(self) -> list[tuple[str, str, int | None, str | None, int]]:
        return sorted((r["id"], r["title"], None if r["year"] is None else int(r["year"]),
                       r["venue"], r["n"]) for r in self._run(_PAPER_LIST))

    def papers_with_text(self, needle: str) -> dict[str, tuple[str, str]]:
        return {r["id"]: (r["title"], r["abstract"] or "")
                for r in self._run(_PAPERS_WITH_TEXT, needle=needle)}

    def concept_links(
        self, concept_ids: Collection[str]
    ) -> tuple[list[Link], dict[str, dict[str, Any]]]:
        links, meta = [], {}
        for r in self._run(_CONCEPT_LINKS, ids=sorted(set(concept_ids))):
            links.append(Link(r["paper"], r["concept"], r["n"], r["first"], r["evidence"]))
            meta[r["paper"]] = {"title": r["title"], "year": r["year"], "venue": r["venue"]}
        return links, meta

    def paper_links(self, paper_id: str) -> list[PaperLink]:
        return [PaperLink(r["id"], r["n"], r["first"], list(r["evidence"] or []))
                for r in self._run(_PAPER_LINKS, id=paper_id)]

    def papers_of(self, concept_ids: Collection[str]) -> dict[str, set[str]]:
        return self._neighbours(_PAPERS_OF, concept_ids)

    def paper_concepts(self, paper_ids: Collection[str]) -> dict[str, set[str]]:
        return self._neighbours(_CONCEPTS_OF, paper_ids)

    def sentences(self, pairs: Collection[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
        if not pairs:
            return {}
        rows = self._run(_SENTENCES, pairs=[{"paper": p, "concept": c}
                                            for p, c in sorted(set(pairs))])
        return {(r["p"], r["c"]): list(r["evidence"]) for r in rows if r["evidence"]}

    def profile(self, concept_ids: Collection[str]) -> Profile:
        out: Profile = {}
        for r in self._run(_PROFILE, ids=sorted(set(concept_ids))):
            out.setdefault(r["p"], {})[r["c"]] = (int(r["n"]), int(r["t"]) > 0)
        return out

    def idf(self, concept_ids: Collection[str]) -> dict[str, float]:
        if not concept_ids:
            return {}
        return {r["id"]: float(r["idf"]) for r in self._run(_IDF, ids=sorted(set(concept_ids)))}

    def salience(self, concept_ids: Collection[str] = (),
                 paper_ids: Collection[str] = ()) -> dict[tuple[str, str], tuple[float, bool]]:
        out: dict[tuple[str, str], tuple[float, bool]] = {}
        for query, ids in ((_SALIENCE_OF_CONCEPTS, concept_ids), (_SALIENCE_OF_PAPERS, paper_ids)):
            if ids:
                for r in self._run(query, ids=sorted(set(ids))):
                    out[(r["p"], r["c"])] = (float(r["s"] or 0.0), bool(r["a"]))
        return out

    def related_scores(self, paper_id: str, limit: int) -> list[tuple[str, float]]:
        return [(r["id"], float(r["score"]))
                for r in self._run(_RELATED, id=paper_id, w=MENTION_WEIGHT)]

    def cooccurrence_counts(self, anchor_ids: Collection[str]) -> dict[str, int]:
        return {r["id"]: r["n"] for r in self._run(_COOCCURRENCE_COUNTS,
                                                    ids=sorted(set(anchor_ids)))}

    def cooccurrence_papers(
        self, anchor_ids: Collection[str], concept_ids: Collection[str]
    ) -> dict[str, set[str]]:
        return {r["id"]: set(r["ids"]) for r in self._run(
            _COOCCURRENCE_PAPERS, ids=sorted(set(anchor_ids)), wanted=sorted(set(concept_ids)))}

    def relation_edges(self, concept_ids: Collection[str]) -> list[RelationEdge]:
        ids = sorted(set(concept_ids))
        if not ids:
            return []
        edges: dict[tuple[str, str, str], RelationEdge] = {}
        for query in (_RELATIONS_OUT, _RELATIONS_IN):
            for r in self._run(query, ids=ids):
                e = _edge(r)
                edges[(e.type, e.head, e.tail)] = e
        return [edges[k] for k in sorted(edges)]

    def paper_relations(self, paper_id: str) -> list[RelationEdge]:
        return [_edge(r, paper_id) for r in self._run(_PAPER_RELATIONS, id=paper_id)]
