"""The RDF form of a :class:`~kg.core.model.KnowledgeGraph` (see ``docs/rdf-model.md``).

Papers are ``schema:ScholarlyArticle`` with Dublin Core metadata and
``dcterms:subject`` links to the concepts they mention; concepts are
``skos:Concept`` with labels, alt labels and ``skos:broader``; each mention is
a ``kgv:Mention`` node carrying its offsets, text, sentence and extractor (and, in the
standard vocabularies, a W3C Web Annotation of the paper with the concept as body,
attributed with PROV to its extractor); each
paper–concept pair is also a ``kgv:ConceptLink`` node summarising its mentions
(count, title count, first mention and its sentence), so questions over many
papers need not read every mention; its ``kgv:salience`` and the paper's ``kgv:about``
links (:mod:`kg.core.salience`) depend on the whole corpus (idf), so they are written
with the corpus triples, not in the paper's block. The totals are a VoID dataset
description.
Relations between concepts ("GNNs used-for node classification") are one ``kgv:Relation``
node per type and concept pair (a reified ``rdf:Statement`` of the direct triple
``kgc:gnn kgv:usedFor kgc:node-classification``, with counts and ``prov:wasDerivedFrom``
its papers) and one ``kgv:RelationStatement`` per sentence that states it, derived from the
two mentions.
Every ``kgv:`` term is defined in ``kg/vocab.ttl``.
Triples are produced in a fixed order so the same input gives the same bytes.

Each triple is three strings, its terms as Turtle writes them with the prefixes of
:data:`~kg.core.vocab.PREFIXES` (``kgc:gnn``, ``"text"@en``, ``3``): ``graph.ttl`` is these
texts joined (:func:`kg.stores.rdf_file.turtle`), with the same bytes Oxigraph's Turtle
serializer writes for the same triples, and no Python object per term on the way.
:func:`triples` gives :class:`pyoxigraph.Triple` objects (parsed back from the text).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from urllib.parse import quote

import pyoxigraph as ox

from kg.core.model import Concept, KnowledgeGraph, Relation, RelationEdge, Salience, edge_key, idf
from kg.core.vocab import (
    CONCEPT_NS,
    DATASET,
    DCTERMS,
    EXTRACTOR_NS,
    KGV,
    OA,
    PAPER_NS,
    PREFIXES,
    PROV,
    RDF,
    RDFS,
    RELATION_NS,
    RELATION_PROPERTIES,
    SCHEMA,
    SCHEME,
    SKOS,
    VOID,
    XSD,
    link_iri,
    paper_iri,
    relation_iri,
)

__all__ = [
    "Triple", "VOCABULARIES", "agents_triples", "concept_triples", "concepts_triples",
    "corpus_triples", "corpus_triples_of", "dataset_triples", "double", "edges_triples",
    "extractor_names", "extractor_triples", "integer", "iri", "link_triples", "literal",
    "mention_triples", "paper_block", "paper_triples", "parse_triples", "relation_triples",
    "salience_triples", "scores_triples", "statement_triples", "totals_triples", "triples",
    "turtle_header",
]

#: A triple as the Turtle text of its subject, predicate and object.
Triple = tuple[str, str, str]

# -- terms as Turtle text (the rules of Oxigraph's Turtle serializer) --------------------

_PN_BASE = ("A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff"
            "\u200c-\u200d\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd"
            "\U00010000-\U000effff")
_PN_FIRST = re.compile(f"[{_PN_BASE}_:0-9]")
_PN = re.compile(f"[{_PN_BASE}_:0-9\\-\u00b7\u0300-\u036f\u203f-\u2040]")
#: A local name written as it is: no character to escape, no "." at the end.
_PLAIN_LOCAL = re.compile(
    f"[{_PN_BASE}_:0-9](?:[{_PN_BASE}_:0-9\\-.\u00b7\u0300-\u036f\u203f-\u2040]*"
    f"[{_PN_BASE}_:0-9\\-\u00b7\u0300-\u036f\u203f-\u2040])?")
_ESCAPABLE = frozenset("_~.-!$&'()*+,;=/?#@%")
#: An ASCII local name of characters that are allowed or escapable (the usual case: the
#: IRIs of papers, mentions and concepts are %-encoded and have "/" in them).
_ASCII_LOCAL = re.compile(r"[A-Za-z0-9_:\-.~!$&'()*+,;=/?#@%]+")
_ASCII_ESCAPES = str.maketrans({c: "\\" + c for c in "~!$&'()*+,;=/?#@%"})


def _local_name(local: str) -> str | None:
    """``local`` as the local part of a prefixed name (``\\``-escaped where it may be), or
    ``None`` if it cannot be one."""
    if _PLAIN_LOCAL.fullmatch(local):
        return local
    if _ASCII_LOCAL.fullmatch(local):
        body = local.translate(_ASCII_ESCAPES)
        if local[0] in "-.":  # allowed inside, not first
            body = "\\" + body
        if len(local) > 1 and local[-1] == ".":  # allowed inside, not last
            body = body[:-1] + "\\."
        return body
    out = []
    last = len(local) - 1
    for i, c in enumerate(local):
        if (_PN_FIRST.fullmatch(c) if i == 0 else (_PN.fullmatch(c) or (c == "." and i < last))):
            out.append(c)
        elif c in _ESCAPABLE:
            out.append("\\" + c)
        else:
            return None
    return "".join(out)


def _prefix_order() -> list[tuple[str, str]]:
    """``(name, namespace)`` of :data:`PREFIXES` in the order Oxigraph tries them (the order
    of its ``@prefix`` lines)."""
    probe = ox.Triple(ox.NamedNode("urn:x"), ox.NamedNode("urn:y"), ox.NamedNode("urn:z"))
    text = ox.serialize([probe], None, ox.RdfFormat.TURTLE, prefixes=PREFIXES).decode()
    names = re.findall(r"^@prefix ([^:]*):", text, re.MULTILINE)
    assert sorted(names) == sorted(PREFIXES), names
    return [(name, PREFIXES[name]) for name in names]


_PREFIX_ORDER = _prefix_order()
# No namespace starts another one: an IRI of a namespace has that prefix and no other, so
# the writers below may prefix IRIs of a known namespace directly.
assert not any(a != b and b.startswith(a) for _, a in _PREFIX_ORDER for _, b in _PREFIX_ORDER)
_PREFIX_OF = {ns: name for name, ns in _PREFIX_ORDER}


def turtle_header() -> bytes:
    """The ``@prefix`` lines Oxigraph writes for :data:`PREFIXES`, in its order."""
    return "".join(f"@prefix {name}: <{ns}> .\n" for name, ns in _PREFIX_ORDER).encode()


def iri(value: str) -> str:
    """The Turtle form of the IRI ``value``: a prefixed name where one fits, else ``<value>``.

    ``value`` must be a valid IRI (``pyoxigraph.NamedNode`` accepts it).

    >>> iri("https://w3id.org/kg-abstracts/paper/11028/mention/1")
    'kgp:11028\\\\/mention\\\\/1'
    >>> iri("https://w3id.org/kg-abstracts/lexicon")
    '<https://w3id.org/kg-abstracts/lexicon>'
    """
    for name, ns in _PREFIX_ORDER:
        if value.startswith(ns):
            local = value[len(ns):]
            if not local:
                return name + ":"
            escaped = _local_name(local)
            if escaped is not None:
                return f"{name}:{escaped}"
    return f"<{value}>"


def _in(ns: str, local: str) -> str:
    """:func:`iri` of ``ns + local`` for a namespace of :data:`PREFIXES`."""
    escaped = _local_name(local) if local else ""
    return f"<{ns}{local}>" if escaped is None else f"{_PREFIX_OF[ns]}:{escaped}"


_ESCAPES = {i: f"\\u{i:04X}" for i in (*range(0x20), 0x7F, 0xFFFE, 0xFFFF)}
_ESCAPES.update({0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r",
                 0x22: '\\"', 0x5C: "\\\\"})
_NEEDS_ESCAPE = re.compile('[\x00-\x1f"\\\\\x7f\ufffe\uffff]')


def literal(value: str, lang: str | None = None) -> str:
    """The Turtle form of a string literal (with a language tag if ``lang``).

    >>> literal('say "hi"\\n', "en")
    '"say \\\\"hi\\\\"\\\\n"@en'
    """
    text = value.translate(_ESCAPES) if _NEEDS_ESCAPE.search(value) else value
    return f'"{text}"@{lang}' if lang else f'"{text}"'


_DOUBLE_INLINE = re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)[eE][+-]?[0-9]+")
_XSD_DOUBLE = _in(XSD, "double")
_XSD_GYEAR = _in(XSD, "gYear")


def integer(value: int) -> str:
    """The Turtle form of an ``xsd:integer``: the number itself."""
    return str(int(value))


def double(value: float) -> str:
    """The Turtle form of an ``xsd:double``: ``repr(value)``, bare if Turtle reads it as a
    double (``1e-05``), else typed (``"0.5"^^xsd:double``)."""
    text = repr(float(value))
    return text if _DOUBLE_INLINE.fullmatch(text) else f'"{text}"^^{_XSD_DOUBLE}'


def _url(value: str) -> str:
    try:
        ox.NamedNode(value)
    except ValueError:  # not a valid IRI: keep the text
        return literal(value)
    return iri(value)


def _quoted(value: str) -> str:
    return quote(value, safe="-._~")


@lru_cache(maxsize=1 << 16)
def _concept(cid: str) -> str:
    return _in(CONCEPT_NS, _quoted(cid))


@lru_cache(maxsize=1 << 14)
def _paper_local(pid: str) -> str:
    return _quoted(pid)


def _paper(pid: str) -> str:
    return _in(PAPER_NS, _paper_local(pid))


def _mention(pid: str, n: int) -> str:
    return _in(PAPER_NS, f"{_paper_local(pid)}/mention/{n}")


def _link(pid: str, cid: str) -> str:
    return _in(PAPER_NS, f"{_paper_local(pid)}/concept/{_quoted(cid)}")


def _statement(pid: str, n: int) -> str:
    return _in(PAPER_NS, f"{_paper_local(pid)}/relation/{n}")


def _relation(rtype: str, head: str, tail: str) -> str:
    return _in(RELATION_NS, "/".join(_quoted(x) for x in (rtype, head, tail)))


@lru_cache(maxsize=256)
def _extractor(name: str) -> str:
    return _in(EXTRACTOR_NS, _quoted(name))


def _v(ns: str, *names: str) -> dict[str, str]:
    return {name: _in(ns, name) for name in names}


# the IRIs the writers use, checked against the vocabulary module's builders
assert _link("a b", "c") == iri(link_iri("a b", "c")) and _paper("x/y") == iri(paper_iri("x/y"))
assert _relation("used-for", "a", "b") == iri(relation_iri("used-for", "a", "b"))

_A = "a"  # rdf:type
_SKOS = _v(SKOS, "ConceptScheme", "Concept", "inScheme", "prefLabel", "altLabel",
           "hiddenLabel", "broader")
_DC = _v(DCTERMS, "identifier", "title", "abstract", "date", "subject")
_SCHEMA = _v(SCHEMA, "ScholarlyArticle", "keywords", "url")
_KGV = _v(KGV, "venue", "conceptType", "origin", "paperCount", "idf", "Dataset",
          "conceptTotal", "paperTotal", "mentionTotal", "typeCount", "typeName", "salience",
          "about")
_SCHEME = iri(SCHEME)


def paper_triples(kg: KnowledgeGraph, pid: str) -> Iterator[Triple]:
    """Triples describing the paper ``pid`` and its subjects."""
    p = kg.papers[pid]
    s = _paper(pid)
    yield s, _A, _SCHEMA["ScholarlyArticle"]
    yield s, _DC["identifier"], literal(pid)
    yield s, _DC["title"], literal(p.title)
    yield s, _DC["abstract"], literal(p.abstract)
    for k in sorted(set(p.keywords)):
        yield s, _SCHEMA["keywords"], literal(k)
    if p.year is not None:
        yield s, _DC["date"], f'{literal(str(p.year))}^^{_XSD_GYEAR}'
    if p.venue:
        yield s, _KGV["venue"], literal(p.venue)
    if p.url:
        yield s, _SCHEMA["url"], _url(p.url)
    for cid in sorted(kg.paper_concepts.get(pid, ())):
        yield s, _DC["subject"], _concept(cid)


def concept_triples(kg: KnowledgeGraph) -> Iterator[Triple]:
    """Triples describing every concept as a SKOS concept."""
    return concepts_triples(kg.concepts, {c: len(ps) for c, ps in kg.concept_papers.items()},
                            len(kg.papers))


def concepts_triples(concepts: Mapping[str, Concept], df: Mapping[str, int],
                     n_papers: int) -> Iterator[Triple]:
    """:func:`concept_triples` from the concepts, each one's document frequency (papers that
    mention it; absent: none) and the number of papers: what a streamed build holds."""
    v, k = _SKOS, _KGV
    yield _SCHEME, _A, v["ConceptScheme"]
    for cid in sorted(concepts):
        c = concepts[cid]
        s = _concept(cid)
        yield s, _A, v["Concept"]
        yield s, v["inScheme"], _SCHEME
        yield s, v["prefLabel"], literal(c.label, "en")
        for a in sorted(set(c.aliases)):
            yield s, v["altLabel"], literal(a, "en")
        for h in sorted(set(c.hidden_labels)):
            yield s, v["hiddenLabel"], literal(h, "en")
        for b in sorted(c.broader):
            if b in concepts:
                yield s, v["broader"], _concept(b)
        yield s, k["conceptType"], literal(c.type)
        yield s, k["origin"], literal(c.origin)
        n = df.get(cid, 0)
        yield s, k["paperCount"], integer(n)
        yield s, k["idf"], double(idf(n_papers, n))


_MENTION = _v(KGV, "Mention", "paper", "concept", "field", "start", "end", "text", "sentence",
              "extractor", "score")
_ANNOTATION = _in(OA, "Annotation")
_HAS_BODY = _in(OA, "hasBody")
_HAS_TARGET = _in(OA, "hasTarget")
_ATTRIBUTED_TO = _in(PROV, "wasAttributedTo")


def mention_triples(kg: KnowledgeGraph, pid: str) -> Iterator[Triple]:
    """Triples for every mention of the paper ``pid``, numbered in text order."""
    v = _MENTION
    cls, paper, concept, field, start, end, text, sentence, extractor, score = (
        v[name] for name in ("Mention", "paper", "concept", "field", "start", "end", "text",
                             "sentence", "extractor", "score"))
    p = _paper(pid)
    sentences: dict[str, str] = {}  # a sentence's literal, for its every mention
    for n, m in enumerate(kg.mentions_by_paper.get(pid, ()), start=1):
        s = _mention(pid, n)
        c = _concept(m.concept)
        said = sentences.get(m.sentence)
        if said is None:
            said = sentences[m.sentence] = literal(m.sentence)
        yield s, _A, cls
        yield s, _A, _ANNOTATION
        yield s, paper, p
        yield s, concept, c
        # the same in Web Annotation and PROV terms, for tools that know those only
        yield s, _HAS_BODY, c
        yield s, _HAS_TARGET, p
        yield s, _ATTRIBUTED_TO, _extractor(m.extractor)
        yield s, field, literal(m.field)
        yield s, start, integer(m.start)
        yield s, end, integer(m.end)
        yield s, text, literal(m.text)
        yield s, sentence, said
        yield s, extractor, literal(m.extractor)
        yield s, score, double(m.score)


_LINK = _v(KGV, "ConceptLink", "linkPaper", "linkConcept", "mentionCount", "titleMentions",
           "firstMention", "evidence")


def link_triples(kg: KnowledgeGraph, pid: str) -> Iterator[Triple]:
    """One ``kgv:ConceptLink`` per concept the paper ``pid`` mentions (``MENTIONS`` in Cypher).

    Links have their own ``kgv:linkPaper`` / ``kgv:linkConcept`` (not the mentions'
    ``kgv:paper`` / ``kgv:concept``), so a concept's links are read without its mentions.
    ``kgv:firstMention`` is the paper's first mention of the concept in text order
    (the mention numbers of :func:`mention_triples`); ``kgv:evidence`` is its sentence.
    """
    v = _LINK
    p = _paper(pid)
    links: dict[str, list] = {}
    for n, m in enumerate(kg.mentions_by_paper.get(pid, ()), start=1):
        link = links.get(m.concept)
        if link is None:
            links[m.concept] = [n, m.sentence, 1, int(m.field == "title")]
        else:
            link[2] += 1
            link[3] += m.field == "title"
    for cid in sorted(links):
        n, sentence, total, in_title = links[cid]
        s = _link(pid, cid)
        yield s, _A, v["ConceptLink"]
        yield s, v["linkPaper"], p
        yield s, v["linkConcept"], _concept(cid)
        yield s, v["mentionCount"], integer(total)
        yield s, v["titleMentions"], integer(in_title)
        yield s, v["firstMention"], _mention(pid, n)
        yield s, v["evidence"], literal(sentence)


_REL = _v(KGV, "Relation", "RelationStatement", "relationType", "statementCount",
          "relationPaperCount", "relation", "statedIn", "statementField", "headStart", "headEnd",
          "headText", "tailStart", "tailEnd", "tailText", "statementSentence",
          "statementExtractor", "statementScore")
_STATEMENT = _in(RDF, "Statement")
_SUBJECT, _PREDICATE, _OBJECT = (_in(RDF, x) for x in ("subject", "predicate", "object"))
_DERIVED_FROM = _in(PROV, "wasDerivedFrom")
_RELATION_PROPERTIES = {rtype: iri(p) for rtype, p in RELATION_PROPERTIES.items()}


def relation_triples(kg: KnowledgeGraph) -> Iterator[Triple]:
    """One ``kgv:Relation`` per relation edge of the graph, and its direct triple.

    The node reifies the triple ``head kgv:usedFor tail`` (``rdf:subject``,
    ``rdf:predicate``, ``rdf:object``) and carries ``kgv:relationType`` (SciERC's name),
    ``kgv:statementCount``, ``kgv:relationPaperCount`` and ``prov:wasDerivedFrom`` each paper that
    states it; the sentences are on its ``kgv:RelationStatement`` nodes
    (:func:`statement_triples`), which point to it with ``kgv:relation``.
    """
    return edges_triples(kg.relation_edges.values())


def edges_triples(edges: Iterable[RelationEdge]) -> Iterator[Triple]:
    """:func:`relation_triples` of these edges (in the order of
    :attr:`~kg.core.model.KnowledgeGraph.relation_edges`)."""
    v = _REL
    for edge in edges:
        rtype, head, tail = edge.type, edge.head, edge.tail
        s = _relation(rtype, head, tail)
        h, t, prop = _concept(head), _concept(tail), _RELATION_PROPERTIES[rtype]
        yield h, prop, t
        yield s, _A, v["Relation"]
        yield s, _A, _STATEMENT
        yield s, _SUBJECT, h
        yield s, _PREDICATE, prop
        yield s, _OBJECT, t
        yield s, v["relationType"], literal(rtype)
        yield s, v["statementCount"], integer(edge.count)
        yield s, v["relationPaperCount"], integer(len(edge.evidence))
        for pid in edge.evidence:
            yield s, _DERIVED_FROM, _paper(pid)


def _covering_mention(kg: KnowledgeGraph, r: Relation, concept: str, start: int,
                      end: int) -> int | None:
    """The number of the paper's first mention of ``concept`` in ``r``'s field that
    overlaps ``start:end`` (the mention the argument was linked through)."""
    for n, m in enumerate(kg.mentions_by_paper.get(r.paper, ()), start=1):
        if m.concept == concept and m.field == r.field and m.start < end and start < m.end:
            return n
    return None


def statement_triples(kg: KnowledgeGraph, pid: str) -> Iterator[Triple]:
    """One ``kgv:RelationStatement`` per sentence of the paper ``pid`` that states a relation
    edge, numbered in text order: its paper, relation, field, argument offsets and texts,
    sentence, extractor and score, ``prov:wasDerivedFrom`` the two mentions it links."""
    v = _REL
    p = _paper(pid)
    for n, r in enumerate(kg.relations_by_paper.get(pid, ()), start=1):
        key = edge_key(r)
        assert key is not None  # relations_by_paper holds edges only
        s = _statement(pid, n)
        yield s, _A, v["RelationStatement"]
        yield s, v["statedIn"], p
        yield s, v["relation"], _relation(*key)
        yield s, _ATTRIBUTED_TO, _extractor(r.extractor)
        for concept, start, end in ((r.head_concept, r.head_start, r.head_end),
                                    (r.tail_concept, r.tail_start, r.tail_end)):
            found = _covering_mention(kg, r, str(concept), start, end)
            if found is not None:
                yield s, _DERIVED_FROM, _mention(pid, found)
        yield s, v["statementField"], literal(r.field)
        yield s, v["headStart"], integer(r.head_start)
        yield s, v["headEnd"], integer(r.head_end)
        yield s, v["headText"], literal(r.head_text)
        yield s, v["tailStart"], integer(r.tail_start)
        yield s, v["tailEnd"], integer(r.tail_end)
        yield s, v["tailText"], literal(r.tail_text)
        yield s, v["statementSentence"], literal(r.sentence)
        yield s, v["statementExtractor"], literal(r.extractor)
        yield s, v["statementScore"], double(r.score)


#: the vocabularies the graph uses (``void:vocabulary`` of the dataset)
VOCABULARIES = (DCTERMS, KGV, OA, PROV, SCHEMA, SKOS)


def dataset_triples(kg: KnowledgeGraph) -> Iterator[Triple]:
    """The ``kgv:Dataset`` node: how many papers, concepts, mentions, concepts per type.

    Written at build so ``stats`` reads them instead of counting every node. It is also
    a ``void:Dataset`` with one ``void:classPartition`` per class (``void:entities``) and
    its ``void:vocabulary``.
    """
    return totals_triples(len(kg.papers), kg.concepts, len(kg.mentions),
                          sum(len(c) for c in kg.paper_concepts.values()))


def totals_triples(n_papers: int, concepts: Mapping[str, Concept], n_mentions: int,
                   n_links: int) -> Iterator[Triple]:
    """:func:`dataset_triples` from the totals (``n_links``: paper–concept pairs)."""
    k = _KGV
    s = iri(DATASET)
    total = k["conceptTotal"]
    yield s, _A, k["Dataset"]
    yield s, _A, _in(VOID, "Dataset")
    for name, cls, n in (("paper", SCHEMA + "ScholarlyArticle", n_papers),
                         ("concept", SKOS + "Concept", len(concepts)),
                         ("mention", KGV + "Mention", n_mentions),
                         ("link", KGV + "ConceptLink", n_links)):
        part = iri(f"{DATASET}/class/{name}")
        yield s, _in(VOID, "classPartition"), part
        yield part, _in(VOID, "class"), iri(cls)
        yield part, _in(VOID, "entities"), integer(n)
    for ns in VOCABULARIES:
        yield s, _in(VOID, "vocabulary"), iri(ns)
    yield s, k["paperTotal"], integer(n_papers)
    yield s, total, integer(len(concepts))
    yield s, k["mentionTotal"], integer(n_mentions)
    by_type: dict[str, int] = {}
    for c in concepts.values():
        by_type[c.type] = by_type.get(c.type, 0) + 1
    for name in sorted(by_type):
        t = iri(f"{DATASET}/type/{quote(name, safe='-._~')}")
        yield s, k["typeCount"], t
        yield t, k["typeName"], literal(name)
        yield t, total, integer(by_type[name])


def extractor_triples(kg: KnowledgeGraph) -> Iterator[Triple]:
    """Each extractor that found a mention, as a ``prov:SoftwareAgent`` named by its label."""
    return agents_triples(extractor_names(kg))


def extractor_names(kg: KnowledgeGraph) -> list[str]:
    """The extractors of the mentions and of the relation statements that are edges, sorted."""
    names = {m.extractor for m in kg.mentions}
    # read through, not grouped by paper (relations_by_paper): a build's extraction
    # process reads its relations off disk, and would hold every edge's statements
    names.update(r.extractor for _key, r in kg.edge_statements())
    return sorted(names)


def agents_triples(names: Iterable[str]) -> Iterator[Triple]:
    """:func:`extractor_triples` of these extractor names (sorted)."""
    for name in names:
        s = _extractor(name)
        yield s, _A, _in(PROV, "SoftwareAgent")
        yield s, _in(RDFS, "label"), literal(name)


def salience_triples(kg: KnowledgeGraph) -> Iterator[Triple]:
    """Each link's ``kgv:salience``, and ``paper kgv:about concept`` for the *about* links.

    ``kgv:about`` is a subproperty of ``dcterms:subject``: the concepts a paper is about
    (its best concepts, :mod:`kg.core.salience`), a subset of those it mentions.
    """
    return scores_triples(s for _, s in sorted(kg.salience.items()))


def scores_triples(scores: Iterable[Salience]) -> Iterator[Triple]:
    """:func:`salience_triples` of these saliences, in (paper, concept) order."""
    salience, about = _KGV["salience"], _KGV["about"]
    for s in scores:
        yield _link(s.paper, s.concept), salience, double(s.score)
        if s.about:
            yield _paper(s.paper), about, _concept(s.concept)


def corpus_triples(kg: KnowledgeGraph) -> Iterator[Triple]:
    """The triples that depend on the whole corpus: concepts (counts, idf), relations between
    them, totals, extractors, salience."""
    yield from concept_triples(kg)
    yield from relation_triples(kg)
    yield from dataset_triples(kg)
    yield from extractor_triples(kg)
    yield from salience_triples(kg)


def corpus_triples_of(concepts: Mapping[str, Concept], df: Mapping[str, int], n_papers: int,
                      n_mentions: int, n_links: int, edges: Iterable[RelationEdge],
                      extractors: Iterable[str], scores: Iterable[Salience]) -> Iterator[Triple]:
    """:func:`corpus_triples` from vocabulary-sized tables and two streams (the relation
    edges in key order, the saliences in (paper, concept) order): a streamed build never
    holds the whole model (:mod:`kg.stores.spill`)."""
    yield from concepts_triples(concepts, df, n_papers)
    yield from edges_triples(edges)
    yield from totals_triples(n_papers, concepts, n_mentions, n_links)
    yield from agents_triples(extractors)
    yield from scores_triples(scores)


def paper_block(kg: KnowledgeGraph, pid: str) -> Iterator[Triple]:
    """The triples of one paper: the paper, its mentions, its concept links and its relation
    statements.

    They depend on the paper, its mentions and its relations only (see
    :func:`kg.stores.rdf_file.paper_key`).
    """
    yield from paper_triples(kg, pid)
    yield from mention_triples(kg, pid)
    yield from link_triples(kg, pid)
    yield from statement_triples(kg, pid)


def parse_triples(triples: Iterable[Triple]) -> list[ox.Triple]:
    """``triples`` as :class:`pyoxigraph.Triple` objects, in the same order.

    >>> [str(t) for t in parse_triples([(iri(SCHEME), "a", iri(SKOS + "ConceptScheme"))])]
    ['<https://w3id.org/kg-abstracts/lexicon> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2004/02/skos/core#ConceptScheme>']
    """
    text = turtle_header() + "".join(f"{s} {p} {o} .\n" for s, p, o in triples).encode()
    return [ox.Triple(q.subject, q.predicate, q.object)
            for q in ox.parse(text, format=ox.RdfFormat.TURTLE)]


def triples(kg: KnowledgeGraph) -> list[ox.Triple]:
    """Every triple of the RDF form, in a deterministic order (``graph.ttl``'s order)."""
    def every() -> Iterator[Triple]:
        yield from corpus_triples(kg)
        for pid in sorted(kg.papers):
            yield from paper_block(kg, pid)

    return parse_triples(every())
