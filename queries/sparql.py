"""The SPARQL engine: answers fetched from the RDF store (Oxigraph) in SPARQL.

:class:`SparqlEngine` takes a built ``OUT`` folder (its store is opened
read-only, once per folder version) or a :class:`pyoxigraph.Store`. The graph
work — following links, joining papers, mentions and concepts, counting and
summing idf — is done in SPARQL; :mod:`queries.questions` ranks.

User text never reaches a query: names are resolved in Python over the
store's concepts (read once per read-only store, :mod:`queries.sparql_cache`)
and ids are written as IRIs with :func:`kg.stores.sparql_terms.iri`.

Busy concepts have tens of thousands of links. Oxigraph reads every IRI a
solution returns from a table apart (~2.5 µs each on the 20,000-paper store)
and looks a property up once per solution (~20 µs), so the queries here name
terms by number (:func:`_numbered`) and, when the rows are a large share of the
graph, scan and hash-join instead of looking up (:func:`_lookup`). Which way
is chosen from counts the build stored; ``plan`` forces one (tests, benchmarks).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote

import pyoxigraph as ox

from kg.core.errors import Messages, QueryError
from kg.core.model import Concept, RelationEdge
from kg.core.salience import MENTION_WEIGHT
from kg.core.vocab import CONCEPT_NS, PAPER_NS, PREFIXES, concept_iri, paper_iri, sparql_prefixes
from kg.stores.out import damaged
from kg.stores.sparql_terms import iri, literal, values
from queries.concept_table import ConceptTable
from queries.engine import Link, PaperLink, Profile
from queries.ranking import score_floor
from queries.sparql_cache import concept_table, open_out

__all__ = ["SparqlEngine", "select"]

Plan = Literal["auto", "few", "many"]
_PREFIXES = sparql_prefixes()
_XSD = PREFIXES["xsd"]
_SKOS = PREFIXES["skos"]
_INTS = {_XSD + t for t in ("integer", "int", "long", "short", "nonNegativeInteger",
                             "positiveInteger", "gYear")}
_FLOATS = {_XSD + t for t in ("double", "float", "decimal")}


def _py(term: Any) -> Any:
    """A pyoxigraph term as a plain Python value (IRIs as str)."""
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
    return str(term)


def _tuples(store: ox.Store, query: str) -> list[tuple]:
    """The rows of a SELECT ``query`` (project prefixes predefined), as tuples."""
    return _run(store, query)[1]


def _run(store: ox.Store, query: str) -> tuple[list[str], list[tuple]]:
    try:
        res = store.query(_PREFIXES + query)
        return [v.value for v in res.variables], [tuple(map(_py, row)) for row in res]
    except SyntaxError as e:  # a bug in this module, not the user's: keep it loud
        raise QueryError(Messages.SPARQL_SYNTAX.format(detail=e)) from e
    except (OSError, RuntimeError) as e:  # a damaged store (RocksDB names the file)
        raise (damaged(e) or e) from None


def select(store: ox.Store, query: str) -> list[dict]:
    """Run a SELECT ``query`` (project prefixes predefined); rows as dicts of Python values.

    Examples
    --------
    >>> import pyoxigraph as ox
    >>> select(ox.Store(), "SELECT (1 + 1 AS ?two) WHERE {}")
    [{'two': 2}]
    """
    names, rows = _run(store, query)
    return [dict(zip(names, row, strict=True)) for row in rows]


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

    Rows that need only to say *which* of these terms they matched return its number
    (a small integer, or a string with ``text``, for ``GROUP_CONCAT``) instead of the IRI.
    """
    rows = " ".join(f'({t} "{n}")' if text else f"({t} {n})" for n, t in enumerate(iris))
    return f"VALUES (?{var} ?{number}) {{ {rows} }}"


def _lookup(var: str, prop: str, out: str, scan: bool) -> str:
    """The pattern ``?var prop ?out``, either looked up per solution or scanned and hash-joined.

    A subquery over every ``prop`` triple is joined by hash, which pays off when the
    solutions are a large share of the graph (a common concept's links: 2× on the
    busiest one). Same solutions either way.
    """
    if scan:
        return f"{{ SELECT ?{var} ?{out} WHERE {{ ?{var} {prop} ?{out} }} }}"
    return f"?{var} {prop} ?{out} ."


def _mention_parts(mention_iri: str) -> tuple[str, int]:
    """The paper IRI and ``N`` of a mention IRI ``…/mention/N`` (numbered in text order)."""
    paper, _, n = mention_iri.rpartition("/mention/")
    return paper, int(n)


def _statement_parts(statement_iri: str) -> tuple[str, int]:
    """The paper IRI and ``N`` of a relation statement IRI ``…/relation/N`` (text order)."""
    paper, _, n = statement_iri.rpartition("/relation/")
    return paper, int(n)


def _edges(rows: list[tuple]) -> list[RelationEdge]:
    """Relation edges from rows ``(relation, type, head, tail, count, statement, paper,
    sentence)``: each paper's evidence is its first statement in text order."""
    first: dict[tuple[str, str], tuple[int, str]] = {}
    edges: dict[str, tuple[str, str, str, int]] = {}
    for rel, rtype, h, t, count, st, p, sentence in rows:
        edges[rel] = (rtype, _cid(h), _cid(t), count)
        n = _statement_parts(st)[1]
        pid = _pid(p)
        if (rel, pid) not in first or n < first[(rel, pid)][0]:
            first[(rel, pid)] = (n, sentence)
    evidence: dict[str, dict[str, str]] = defaultdict(dict)
    for (rel, pid), (_, sentence) in sorted(first.items()):
        evidence[rel][pid] = sentence
    return [RelationEdge(*edges[rel], evidence[rel]) for rel in sorted(edges)]


def _text_order(r: dict) -> tuple:
    """Mentions in text order: title before abstract, then offsets, then concept."""
    return (r["field"] != "title", r["start"], r["end"], r["cid"])


def read_concepts(store: ox.Store) -> dict[str, Concept]:
    """Every concept of the store with its labels, type and broader concepts."""
    out: dict[str, Concept] = {}
    for r in select(store, """
        SELECT ?c ?label ?type WHERE {
          ?c a skos:Concept ; skos:prefLabel ?label . OPTIONAL { ?c kgv:conceptType ?type } }"""):
        cid = _cid(r["c"])
        out[cid] = Concept(cid, r["label"], type=r["type"] or "concept")
    for r in select(store, """
        SELECT ?c ?p ?v WHERE {
          VALUES ?p { skos:altLabel skos:hiddenLabel skos:broader } ?c ?p ?v }"""):
        c = out.get(_cid(r["c"]))
        if c is None:
            continue
        p, v = r["p"], r["v"]
        if p == _SKOS + "altLabel":
            c.aliases.append(v)
        elif p == _SKOS + "hiddenLabel":
            c.hidden_labels.append(v)
        elif p == _SKOS + "broader":
            c.broader.append(_cid(v))
    for c in out.values():
        c.aliases.sort()
        c.hidden_labels.sort()
        c.broader.sort()
    return out


class SparqlEngine:
    """The :class:`~queries.engine.Engine` of an Oxigraph store (or an ``OUT`` folder).

    ``plan`` forces the query plans that otherwise follow the stored counts:
    ``"few"`` always looks up, ``"many"`` always scans and counts first.

    Examples
    --------
    >>> import pyoxigraph as ox
    >>> SparqlEngine(ox.Store()).totals()
    {'papers': 0, 'concepts': 0, 'mentions': 0}
    """

    name = "sparql"

    def __init__(self, source: str | Path | ox.Store, *, plan: Plan = "auto") -> None:
        self.store = source if isinstance(source, ox.Store) else open_out(Path(source))
        self.plan = plan
        self._pairs: dict[tuple[str, ...], list[tuple[str, str]]] = {}

    @classmethod
    def from_out(cls, out: Path) -> SparqlEngine:
        return cls(out)

    # -- sizes that choose the plans -------------------------------------------------------

    def _paper_total(self) -> int:
        """The papers of the store as the build counted them (``kgv:Dataset``), else 0."""
        if self.plan != "auto":
            return 10**9 if self.plan == "few" else 1
        total = select(self.store, "SELECT ?n WHERE { ?d a kgv:Dataset ; kgv:paperTotal ?n }")
        return int(total[0]["n"]) if total else 0

    def _scans(self, ids: Collection[str], *shares: int) -> tuple[bool, ...]:
        """For each ``share``: whether the links of concepts ``ids`` are more than
        1/``share`` of the papers (then scan and hash-join rather than look up).

        Both counts were stored by the build (``kgv:paperCount``, ``kgv:Dataset``);
        without them nothing is scanned.
        """
        if self.plan != "auto":
            return (self.plan == "many",) * len(shares)
        n = select(self.store, f"""SELECT (SUM(?n) AS ?links) WHERE {{
            {values("c", _concept_iris(ids))} ?c kgv:paperCount ?n }}""")[0]["links"] or 0
        total = self._paper_total()
        return tuple(int(n) * share > total for share in shares)

    def _both(self, first: str, second: str, *, parallel: bool) -> tuple[list, list]:
        """:func:`_tuples` of two independent queries; with ``parallel``, the second in a thread.

        Oxigraph evaluates without holding the GIL, so two large answers are read on two
        cores (a busy concept's links and its papers' metadata at once).
        """
        if not parallel:
            return _tuples(self.store, first), _tuples(self.store, second)
        with ThreadPoolExecutor(max_workers=1) as pool:
            later = pool.submit(_tuples, self.store, second)
            return _tuples(self.store, first), later.result()

    # -- concepts and papers ---------------------------------------------------------------

    def concept_table(self) -> ConceptTable:
        return concept_table(self.store, read_concepts)

    def paper_ids(self) -> list[str]:
        return sorted(r["id"] for r in select(self.store, """
            SELECT ?id WHERE { ?p a schema:ScholarlyArticle ; dcterms:identifier ?id }"""))

    def paper_record(self, paper_id: str) -> dict[str, Any] | None:
        rows = select(self.store, f"""
            SELECT ?title ?year ?venue ?url ?abstract WHERE {{
              {values("p", _paper_iris([paper_id]))}
              ?p a schema:ScholarlyArticle ; dcterms:title ?title ; dcterms:abstract ?abstract .
              OPTIONAL {{ ?p dcterms:date ?year }} OPTIONAL {{ ?p kgv:venue ?venue }}
              OPTIONAL {{ ?p schema:url ?url }} }}""")
        return rows[0] if rows else None

    def titles(self, paper_ids: Collection[str]) -> dict[str, str]:
        if not paper_ids:
            return {}
        return {_pid(p): t for p, t in _tuples(self.store, f"""
            SELECT ?p ?title WHERE {{ {values("p", _paper_iris(paper_ids))}
              ?p dcterms:title ?title }}""")}

    def totals(self) -> dict[str, int]:
        stored = select(self.store, """
            SELECT ?papers ?concepts ?mentions WHERE { ?d a kgv:Dataset ;
              kgv:paperTotal ?papers ; kgv:conceptTotal ?concepts ; kgv:mentionTotal ?mentions }""")
        counts = stored[0] if len(stored) == 1 else select(self.store, """
            SELECT
              (SUM(IF(?k = 0, 1, 0)) AS ?papers) (SUM(IF(?k = 1, 1, 0)) AS ?concepts)
              (SUM(IF(?k = 2, 1, 0)) AS ?mentions) WHERE {
              VALUES (?cls ?k) { (schema:ScholarlyArticle 0) (skos:Concept 1) (kgv:Mention 2) }
              ?x a ?cls . }""")[0]
        return {k: int(counts[k] or 0) for k in ("papers", "concepts", "mentions")}

    def paper_counts(self) -> dict[str, int]:
        return {_cid(c): int(n) for c, n in _tuples(self.store, """
            SELECT ?c ?n WHERE { ?c kgv:paperCount ?n }""")}

    def paper_meta(self) -> dict[str, tuple[int | None, str | None]]:
        return {_pid(p): (y, v) for p, y, v in _tuples(self.store, """
            SELECT ?p ?year ?venue WHERE { ?p a schema:ScholarlyArticle .
              OPTIONAL { ?p dcterms:date ?year } OPTIONAL { ?p kgv:venue ?venue } }""")}

    def paper_list(self) -> list[tuple[str, str, int | None, str | None, int]]:
        rows = [(_pid(p), t, y, v, int(n)) for p, t, y, v, n in _tuples(self.store, """
            SELECT ?p ?title ?year ?venue (COUNT(?c) AS ?n) WHERE {
              ?p a schema:ScholarlyArticle ; dcterms:title ?title .
              OPTIONAL { ?p dcterms:date ?year } OPTIONAL { ?p kgv:venue ?venue }
              OPTIONAL { ?p dcterms:subject ?c } }
            GROUP BY ?p ?title ?year ?venue""")]
        return sorted(rows)

    def papers_with_text(self, needle: str) -> dict[str, tuple[str, str]]:
        n = literal(needle)
        return {_pid(p): (t, a) for p, t, a in _tuples(self.store, f"""
            SELECT ?p ?title ?abstract WHERE {{
              ?p a schema:ScholarlyArticle ; dcterms:title ?title ; dcterms:abstract ?abstract .
              FILTER(CONTAINS(LCASE(?title), {n}) || CONTAINS(LCASE(?abstract), {n})) }}""")}

    # -- links -------------------------------------------------------------------------------

    def concept_links(
        self, concept_ids: Collection[str]
    ) -> tuple[list[Link], dict[str, dict[str, Any]]]:
        ids = sorted(set(concept_ids))
        scan, meta_scan = self._scans(ids, 10, 30)
        # one row per paper-concept link (kgv:ConceptLink); the IRI of its first mention is
        # its paper's IRI + "/mention/N" (docs/rdf-model.md), which saves reading
        # kgv:linkPaper; its concept comes back as a number
        links_query = f"""
            SELECT ?first ?i ?n ?evidence WHERE {{
              {{ {_numbered("c", "i", _concept_iris(ids))} ?l kgv:linkConcept ?c }}
              {_lookup("l", "kgv:mentionCount", "n", scan)}
              {_lookup("l", "kgv:firstMention", "first", scan)}
              {_lookup("l", "kgv:evidence", "evidence", scan)} }}"""
        # paper metadata once per paper (not once per link)
        meta_query = f"""
            SELECT ?p ?title ?year ?venue WHERE {{
              {{ SELECT DISTINCT ?p WHERE {{ {values("c", _concept_iris(ids))}
                                             ?p dcterms:subject ?c }} }}
              {_lookup("p", "dcterms:title", "title", meta_scan)}
              OPTIONAL {{ {_lookup("p", "dcterms:date", "year", meta_scan)} }}
              OPTIONAL {{ {_lookup("p", "kgv:venue", "venue", meta_scan)} }} }}"""
        rows, meta_rows = self._both(links_query, meta_query, parallel=scan)
        links = []
        for first_iri, i, n, evidence in rows:
            p, first = _mention_parts(first_iri)
            links.append(Link(_pid(p), ids[i], n, first, evidence))
        meta = {_pid(p): {"title": t, "year": y, "venue": v} for p, t, y, v in meta_rows}
        return links, meta

    def paper_links(self, paper_id: str) -> list[PaperLink]:
        rows = select(self.store, f"""
            SELECT ?c ?field ?start ?end ?sentence ?m WHERE {{
              {values("p", _paper_iris([paper_id]))}
              ?m kgv:paper ?p ; kgv:concept ?c ; kgv:field ?field ; kgv:start ?start ;
                 kgv:end ?end ; kgv:sentence ?sentence . }}""")
        for r in rows:
            r["cid"] = _cid(r["c"])
        found: dict[str, PaperLink] = {}
        for r in sorted(rows, key=_text_order):
            link = found.get(r["cid"])
            if link is None:
                found[r["cid"]] = PaperLink(r["cid"], 1, _mention_parts(r["m"])[1],
                                            [r["sentence"]])
                continue
            if r["sentence"] not in link.sentences:
                link.sentences.append(r["sentence"])
            found[r["cid"]] = link._replace(mentions=link.mentions + 1)
        return list(found.values())

    def papers_of(self, concept_ids: Collection[str]) -> dict[str, set[str]]:
        """Each paper IRI is read once (grouped by paper); the concepts come back as numbers."""
        ids = sorted(set(concept_ids))
        out: dict[str, set[str]] = defaultdict(set)
        if not ids:
            return out
        for p, numbers in _tuples(self.store, f"""
            SELECT ?p (GROUP_CONCAT(?i) AS ?is) WHERE {{
              {_numbered("c", "i", _concept_iris(ids), text=True)} ?p dcterms:subject ?c }}
            GROUP BY ?p"""):
            pid = _pid(p)
            for i in numbers.split():
                out[ids[int(i)]].add(pid)
        return dict(out)

    def paper_concepts(self, paper_ids: Collection[str]) -> dict[str, set[str]]:
        """A few papers: looked up one by one; many: every link scanned once, hash-joined.

        Only concepts of the concept table (those with a ``skos:prefLabel``: every concept
        of a store built by kg) are returned when scanning.
        """
        ids = sorted(set(paper_ids))
        out: dict[str, set[str]] = defaultdict(set)
        if not ids:
            return out
        papers = _numbered("p", "j", _paper_iris(ids))
        total = self._paper_total()  # 0 when not stored: look up
        if len(ids) * 15 <= total or not total:  # < ~1,300 papers of 20k: one lookup each
            for j, c in _tuples(self.store, f"""
                SELECT ?j ?c WHERE {{ {papers} ?p dcterms:subject ?c }}"""):
                out[ids[j]].add(_cid(c))
            return dict(out)
        concepts = sorted(self.concept_table().concepts)
        for j, numbers in _tuples(self.store, f"""
            SELECT ?j (GROUP_CONCAT(?k) AS ?ks) WHERE {{ {{ {papers} }}
              {{ SELECT ?p ?k WHERE {{
                {_numbered("c", "k", _concept_iris(concepts), text=True)}
                ?p dcterms:subject ?c }} }} }}
            GROUP BY ?j"""):
            out[ids[j]].update(concepts[int(k)] for k in numbers.split())
        return dict(out)

    def sentences(self, pairs: Collection[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
        if not pairs:
            return {}
        steps = " ".join(f"({p} {c})" for pid, cid in sorted(set(pairs))
                         for p in _paper_iris([pid]) for c in _concept_iris([cid]))
        rows = select(self.store, f"""
            SELECT ?p ?c ?field ?start ?end ?sentence WHERE {{ VALUES (?p ?c) {{ {steps} }}
              ?m kgv:paper ?p ; kgv:concept ?c ; kgv:field ?field ; kgv:start ?start ;
                 kgv:end ?end ; kgv:sentence ?sentence . }}""")
        for r in rows:
            r["cid"] = _cid(r["c"])
        out: dict[tuple[str, str], list[str]] = defaultdict(list)
        for r in sorted(rows, key=lambda r: (r["p"],) + _text_order(r)):
            key = (_pid(r["p"]), r["cid"])
            if r["sentence"] not in out[key]:
                out[key].append(r["sentence"])
        return dict(out)

    def profile(self, concept_ids: Collection[str]) -> Profile:
        ids = sorted(set(concept_ids))
        if not ids:
            return {}
        (scan,) = self._scans(ids, 10)
        out: Profile = {}
        # a link's IRI is its paper's + "/concept/…" (docs/rdf-model.md): no kgv:linkPaper
        for link, i, n, t in _tuples(self.store, f"""
            SELECT ?l ?i ?n ?t WHERE {{
              {{ {_numbered("c", "i", _concept_iris(ids))} ?l kgv:linkConcept ?c }}
              {_lookup("l", "kgv:mentionCount", "n", scan)}
              {_lookup("l", "kgv:titleMentions", "t", scan)} }}"""):
            out.setdefault(_pid(link.rpartition("/concept/")[0]), {})[ids[i]] = \
                (int(n), int(t) > 0)
        return out

    def idf(self, concept_ids: Collection[str]) -> dict[str, float]:
        if not concept_ids:
            return {}
        return {_cid(c): float(idf) for c, idf in _tuples(self.store, f"""
            SELECT ?c ?idf WHERE {{ {values("c", _concept_iris(concept_ids))}
              ?c kgv:idf ?idf ; kgv:paperCount ?n . FILTER(?n > 0) }}""")}

    def salience(self, concept_ids: Collection[str] = (),
                 paper_ids: Collection[str] = ()) -> dict[tuple[str, str], tuple[float, bool]]:
        parts = []
        if concept_ids:
            parts.append(f"{{ {values('c', _concept_iris(concept_ids))} ?l kgv:linkConcept ?c }}")
        if paper_ids:
            parts.append(f"{{ {values('p', _paper_iris(paper_ids))} ?l kgv:linkPaper ?p }}")
        if not parts:
            return {}
        # a link's IRI is its paper's + "/concept/…" (docs/rdf-model.md)
        rows = _tuples(self.store, f"""
            SELECT ?l ?s ?about WHERE {{ {" UNION ".join(parts)}
              ?l kgv:salience ?s ; kgv:linkPaper ?lp ; kgv:linkConcept ?lc .
              BIND(EXISTS {{ ?lp kgv:about ?lc }} AS ?about) }}""")
        out = {}
        for link, s, about in rows:
            paper, _, concept = link.rpartition("/concept/")
            out[(_pid(paper), unquote(concept))] = (float(s), about in (True, "true"))
        return out

    # -- sums --------------------------------------------------------------------------------

    def related_scores(self, paper_id: str, limit: int) -> list[tuple[str, float]]:
        me = values("p", _paper_iris([paper_id]))
        w = literal(repr(MENTION_WEIGHT), datatype=_XSD + "double")
        # each shared concept's idf, times the weight of each paper's link to it (1 about)
        scored = f"""{{ SELECT ?o (SUM(?idf * ?wp * ?wo) AS ?score) WHERE {{ {me}
              ?p dcterms:subject ?c . ?o dcterms:subject ?c . ?c kgv:idf ?idf .
              FILTER(?o != ?p)
              BIND(IF(EXISTS {{ ?p kgv:about ?c }}, 1.0e0, {w}) AS ?wp)
              BIND(IF(EXISTS {{ ?o kgv:about ?c }}, 1.0e0, {w}) AS ?wo) }} GROUP BY ?o }}"""
        # A paper sharing a common concept has thousands of neighbours, and reading their
        # IRIs is most of the work: count the scores first, then read only those that can rank.
        floor = score_floor(_tuples(self.store, f"""
            SELECT ?score (COUNT(*) AS ?n) WHERE {{ {scored} }} GROUP BY ?score"""), limit)
        if floor is not None and floor <= 0:
            return []
        above = "" if floor is None else \
            f"FILTER(?score >= {literal(repr(floor), datatype=_XSD + 'double')})"
        return [(_pid(o), score) for o, score in _tuples(self.store, f"""
            SELECT ?o ?score WHERE {{ {scored} {above} }}""")]

    def _anchor_pairs(self, anchor_ids: Collection[str], *, fresh: bool) -> list[tuple[str, str]]:
        """Every (anchor paper, concept) link, for few anchor links.

        Read ``fresh`` by :meth:`cooccurrence_counts` and kept for the
        :meth:`cooccurrence_papers` call that follows it.
        """
        key = tuple(sorted(set(anchor_ids)))
        if fresh or key not in self._pairs:
            self._pairs = {key: [(_pid(p), _cid(d)) for p, d in _tuples(self.store, f"""
                SELECT ?p ?d WHERE {{ {self._anchor_papers(key)} ?p dcterms:subject ?d }}""")]}
        return self._pairs[key]

    @staticmethod
    def _anchor_papers(anchor_ids: Collection[str]) -> str:
        return f"""{{ SELECT DISTINCT ?p WHERE {{
            {values("a", _concept_iris(anchor_ids))} ?p dcterms:subject ?a }} }}"""

    def cooccurrence_counts(self, anchor_ids: Collection[str]) -> dict[str, int]:
        if not self._scans(anchor_ids, 10)[0]:  # a few papers: every link at once
            counts: dict[str, int] = defaultdict(int)
            for _, d in self._anchor_pairs(anchor_ids, fresh=True):
                counts[d] += 1
            return dict(counts)
        # many: counted in SPARQL (no paper IRI read; dcterms:subject scanned, hash-joined)
        return {_cid(d): n for d, n in _tuples(self.store, f"""
            SELECT ?d (COUNT(?p) AS ?n) WHERE {{ {self._anchor_papers(anchor_ids)}
              {_lookup("p", "dcterms:subject", "d", True)} }} GROUP BY ?d""")}

    def cooccurrence_papers(
        self, anchor_ids: Collection[str], concept_ids: Collection[str]
    ) -> dict[str, set[str]]:
        wanted = sorted(set(concept_ids))
        found: dict[str, set[str]] = defaultdict(set)
        if not self._scans(anchor_ids, 10)[0]:
            for p, d in self._anchor_pairs(anchor_ids, fresh=False):
                if d in concept_ids:
                    found[d].add(p)
            return dict(found)
        # the anchor papers of the wanted concepts only, each paper once with their numbers
        for p, numbers in _tuples(self.store, f"""
            SELECT ?p (GROUP_CONCAT(?k) AS ?ks) WHERE {{ {self._anchor_papers(anchor_ids)}
              {{ {_numbered("d", "k", _concept_iris(wanted), text=True)}
                 ?p dcterms:subject ?d }} }}
            GROUP BY ?p"""):
            pid = _pid(p)
            for k in numbers.split():
                found[wanted[int(k)]].add(pid)
        return dict(found)

    # -- relations between concepts -----------------------------------------------------

    def relation_edges(self, concept_ids: Collection[str]) -> list[RelationEdge]:
        ids = _concept_iris(concept_ids)
        if not ids:
            return []
        return _edges(_tuples(self.store, f"""
            SELECT DISTINCT ?r ?type ?h ?t ?n ?st ?p ?sentence WHERE {{
              {values("c", ids)}
              {{ ?r rdf:subject ?c }} UNION {{ ?r rdf:object ?c }}
              ?r a kgv:Relation ; kgv:relationType ?type ; rdf:subject ?h ; rdf:object ?t ;
                 kgv:statementCount ?n .
              ?st kgv:relation ?r ; kgv:statedIn ?p ; kgv:statementSentence ?sentence . }}"""))

    def paper_relations(self, paper_id: str) -> list[RelationEdge]:
        return _edges(_tuples(self.store, f"""
            SELECT ?r ?type ?h ?t ?n ?st ?p ?sentence WHERE {{
              {values("p", _paper_iris([paper_id]))}
              ?st kgv:statedIn ?p ; kgv:relation ?r ; kgv:statementSentence ?sentence .
              ?r kgv:relationType ?type ; rdf:subject ?h ; rdf:object ?t ;
                 kgv:statementCount ?n . }}"""))
