"""The bridges question (:mod:`queries.bridges`) asked of the RDF store in SPARQL.

Only what the answer needs is fetched: the paper links (``kgv:ConceptLink``:
mention and title counts, first evidence) of the two topics' concepts, the
concepts of the papers on each side (when connectors are looked for), idf
values, titles and evidence sentences of the rows shown. The concepts come
from the engine's cached table (read once per read-only store,
:mod:`queries.sparql_cache`).
Ids travel as IRIs written by :mod:`kg.stores.sparql_terms`; user text is
resolved in Python over the store's concepts and never reaches a query.
"""

from __future__ import annotations

from collections.abc import Collection

from kg.stores.sparql_terms import values
from queries.bridges import Fetcher, Profile, answer
from queries.sparql import (
    Source,
    _cid,
    _concept_iris,
    _link_count,
    _links,
    _lookup,
    _numbered,
    _paper_iris,
    _pid,
    _table,
    _tuples,
    connect,
    select,
)

__all__ = ["bridges", "fetcher"]


def fetcher(src: Source) -> Fetcher:
    """The :class:`~queries.bridges.Fetcher` of a store (or an ``OUT`` folder)."""
    store = connect(src)

    def profile(members: Collection[str]) -> Profile:
        if not members:
            return {}
        ids = sorted(set(members))
        n_links, n_papers = _link_count(store, ids)
        scan = n_links * 10 > n_papers  # a large share of the links: scan and hash-join
        out: Profile = {}
        # a link's IRI is its paper's + "/concept/…" (docs/rdf-model.md): no kgv:linkPaper;
        # its concept comes back as a number
        for link, i, n, t in _tuples(store, f"""
            SELECT ?l ?i ?n ?t WHERE {{
              {{ {_numbered("c", "i", _concept_iris(ids))} ?l kgv:linkConcept ?c }}
              {_lookup("l", "kgv:mentionCount", "n", scan)}
              {_lookup("l", "kgv:titleMentions", "t", scan)} }}"""):
            out.setdefault(_pid(link.rpartition("/concept/")[0]), {})[ids[i]] = \
                (int(n), int(t) > 0)
        return out

    def idf(ids: Collection[str]) -> dict[str, float]:
        if not ids:
            return {}
        return {_cid(r["c"]): float(r["idf"]) for r in select(store, f"""
            SELECT ?c ?idf WHERE {{ {values("c", _concept_iris(ids))}
              ?c kgv:idf ?idf ; kgv:paperCount ?n . FILTER(?n > 0) }}""")}

    def links(ids: Collection[str], *, from_concepts: bool) -> dict[str, set[str]]:
        return dict(_links(store, ids, from_concepts=from_concepts))

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

    table = _table(store)
    return Fetcher(
        concepts=table.kg, profile=profile, idf=idf,
        paper_concepts=lambda ids: links(ids, from_concepts=False),
        papers_of=lambda ids: links(ids, from_concepts=True), titles=titles,
        evidence=evidence, index=table.index)


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
