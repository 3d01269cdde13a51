"""The bridges question (:mod:`queries.bridges`) asked of a Bolt server in Cypher.

Only what the answer needs is fetched, by id (indexed look-ups, ids as
parameters; each pattern starts from the node looked up by id, which ArcadeDB
needs to use its index: 0.25 s instead of 35 s for the 822 concepts under
"machine learning" in NeurIPS 2018): the ``MENTIONS`` of the two topics'
concepts (``count`` and ``title``), the concepts of the papers on each side (when connectors are
looked for), idf values, titles and the first evidence sentence of the rows
shown. Concept text is resolved over the concepts read from the server once
per connection (:func:`queries.cypher.concept_model`).
"""

from __future__ import annotations

from collections.abc import Collection

from kg.stores.bolt import BoltGraph
from queries.bridges import Fetcher, Profile, answer
from queries.cypher import concept_model

__all__ = ["bridges", "fetcher"]

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

_CONCEPTS_OF = """
UNWIND $ids AS pid
MATCH (p:Paper {id: pid})-[:MENTIONS]->(c:Concept)
RETURN p.id AS id, collect(c.id) AS ids
"""

_PAPERS_OF = """
UNWIND $ids AS cid
MATCH (c:Concept {id: cid})<-[:MENTIONS]-(p:Paper)
RETURN c.id AS id, collect(p.id) AS ids
"""

_TITLES = """
UNWIND $ids AS pid
MATCH (p:Paper {id: pid})
RETURN p.id AS id, p.title AS title
"""

_EVIDENCE = """
UNWIND $pairs AS s
MATCH (p:Paper {id: s.paper})-[m:MENTIONS]->(c:Concept {id: s.concept})
RETURN p.id AS p, c.id AS c, m.evidence[0] AS sentence
"""


def fetcher(g: BoltGraph) -> Fetcher:
    """The :class:`~queries.bridges.Fetcher` of a Bolt graph."""

    def profile(members: Collection[str]) -> Profile:
        out: Profile = {}
        for r in g.run(_PROFILE, {"ids": sorted(members)}):
            out.setdefault(r["p"], {})[r["c"]] = (int(r["n"]), int(r["t"]) > 0)
        return out

    def neighbours(query: str):
        def fetch(ids: Collection[str]) -> dict[str, set[str]]:
            if not ids:
                return {}
            return {r["id"]: set(r["ids"]) for r in g.run(query, {"ids": sorted(ids)})}
        return fetch

    def evidence(pairs: Collection[tuple[str, str]]) -> dict[tuple[str, str], str]:
        rows = g.run(_EVIDENCE, {"pairs": [{"paper": p, "concept": c}
                                           for p, c in sorted(set(pairs))]})
        return {(r["p"], r["c"]): r["sentence"] for r in rows if r["sentence"] is not None}

    return Fetcher(
        concepts=concept_model(g), profile=profile,
        idf=lambda ids: {r["id"]: float(r["idf"])
                         for r in g.run(_IDF, {"ids": sorted(ids)})} if ids else {},
        paper_concepts=neighbours(_CONCEPTS_OF), papers_of=neighbours(_PAPERS_OF),
        titles=lambda ids: {r["id"]: r["title"] for r in g.run(_TITLES, {"ids": sorted(ids)})},
        evidence=evidence)


def bridges(g: BoltGraph, a: str, b: str, *, limit: int = 10, min_direct: int = 3) -> dict:
    """Papers that connect topic ``a`` with topic ``b``, and why (Cypher engine).

    Same answer as :func:`queries.bridges.bridges`.

    Examples
    --------
    >>> from kg.stores.bolt import connect
    >>> with connect("bolt://127.0.0.1:7687") as g:  # doctest: +SKIP
    ...     bridges(g, "GNNs", "large language models")["bridges"][0]["id"]
    'neurips2026-abstracts-14'
    """
    return answer(fetcher(g), a, b, limit=limit, min_direct=min_direct)
