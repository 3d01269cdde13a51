"""The RDF form of a :class:`~kg.model.KnowledgeGraph` (see ``docs/rdf-model.md``).

Papers are ``schema:ScholarlyArticle`` with Dublin Core metadata and
``dcterms:subject`` links to the concepts they mention; concepts are
``skos:Concept`` with labels, alt labels and ``skos:broader``; each mention is
a ``kgv:Mention`` node carrying its offsets, text, sentence and extractor; each
paper–concept pair is also a ``kgv:ConceptLink`` node summarising its mentions
(count, title count, first mention and its sentence), so questions over many
papers need not read every mention.
Triples are produced in a fixed order so the same input gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pyoxigraph as ox

from kg.model import KnowledgeGraph
from kg.vocab import (
    DATASET,
    DCTERMS,
    KGV,
    RDF,
    SCHEMA,
    SCHEME,
    SKOS,
    XSD,
    concept_iri,
    link_iri,
    mention_iri,
    paper_iri,
)

_A = ox.NamedNode(RDF + "type")


def _n(iri: str) -> ox.NamedNode:
    return ox.NamedNode(iri)


def _lit(value: str, lang: str | None = None) -> ox.Literal:
    return ox.Literal(value, language=lang) if lang else ox.Literal(value)


_INTEGER = ox.NamedNode(XSD + "integer")
_DOUBLE = ox.NamedNode(XSD + "double")


def _int(value: int) -> ox.Literal:
    return ox.Literal(str(value), datatype=_INTEGER)


def _double(value: float) -> ox.Literal:
    return ox.Literal(repr(float(value)), datatype=_DOUBLE)


def _url(value: str) -> ox.NamedNode | ox.Literal:
    try:
        return _n(value)
    except ValueError:  # not a valid IRI: keep the text
        return _lit(value)


def paper_triples(kg: KnowledgeGraph) -> Iterator[ox.Triple]:
    """Triples describing every paper and its subjects."""
    for pid in sorted(kg.papers):
        p = kg.papers[pid]
        s = _n(paper_iri(pid))
        yield ox.Triple(s, _A, _n(SCHEMA + "ScholarlyArticle"))
        yield ox.Triple(s, _n(DCTERMS + "identifier"), _lit(pid))
        yield ox.Triple(s, _n(DCTERMS + "title"), _lit(p.title))
        yield ox.Triple(s, _n(DCTERMS + "abstract"), _lit(p.abstract))
        for k in sorted(set(p.keywords)):
            yield ox.Triple(s, _n(SCHEMA + "keywords"), _lit(k))
        if p.year is not None:
            yield ox.Triple(s, _n(DCTERMS + "date"), ox.Literal(str(p.year),
                                                                 datatype=_n(XSD + "gYear")))
        if p.venue:
            yield ox.Triple(s, _n(KGV + "venue"), _lit(p.venue))
        if p.url:
            yield ox.Triple(s, _n(SCHEMA + "url"), _url(p.url))
        for cid in sorted(kg.paper_concepts.get(pid, ())):
            yield ox.Triple(s, _n(DCTERMS + "subject"), _n(concept_iri(cid)))


def concept_triples(kg: KnowledgeGraph) -> Iterator[ox.Triple]:
    """Triples describing every concept as a SKOS concept."""
    scheme = _n(SCHEME)
    yield ox.Triple(scheme, _A, _n(SKOS + "ConceptScheme"))
    for cid in sorted(kg.concepts):
        c = kg.concepts[cid]
        s = _n(concept_iri(cid))
        yield ox.Triple(s, _A, _n(SKOS + "Concept"))
        yield ox.Triple(s, _n(SKOS + "inScheme"), scheme)
        yield ox.Triple(s, _n(SKOS + "prefLabel"), _lit(c.label, "en"))
        for a in sorted(set(c.aliases)):
            yield ox.Triple(s, _n(SKOS + "altLabel"), _lit(a, "en"))
        for h in sorted(set(c.hidden_labels)):
            yield ox.Triple(s, _n(SKOS + "hiddenLabel"), _lit(h, "en"))
        for b in sorted(c.broader):
            if b in kg.concepts:
                yield ox.Triple(s, _n(SKOS + "broader"), _n(concept_iri(b)))
        yield ox.Triple(s, _n(KGV + "conceptType"), _lit(c.type))
        yield ox.Triple(s, _n(KGV + "origin"), _lit(c.origin))
        yield ox.Triple(s, _n(KGV + "paperCount"), _int(len(kg.concept_papers.get(cid, ()))))
        yield ox.Triple(s, _n(KGV + "idf"), _double(kg.idf(cid)))


def mention_triples(kg: KnowledgeGraph) -> Iterator[ox.Triple]:
    """Triples for every mention, numbered per paper in text order."""
    cls = _n(KGV + "Mention")
    paper, concept, field, start, end, text, sentence, extractor, score = (
        _n(KGV + name) for name in ("paper", "concept", "field", "start", "end", "text",
                                    "sentence", "extractor", "score"))
    concepts: dict[str, ox.NamedNode] = {}
    fields: dict[str, ox.Literal] = {}
    ints: dict[int, ox.Literal] = {}
    for pid in sorted(kg.mentions_by_paper):
        p = _n(paper_iri(pid))
        for n, m in enumerate(kg.mentions_by_paper[pid], start=1):
            s = _n(mention_iri(pid, n))
            c = concepts.get(m.concept) or concepts.setdefault(m.concept,
                                                                _n(concept_iri(m.concept)))
            f = fields.get(m.field) or fields.setdefault(m.field, _lit(m.field))
            a = ints.get(m.start) or ints.setdefault(m.start, _int(m.start))
            b = ints.get(m.end) or ints.setdefault(m.end, _int(m.end))
            yield ox.Triple(s, _A, cls)
            yield ox.Triple(s, paper, p)
            yield ox.Triple(s, concept, c)
            yield ox.Triple(s, field, f)
            yield ox.Triple(s, start, a)
            yield ox.Triple(s, end, b)
            yield ox.Triple(s, text, _lit(m.text))
            yield ox.Triple(s, sentence, _lit(m.sentence))
            yield ox.Triple(s, extractor, _lit(m.extractor))
            yield ox.Triple(s, score, _double(m.score))


def link_triples(kg: KnowledgeGraph) -> Iterator[ox.Triple]:
    """One ``kgv:ConceptLink`` per paper and concept it mentions (like ``MENTIONS`` in Cypher).

    Links have their own ``kgv:linkPaper`` / ``kgv:linkConcept`` (not the mentions'
    ``kgv:paper`` / ``kgv:concept``), so a concept's links are read without its mentions.
    ``kgv:firstMention`` is the paper's first mention of the concept in text order
    (the mention numbers of :func:`mention_triples`); ``kgv:evidence`` is its sentence.
    """
    cls, paper, concept = _n(KGV + "ConceptLink"), _n(KGV + "linkPaper"), _n(KGV + "linkConcept")
    count, title, first = _n(KGV + "mentionCount"), _n(KGV + "titleMentions"), \
        _n(KGV + "firstMention")
    evidence = _n(KGV + "evidence")
    ints = {n: _int(n) for n in range(8)}
    for pid in sorted(kg.mentions_by_paper):
        p = _n(paper_iri(pid))
        links: dict[str, list] = {}
        for n, m in enumerate(kg.mentions_by_paper[pid], start=1):
            link = links.get(m.concept)
            if link is None:
                links[m.concept] = [n, m.sentence, 1, int(m.field == "title")]
            else:
                link[2] += 1
                link[3] += m.field == "title"
        for cid in sorted(links):
            n, sentence, total, in_title = links[cid]
            s = _n(link_iri(pid, cid))
            yield ox.Triple(s, _A, cls)
            yield ox.Triple(s, paper, p)
            yield ox.Triple(s, concept, _n(concept_iri(cid)))
            yield ox.Triple(s, count, ints.get(total) or _int(total))
            yield ox.Triple(s, title, ints.get(in_title) or _int(in_title))
            yield ox.Triple(s, first, _n(mention_iri(pid, n)))
            yield ox.Triple(s, evidence, _lit(sentence))


def dataset_triples(kg: KnowledgeGraph) -> Iterator[ox.Triple]:
    """The ``kgv:Dataset`` node: how many papers, concepts, mentions, concepts per type.

    Written at build so ``stats`` reads them instead of counting every node.
    """
    s = _n(DATASET)
    total = _n(KGV + "conceptTotal")
    yield ox.Triple(s, _A, _n(KGV + "Dataset"))
    yield ox.Triple(s, _n(KGV + "paperTotal"), _int(len(kg.papers)))
    yield ox.Triple(s, total, _int(len(kg.concepts)))
    yield ox.Triple(s, _n(KGV + "mentionTotal"), _int(len(kg.mentions)))
    by_type: dict[str, int] = {}
    for c in kg.concepts.values():
        by_type[c.type] = by_type.get(c.type, 0) + 1
    for name in sorted(by_type):
        t = _n(f"{DATASET}/type/{quote(name, safe='-._~')}")
        yield ox.Triple(s, _n(KGV + "typeCount"), t)
        yield ox.Triple(t, _n(KGV + "typeName"), _lit(name))
        yield ox.Triple(t, total, _int(by_type[name]))


def triples(kg: KnowledgeGraph) -> Iterator[ox.Triple]:
    """Every triple of the RDF form, in a deterministic order."""
    yield from concept_triples(kg)
    yield from paper_triples(kg)
    yield from mention_triples(kg)
    yield from link_triples(kg)
    yield from dataset_triples(kg)
