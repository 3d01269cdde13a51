"""The bridges question (:mod:`queries.bridges`) asked of the RDF store in SPARQL.

Only what the answer needs is fetched: the paper links (``kgv:ConceptLink``:
mention and title counts, first evidence) of the two topics' concepts, the
concepts of the papers on each side (when connectors are looked for), idf
values, titles and evidence sentences of the rows shown.
Ids travel as IRIs written by :mod:`queries.sparql_terms`; user text is
resolved in Python over the store's concepts and never reaches a query.
"""

from __future__ import annotations

from collections.abc import Collection

from queries.bridges import Fetcher, Profile, answer
from queries.sparql import (
    Source,
    _cid,
    _concept_iris,
    _links,
    _paper_iris,
    _pid,
    connect,
    load_concepts,
    select,
)
from queries.sparql_terms import values

__all__ = ["bridges", "fetcher"]


def fetcher(src: Source) -> Fetcher:
    """The :class:`~queries.bridges.Fetcher` of a store (or an ``OUT`` folder)."""
    from kg.model import KnowledgeGraph

    store = connect(src)

    def profile(members: Collection[str]) -> Profile:
        if not members:
            return {}
        out: Profile = {}
        for r in select(store, f"""
            SELECT ?p ?c ?n ?t WHERE {{ {values("c", _concept_iris(members))}
              ?l kgv:linkConcept ?c ; kgv:linkPaper ?p ; kgv:mentionCount ?n ;
                 kgv:titleMentions ?t . }}"""):
            out.setdefault(_pid(r["p"]), {})[_cid(r["c"])] = (int(r["n"]), int(r["t"]) > 0)
        return out

    def idf(ids: Collection[str]) -> dict[str, float]:
        if not ids:
            return {}
        return {_cid(r["c"]): float(r["idf"]) for r in select(store, f"""
            SELECT ?c ?idf WHERE {{ {values("c", _concept_iris(ids))}
              ?c kgv:idf ?idf ; kgv:paperCount ?n . FILTER(?n > 0) }}""")}

    def links(ids: Collection[str], *, from_concepts: bool) -> dict[str, set[str]]:
        return dict(_links(store, sorted(ids), from_concepts=from_concepts)) if ids else {}

    def titles(ids: Collection[str]) -> dict[str, str]:
        return {_pid(r["p"]): r["title"] for r in select(store, f"""
            SELECT ?p ?title WHERE {{ {values("p", _paper_iris(ids))}
              ?p dcterms:title ?title }}""")}

    def evidence(pairs: Collection[tuple[str, str]]) -> dict[tuple[str, str], str]:
        rows = " ".join(f"({p} {c})" for pid, cid in sorted(set(pairs))
                        for p in _paper_iris([pid]) for c in _concept_iris([cid]))
        return {(_pid(r["p"]), _cid(r["c"])): r["evidence"] for r in select(store, f"""
            SELECT ?p ?c ?evidence WHERE {{ VALUES (?p ?c) {{ {rows} }}
              ?l kgv:linkPaper ?p ; kgv:linkConcept ?c ; kgv:evidence ?evidence . }}""")}

    return Fetcher(
        concepts=KnowledgeGraph(concepts=load_concepts(store)), profile=profile, idf=idf,
        paper_concepts=lambda ids: links(ids, from_concepts=False),
        papers_of=lambda ids: links(ids, from_concepts=True), titles=titles,
        evidence=evidence)


def bridges(src: Source, a: str, b: str, *, limit: int = 10, min_direct: int = 3) -> dict:
    """Papers that connect topic ``a`` with topic ``b``, and why (SPARQL engine).

    Same answer as :func:`queries.bridges.bridges`.

    Examples
    --------
    >>> r = bridges("kg-out", "GNNs", "large language models")  # doctest: +SKIP
    >>> r["bridges"][0]["id"]  # doctest: +SKIP
    'neurips2026-abstracts-14'
    """
    return answer(fetcher(src), a, b, limit=limit, min_direct=min_direct)
