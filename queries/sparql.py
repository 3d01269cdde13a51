"""The SPARQL engine: the questions of :mod:`queries.python` asked of the RDF store.

Every helper takes ``src``: a built ``OUT`` folder (its Oxigraph store is
opened read-only), a :class:`pyoxigraph.Store`, or an :class:`rdflib.Graph`
(for instance :func:`kg.stores.out.open_graph`, or a graph parsed from
``graph.ttl``). The graph work — following ``skos:broader``, joining papers,
mentions and concepts, counting and summing idf — is done in SPARQL; the
final rounding and ordering use the same Python keys as the reference
engine, so the engines agree to the last row (``docs/queries.md``).

User text never reaches a query: concept names are resolved in Python
(:func:`queries.resolve.resolve_concept` over the store's concepts) and ids
are written as IRIs with :func:`kg.stores.sparql_terms.iri`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import unquote

import pyoxigraph as ox
import rdflib

from kg.core.errors import Messages, NotFoundError, QueryError
from kg.core.model import Concept
from kg.core.vocab import CONCEPT_NS, PAPER_NS, PREFIXES, concept_iri, paper_iri, sparql_prefixes
from kg.stores.sparql_terms import iri, literal, values
from queries.python import SCORE_DIGITS
from queries.resolve import resolve_concept, suggestions
from queries.sparql_cache import ConceptTable, concept_table, open_out

__all__ = ["concept_path", "connect", "cooccurring", "paper", "papers_for_concept",
           "related_papers", "select", "stats"]

Source = str | Path | ox.Store | rdflib.Graph
_PREFIXES = sparql_prefixes()
_XSD = PREFIXES["xsd"]
_INTS = {_XSD + t for t in ("integer", "int", "long", "short", "nonNegativeInteger",
                             "positiveInteger", "gYear")}
_FLOATS = {_XSD + t for t in ("double", "float", "decimal")}


def connect(src: Source) -> ox.Store | rdflib.Graph:
    """The store behind ``src``: an ``OUT`` folder is opened read-only once."""
    if isinstance(src, (ox.Store, rdflib.Graph)):
        return src
    return open_out(Path(src))


def _py(term):
    """A pyoxigraph or rdflib term as a plain Python value (IRIs as str)."""
    kind = type(term)
    if kind is ox.NamedNode:
        return term.value
    if kind is ox.Literal:
        dt = term.datatype.value
        if dt in _INTS:
            return int(term.value)
        if dt in _FLOATS:
            return float(term.value)
        return term.value
    if term is None:
        return None
    if isinstance(term, rdflib.Literal):
        dt = str(term.datatype) if term.datatype else None
        if dt in _INTS:
            return int(str(term))
        if dt in _FLOATS:
            return float(str(term))
        return str(term)
    return str(term)


def select(src: Source, query: str) -> list[dict]:
    """Run a SELECT ``query`` (project prefixes predefined); rows as dicts of Python values.

    Examples
    --------
    >>> import pyoxigraph as ox
    >>> select(ox.Store(), "SELECT (1 + 1 AS ?two) WHERE {}")
    [{'two': 2}]
    """
    names, rows = _run(connect(src), query)
    return [dict(zip(names, row, strict=True)) for row in rows]


def _tuples(src: Source, query: str) -> list[tuple]:
    """Like :func:`select`, each row a tuple in the order of the SELECT clause (no dicts)."""
    return _run(connect(src), query)[1]


def _run(store, query: str) -> tuple[list[str], list[tuple]]:
    text = _PREFIXES + query
    try:
        if isinstance(store, ox.Store):
            res = store.query(text)
            return [v.value for v in res.variables], [tuple(map(_py, row)) for row in res]
        res = store.query(text)
        return [str(v) for v in res.vars], [tuple(map(_py, row)) for row in res]
    except SyntaxError as e:  # a bug in this module, not the user's: keep it loud
        raise QueryError(Messages.SPARQL_SYNTAX.format(detail=e)) from e


def _cid(value: str) -> str:
    local = value[len(CONCEPT_NS):]
    return unquote(local) if "%" in local else local


def _pid(value: str) -> str:
    local = value[len(PAPER_NS):]
    return unquote(local) if "%" in local else local


def _concept_iris(ids: Iterable[str]) -> list[str]:
    return [iri(concept_iri(i)) for i in sorted(set(ids))]


def _paper_iris(ids: Iterable[str]) -> list[str]:
    return [iri(paper_iri(i)) for i in sorted(set(ids))]


def _numbered(var: str, number: str, iris: list[str], *, text: bool = False) -> str:
    """``VALUES (?var ?number) { (iri 0) (iri 1) … }``: a row names its term by position.

    Oxigraph keeps IRIs and long strings in a table apart and reads that table (~2.5 µs
    on the 20,000-paper store) for every IRI a solution returns; a small integer or
    string (``text``, for ``GROUP_CONCAT``) is returned as it is. So rows that need only
    to say *which* of these terms they matched return its number.
    """
    rows = " ".join(f'({t} "{n}")' if text else f"({t} {n})" for n, t in enumerate(iris))
    return f"VALUES (?{var} ?{number}) {{ {rows} }}"


def load_concepts(src: Source) -> dict[str, Concept]:
    """Every concept of the store with its labels, type and broader concepts.

    Read once per read-only store (:mod:`queries.sparql_cache`): treat as read-only.
    """
    return _table(connect(src)).concepts


def _table(store) -> ConceptTable:
    return concept_table(store, _read_concepts)


def _read_concepts(src: Source) -> dict[str, Concept]:
    out: dict[str, Concept] = {}
    for r in select(src, """
        SELECT ?c ?label ?type WHERE {
          ?c a skos:Concept ; skos:prefLabel ?label . OPTIONAL { ?c kgv:conceptType ?type } }"""):
        cid = _cid(r["c"])
        out[cid] = Concept(cid, r["label"], type=r["type"] or "concept")
    for r in select(src, """
        SELECT ?c ?p ?v WHERE {
          VALUES ?p { skos:altLabel skos:hiddenLabel skos:broader } ?c ?p ?v }"""):
        c = out.get(_cid(r["c"]))
        if c is None:
            continue
        p, v = r["p"], r["v"]
        if p == PREFIXES["skos"] + "altLabel":
            c.aliases.append(v)
        elif p == PREFIXES["skos"] + "hiddenLabel":
            c.hidden_labels.append(v)
        elif p == PREFIXES["skos"] + "broader":
            c.broader.append(_cid(v))
    for c in out.values():
        c.aliases.sort()
        c.hidden_labels.sort()
        c.broader.sort()
    return out


def resolve(src: Source, text: str) -> Concept:
    """The concept that ``text`` names (label, alias, acronym or hidden label)."""
    table = _table(connect(src))
    return resolve_concept(table.kg, text, index=table.index)


def _paper_ids(store) -> list[str]:
    return sorted(r["id"] for r in select(store, "SELECT ?id WHERE { ?p a schema:ScholarlyArticle ;"
                                                 " dcterms:identifier ?id }"))


def _require_paper(store, paper_id: str) -> dict:
    rows = select(store, f"""
        SELECT ?title ?year ?venue ?url ?abstract WHERE {{ {values("p", _paper_iris([paper_id]))}
          ?p a schema:ScholarlyArticle ; dcterms:title ?title ; dcterms:abstract ?abstract .
          OPTIONAL {{ ?p dcterms:date ?year }} OPTIONAL {{ ?p kgv:venue ?venue }}
          OPTIONAL {{ ?p schema:url ?url }} }}""")
    if not rows:
        near = suggestions(paper_id, _paper_ids(store))
        hint = f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""
        raise NotFoundError(Messages.NO_PAPER.format(id=paper_id, hint=hint))
    return rows[0]


def _text_order(r: dict) -> tuple:
    """Mentions in text order: title before abstract, then offsets, then concept."""
    return (r["field"] != "title", r["start"], r["end"], r["cid"])


def papers_for_concept(src: Source, text: str, *, narrower: bool = True) -> list[dict]:
    """Papers that mention the concept named ``text`` (or, by default, a narrower one).

    Same rows and order as :func:`queries.python.papers_for_concept`.

    Examples
    --------
    >>> rows = papers_for_concept("kg-out", "GNNs")  # doctest: +SKIP
    >>> rows[0]["id"], rows[0]["mentions"]  # doctest: +SKIP
    ('neurips2026-abstracts-3', 4)
    """
    store = connect(src)
    table = _table(store)
    concept = resolve_concept(table.kg, text, index=table.index)
    ids = sorted(table.kg.descendants(concept.id)) if narrower else [concept.id]
    labels = [table.concepts[c].label for c in ids]
    anchor = values("c", _concept_iris(ids))
    n_links, n_papers = _link_count(store, ids)
    # one row per paper-concept link (kgv:ConceptLink), not one per mention; the IRI of its
    # first mention is its paper's IRI + "/mention/N" (docs/rdf-model.md), which saves reading
    # kgv:linkPaper or the link's own IRI; its concept comes back as a number (labels are in
    # the cached table)
    scan = n_links * 10 > n_papers  # a large share of the graph: scan and hash-join
    links_query = f"""
        SELECT ?first ?i ?n ?evidence WHERE {{
          {{ {_numbered("c", "i", _concept_iris(ids))} ?l kgv:linkConcept ?c }}
          {_lookup("l", "kgv:mentionCount", "n", scan)}
          {_lookup("l", "kgv:firstMention", "first", scan)}
          {_lookup("l", "kgv:evidence", "evidence", scan)} }}"""
    # paper metadata once per paper (not once per link)
    meta_scan = n_links * 30 > n_papers
    meta_query = f"""
        SELECT ?p ?title ?year ?venue WHERE {{
          {{ SELECT DISTINCT ?p WHERE {{ {anchor} ?p dcterms:subject ?c }} }}
          {_lookup("p", "dcterms:title", "title", meta_scan)}
          OPTIONAL {{ {_lookup("p", "dcterms:date", "year", meta_scan)} }}
          OPTIONAL {{ {_lookup("p", "kgv:venue", "venue", meta_scan)} }} }}"""
    links, meta_rows = _both(store, links_query, meta_query, parallel=scan)
    meta = {r[0]: r for r in meta_rows}
    out: dict[str, dict] = {}
    for first_iri, i, n, evidence in links:
        p, first = _mention_parts(first_iri)
        m = meta.get(p)
        if m is None:  # a link without its paper's title: not a paper row (as before)
            continue
        row = out.get(p)
        if row is None:
            out[p] = {"id": _pid(p), "title": m[1], "year": m[2], "venue": m[3],
                      "mentions": n, "concepts": [labels[i]],
                      "evidence": evidence, "_first": first}
            continue
        row["mentions"] += n
        row["concepts"].append(labels[i])
        if first < row["_first"]:
            row["_first"], row["evidence"] = first, evidence
    for row in out.values():
        del row["_first"]
        row["concepts"] = sorted(set(row["concepts"]))
    return sorted(out.values(), key=lambda r: (-r["mentions"], r["id"]))


def _both(store, first: str, second: str, *, parallel: bool) -> tuple[list, list]:
    """:func:`_tuples` of two independent queries; with ``parallel``, the second in a thread.

    Oxigraph evaluates without holding the GIL, so two large answers are read on two
    cores (a busy concept's papers: links and paper metadata at once).
    """
    if not (parallel and isinstance(store, ox.Store)):
        return _tuples(store, first), _tuples(store, second)
    with ThreadPoolExecutor(max_workers=1) as pool:
        later = pool.submit(_tuples, store, second)
        return _tuples(store, first), later.result()


def _link_count(store, ids: list[str]) -> tuple[int, int]:
    """How many links the concepts ``ids`` have, and how many papers the store has.

    Both come from counts the build stored (``kgv:paperCount``, the ``kgv:Dataset`` node);
    without the latter the paper count is 0 (so :func:`_lookup` never scans).
    """
    n = select(store, f"""SELECT (SUM(?n) AS ?links) WHERE {{ {values("c", _concept_iris(ids))}
        ?c kgv:paperCount ?n }}""")[0]["links"] or 0
    return int(n), _paper_total(store)


def _paper_total(store) -> int:
    """The papers of the store as the build counted them (``kgv:Dataset``), else 0."""
    total = select(store, "SELECT ?n WHERE { ?d a kgv:Dataset ; kgv:paperTotal ?n }")
    return int(total[0]["n"]) if total else 0


def _lookup(var: str, prop: str, out: str, scan: bool) -> str:
    """The pattern ``?var prop ?out``, either looked up per solution or scanned and hash-joined.

    Oxigraph looks a property up once per solution (~20 µs each on the 20,000-paper store);
    a subquery over every ``prop`` triple is joined by hash instead, which pays off when
    the solutions are a large share of the graph (``papers_for_concept`` on a common
    concept: 2× on the busiest one). Same solutions either way.
    """
    if scan:
        return f"{{ SELECT ?{var} ?{out} WHERE {{ ?{var} {prop} ?{out} }} }}"
    return f"?{var} {prop} ?{out} ."


def _mention_parts(mention_iri: str) -> tuple[str, int]:
    """The paper IRI and ``N`` of a mention IRI ``…/mention/N`` (numbered in text order)."""
    paper_iri, _, n = mention_iri.rpartition("/mention/")
    return paper_iri, int(n)


def paper(src: Source, paper_id: str) -> dict:
    """One paper with its concepts, each with its mention count and evidence sentences.

    Same result as :func:`queries.python.paper`.

    Examples
    --------
    >>> paper("kg-out", "neurips2026-abstracts-11")["concepts"][0]["label"]  # doctest: +SKIP
    'MinHash'
    """
    store = connect(src)
    meta = _require_paper(store, paper_id)
    rows = select(store, f"""
        SELECT ?c ?label ?type ?field ?start ?end ?sentence WHERE {{
          {values("p", _paper_iris([paper_id]))}
          ?m kgv:paper ?p ; kgv:concept ?c ; kgv:field ?field ; kgv:start ?start ;
             kgv:end ?end ; kgv:sentence ?sentence .
          ?c skos:prefLabel ?label . OPTIONAL {{ ?c kgv:conceptType ?type }} }}""")
    for r in rows:
        r["cid"] = _cid(r["c"])
    by_concept: dict[str, dict] = {}
    for r in sorted(rows, key=_text_order):
        row = by_concept.setdefault(r["cid"], {"id": r["cid"], "label": r["label"],
                                               "type": r["type"] or "concept", "mentions": 0,
                                               "evidence": []})
        row["mentions"] += 1
        if r["sentence"] not in row["evidence"]:
            row["evidence"].append(r["sentence"])
    return {
        "id": paper_id, "title": meta["title"], "year": meta["year"], "venue": meta["venue"],
        "url": meta["url"], "abstract": meta["abstract"],
        "concepts": sorted(by_concept.values(), key=lambda r: (-r["mentions"], r["label"],
                                                               r["id"])),
    }


def related_papers(src: Source, paper_id: str, *, limit: int = 10) -> list[dict]:
    """Papers sharing concepts with ``paper_id``, scored by the shared concepts' idf.

    Same rows and order as :func:`queries.python.related_papers`.

    Examples
    --------
    >>> [r["id"] for r in related_papers("kg-out", "neurips2026-abstracts-3")][:1]  # doctest: +SKIP
    ['neurips2026-abstracts-14']
    """
    store = connect(src)
    _require_paper(store, paper_id)
    me = values("p", _paper_iris([paper_id]))
    scored = f"""{{ SELECT ?o (SUM(?idf) AS ?score) WHERE {{ {me}
          ?p dcterms:subject ?c . ?o dcterms:subject ?c . ?c kgv:idf ?idf .
          FILTER(?o != ?p) }} GROUP BY ?o }}"""
    # A paper sharing a common concept has thousands of neighbours, and reading their IRIs
    # is most of the work: count the scores first, then read only the papers that can rank.
    floor = _score_floor(_tuples(store, f"""
        SELECT ?score (COUNT(*) AS ?n) WHERE {{ {scored} }} GROUP BY ?score"""), limit)
    if floor is not None and floor <= 0:
        return []
    above = "" if floor is None else \
        f"FILTER(?score >= {literal(repr(floor), datatype=_XSD + 'double')})"
    ranked = sorted(((round(score, SCORE_DIGITS), _pid(o)) for o, score in _tuples(store, f"""
        SELECT ?o ?score WHERE {{ {scored} {above} }}""")), key=lambda t: (-t[0], t[1]))
    ranked = [t for t in ranked if t[0] > 0][:limit]
    if not ranked:
        return []
    detail = _tuples(store, f"""
        SELECT ?o ?title ?c WHERE {{ {me} {values("o", _paper_iris(o for _, o in ranked))}
          ?o dcterms:title ?title . ?p dcterms:subject ?c . ?o dcterms:subject ?c . }}""")
    concepts = _table(store).concepts
    titles: dict[str, str] = {}
    shared: dict[str, list[str]] = defaultdict(list)
    for o_iri, title, c in detail:
        o = _pid(o_iri)
        titles[o] = title
        concept = concepts.get(_cid(c))
        if concept is not None:  # a concept without a label: none to show (as before)
            shared[o].append(concept.label)
    return [{"id": o, "title": titles[o], "score": s, "shared": sorted(shared[o])}
            for s, o in ranked]


def _score_floor(counts: Iterable[tuple[float, int]], limit: int) -> float | None:
    """The lowest raw score a paper needs to be among the ``limit`` best (ties included).

    ``counts`` are ``(raw score, papers)``; ranking is on scores rounded to
    ``SCORE_DIGITS``, and papers scoring 0 are left out. The floor is lowered by a
    billionth so that the same sums read again cannot miss by their last bit (papers
    above it are ranked in Python, so a few more than needed change nothing). ``None``
    for a negative ``limit`` (Python's ``rows[:limit]``: no floor), ``0.0`` when nothing
    ranks.

    Examples
    --------
    >>> _score_floor([(3.0, 1), (2.0000001, 5), (1.0, 9)], 2)
    2.0000000979999997
    >>> _score_floor([(0.0, 4)], 10)
    0.0
    """
    if limit < 0:
        return None
    per_rounded: dict[float, list] = {}
    for score, n in counts:
        rounded = round(score, SCORE_DIGITS)
        if rounded > 0:
            entry = per_rounded.setdefault(rounded, [0, score])
            entry[0] += n
            entry[1] = min(entry[1], score)
    floor, need = 0.0, limit
    for rounded in sorted(per_rounded, reverse=True):
        if need <= 0:
            break
        n, lowest = per_rounded[rounded]
        floor, need = lowest - abs(lowest) * 1e-9, need - n
    return floor


def cooccurring(src: Source, text: str, *, limit: int = 20) -> list[dict]:
    """Concepts mentioned by the papers that mention ``text`` (or a narrower concept).

    Same rows and order as :func:`queries.python.cooccurring`.

    Examples
    --------
    >>> [r["label"] for r in cooccurring("kg-out", "GNN")][:1]  # doctest: +SKIP
    ['calibration']
    """
    store = connect(src)
    table = _table(store)
    concepts = table.concepts
    concept = resolve_concept(table.kg, text, index=table.index)
    narrower = sorted(table.kg.descendants(concept.id))
    papers = f"""{{ SELECT DISTINCT ?p WHERE {{
        {values("a", _concept_iris(narrower))} ?p dcterms:subject ?a }} }}"""
    n_links, n_papers = _link_count(store, narrower)
    anchor_ids = set(narrower)
    found: dict[str, list[str]] = defaultdict(list)
    if n_links * 10 <= n_papers:  # a few papers: every (anchor paper, concept) link at once
        for p, d in _tuples(store, f"SELECT ?p ?d WHERE {{ {papers} ?p dcterms:subject ?d }}"):
            d = _cid(d)
            if d not in anchor_ids:
                found[d].append(_pid(p))
        return _cooccurring_rows(concepts, found, sorted(
            found, key=lambda d: (-len(found[d]), d))[:limit])
    # many: how many anchor papers mention each concept, counted in SPARQL (no paper IRI
    # read; a scan of dcterms:subject hash-joined with the papers) …
    counts = {_cid(d): n for d, n in _tuples(store, f"""
        SELECT ?d (COUNT(?p) AS ?n) WHERE {{
          {papers} {_lookup("p", "dcterms:subject", "d", True)} }} GROUP BY ?d""")}
    ranked = sorted((d for d in counts if d not in anchor_ids),
                    key=lambda d: (-counts[d], d))[:limit]
    if not ranked:
        return []
    # … then the anchor papers of the top concepts only, each paper once with their numbers
    top = sorted(ranked)
    for p, numbers in _tuples(store, f"""
        SELECT ?p (GROUP_CONCAT(?k) AS ?ks) WHERE {{ {papers}
          {{ {_numbered("d", "k", _concept_iris(top), text=True)} ?p dcterms:subject ?d }} }}
        GROUP BY ?p"""):
        pid = _pid(p)
        for k in numbers.split():
            found[top[int(k)]].append(pid)
    return _cooccurring_rows(concepts, found, ranked)


def _cooccurring_rows(concepts: dict[str, Concept], found: dict[str, list[str]],
                      ranked: list[str]) -> list[dict]:
    return [{"id": d, "label": concepts[d].label, "type": concepts[d].type,
             "papers": len(found[d]), "paper_ids": sorted(found[d])} for d in ranked]


def _links(store, ids: Iterable[str], *, from_concepts: bool) -> dict[str, set[str]]:
    """The papers of concepts ``ids`` (``from_concepts``), or the concepts of papers ``ids``.

    Each paper IRI is read once (grouped by paper), the ids asked for come back as numbers.
    For many papers, their links are scanned and only concepts of the cached table (those
    with a ``skos:prefLabel``: every concept of a store built by kg) are returned.
    """
    ids = sorted(set(ids))
    out: dict[str, set[str]] = defaultdict(set)
    if not ids:
        return out
    if from_concepts:
        for p, numbers in _tuples(store, f"""
            SELECT ?p (GROUP_CONCAT(?i) AS ?is) WHERE {{
              {_numbered("c", "i", _concept_iris(ids), text=True)} ?p dcterms:subject ?c }}
            GROUP BY ?p"""):
            pid = _pid(p)
            for i in numbers.split():
                out[ids[int(i)]].add(pid)
        return out
    papers = _numbered("p", "j", _paper_iris(ids))
    total = _paper_total(store)  # 0 when not stored: look up
    if len(ids) * 15 <= total or not total:  # a few papers: one lookup each (< ~1,300 on 20k)
        for j, c in _tuples(store, f"""
            SELECT ?j ?c WHERE {{ {papers} ?p dcterms:subject ?c }}"""):
            out[ids[j]].add(_cid(c))
        return out
    # many papers: every dcterms:subject link of the known concepts once (their concepts as
    # numbers), hash-joined with the papers, each paper once
    concepts = sorted(_table(store).concepts)
    for j, numbers in _tuples(store, f"""
        SELECT ?j (GROUP_CONCAT(?k) AS ?ks) WHERE {{ {{ {papers} }}
          {{ SELECT ?p ?k WHERE {{
            {_numbered("c", "k", _concept_iris(concepts), text=True)} ?p dcterms:subject ?c }} }} }}
        GROUP BY ?j"""):
        out[ids[j]].update(concepts[int(k)] for k in numbers.split())
    return out


def concept_path(src: Source, a: str, b: str) -> list[dict]:
    """The shortest path from concept ``a`` to concept ``b`` through papers.

    Same rows as :func:`queries.python.concept_path` (the search is
    :func:`queries.paths.shortest_path`, fed by SPARQL neighbour queries).

    Examples
    --------
    >>> [r["paper"] for r in concept_path("kg-out", "GNN", "calibration")]  # doctest: +SKIP
    ['neurips2026-abstracts-3']
    """
    from queries.paths import path_rows, shortest_path

    store = connect(src)
    concepts = load_concepts(store)
    ca, cb = resolve(store, a), resolve(store, b)
    path = shortest_path(ca.id, cb.id,
                         lambda ids: _links(store, ids, from_concepts=True),
                         lambda ids: _links(store, ids, from_concepts=False))
    if path is None:
        raise NotFoundError(Messages.NO_PATH.format(a=ca.label, b=cb.label))
    if len(path) == 1:
        return []
    steps = " ".join(f"({p} {c})" for i in range(1, len(path), 2)
                     for p in _paper_iris([path[i]])
                     for c in _concept_iris([path[i - 1], path[i + 1]]))
    rows = select(store, f"""
        SELECT ?p ?c ?title ?field ?start ?end ?sentence WHERE {{ VALUES (?p ?c) {{ {steps} }}
          ?p dcterms:title ?title .
          ?m kgv:paper ?p ; kgv:concept ?c ; kgv:field ?field ; kgv:start ?start ;
             kgv:end ?end ; kgv:sentence ?sentence . }}""")
    titles: dict[str, str] = {}
    evidence: dict[tuple[str, str], list[str]] = defaultdict(list)
    for r in rows:
        r["cid"] = _cid(r["c"])
    for r in sorted(rows, key=lambda r: (_pid(r["p"]),) + _text_order(r)):
        key = (_pid(r["p"]), r["cid"])
        titles[key[0]] = r["title"]
        if r["sentence"] not in evidence[key]:
            evidence[key].append(r["sentence"])
    return path_rows(path, labels={c: concepts[c].label for c in path[::2]}, titles=titles,
                     evidence=evidence)


def stats(src: Source) -> dict:
    """Corpus statistics; same result as :func:`queries.python.stats`.

    Examples
    --------
    >>> import pyoxigraph as ox
    >>> stats(ox.Store())["concepts"]
    0
    """
    store = connect(src)
    counts, by_type, stored = _stored_counts(store)
    if stored:  # built by kg: every concept has its kgv:paperCount; labels of the top 10 only
        top = sorted(((r["n"], _cid(r["c"])) for r in select(store, """
            SELECT ?c ?n WHERE { ?c kgv:paperCount ?n }""")), key=lambda t: (-t[0], t[1]))[:10]
        labels = {_cid(r["c"]): r["label"] for r in select(store, f"""
            SELECT ?c ?label WHERE {{ {values("c", _concept_iris(c for _, c in top))}
              ?c skos:prefLabel ?label }}""")} if top else {}
        ranked = [(n, c, labels[c]) for n, c in top]
    else:
        rows = select(store, """
            SELECT ?c ?label ?n WHERE { ?c a skos:Concept ; skos:prefLabel ?label .
              OPTIONAL { ?c kgv:paperCount ?count } BIND(COALESCE(?count, 0) AS ?n) }""")
        ranked = sorted(((r["n"], _cid(r["c"]), r["label"]) for r in rows),
                        key=lambda t: (-t[0], t[1]))[:10]
    return {
        "papers": counts["papers"] or 0, "concepts": counts["concepts"] or 0,
        "mentions": counts["mentions"] or 0, "by_type": dict(sorted(by_type.items())),
        "top_concepts": [{"id": c, "label": label, "papers": n} for n, c, label in ranked],
    }


def _stored_counts(store) -> tuple[dict, dict[str, int], bool]:
    """Totals and concepts per type: the build's ``kgv:Dataset`` node (``True``), else counted."""
    stored = select(store, """
        SELECT ?papers ?concepts ?mentions WHERE { ?d a kgv:Dataset ; kgv:paperTotal ?papers ;
          kgv:conceptTotal ?concepts ; kgv:mentionTotal ?mentions }""")
    if len(stored) == 1:
        return stored[0], {r["type"]: r["n"] for r in select(store, """
            SELECT ?type ?n WHERE { ?d a kgv:Dataset ; kgv:typeCount ?t .
              ?t kgv:typeName ?type ; kgv:conceptTotal ?n }""")}, True
    counts = select(store, """
        SELECT
          (SUM(IF(?k = 0, 1, 0)) AS ?papers) (SUM(IF(?k = 1, 1, 0)) AS ?concepts)
          (SUM(IF(?k = 2, 1, 0)) AS ?mentions) WHERE {
          VALUES (?cls ?k) { (schema:ScholarlyArticle 0) (skos:Concept 1) (kgv:Mention 2) }
          ?x a ?cls . }""")[0]
    by_type = {r["type"]: r["n"] for r in select(store, """
        SELECT ?type (COUNT(?c) AS ?n) WHERE {
          ?c a skos:Concept . OPTIONAL { ?c kgv:conceptType ?t }
          BIND(COALESCE(?t, "concept") AS ?type)
        } GROUP BY ?type""")}
    return counts, by_type, False
