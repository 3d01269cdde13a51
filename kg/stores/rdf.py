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
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from urllib.parse import quote

import pyoxigraph as ox

from kg.core.model import KnowledgeGraph, Relation, edge_key
from kg.core.vocab import (
    DATASET,
    DCTERMS,
    KGV,
    OA,
    PROV,
    RDF,
    RDFS,
    RELATION_PROPERTIES,
    SCHEMA,
    SCHEME,
    SKOS,
    VOID,
    XSD,
    concept_iri,
    extractor_iri,
    link_iri,
    mention_iri,
    paper_iri,
    relation_iri,
    statement_iri,
)

__all__ = [
    "VOCABULARIES", "concept_triples", "corpus_triples", "dataset_triples", "extractor_triples",
    "link_triples", "mention_triples", "paper_block", "paper_triples", "relation_triples",
    "salience_triples", "statement_triples", "triples",
]

_A = ox.NamedNode(RDF + "type")


def _n(iri: str) -> ox.NamedNode:
    return ox.NamedNode(iri)


def _lit(value: str, lang: str | None = None) -> ox.Literal:
    return ox.Literal(value, language=lang) if lang else ox.Literal(value)


_INTEGER = ox.NamedNode(XSD + "integer")
_DOUBLE = ox.NamedNode(XSD + "double")


@lru_cache(maxsize=4096)
def _int(value: int) -> ox.Literal:
    return ox.Literal(str(value), datatype=_INTEGER)


def _double(value: float) -> ox.Literal:
    return ox.Literal(repr(float(value)), datatype=_DOUBLE)


def _url(value: str) -> ox.NamedNode | ox.Literal:
    try:
        return _n(value)
    except ValueError:  # not a valid IRI: keep the text
        return _lit(value)


def paper_triples(kg: KnowledgeGraph, pid: str) -> Iterator[ox.Triple]:
    """Triples describing the paper ``pid`` and its subjects."""
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


_MENTION = {name: _n(KGV + name) for name in (
    "Mention", "paper", "concept", "field", "start", "end", "text", "sentence", "extractor",
    "score")}
_ANNOTATION = _n(OA + "Annotation")
_HAS_BODY = _n(OA + "hasBody")
_HAS_TARGET = _n(OA + "hasTarget")
_ATTRIBUTED_TO = _n(PROV + "wasAttributedTo")


def mention_triples(kg: KnowledgeGraph, pid: str) -> Iterator[ox.Triple]:
    """Triples for every mention of the paper ``pid``, numbered in text order."""
    v = _MENTION
    cls, paper, concept, field, start, end, text, sentence, extractor, score = (
        v[name] for name in ("Mention", "paper", "concept", "field", "start", "end", "text",
                             "sentence", "extractor", "score"))
    p = _n(paper_iri(pid))
    for n, m in enumerate(kg.mentions_by_paper.get(pid, ()), start=1):
        s = _n(mention_iri(pid, n))
        c = _n(concept_iri(m.concept))
        yield ox.Triple(s, _A, cls)
        yield ox.Triple(s, _A, _ANNOTATION)
        yield ox.Triple(s, paper, p)
        yield ox.Triple(s, concept, c)
        # the same in Web Annotation and PROV terms, for tools that know those only
        yield ox.Triple(s, _HAS_BODY, c)
        yield ox.Triple(s, _HAS_TARGET, p)
        yield ox.Triple(s, _ATTRIBUTED_TO, _n(extractor_iri(m.extractor)))
        yield ox.Triple(s, field, _lit(m.field))
        yield ox.Triple(s, start, _int(m.start))
        yield ox.Triple(s, end, _int(m.end))
        yield ox.Triple(s, text, _lit(m.text))
        yield ox.Triple(s, sentence, _lit(m.sentence))
        yield ox.Triple(s, extractor, _lit(m.extractor))
        yield ox.Triple(s, score, _double(m.score))


def link_triples(kg: KnowledgeGraph, pid: str) -> Iterator[ox.Triple]:
    """One ``kgv:ConceptLink`` per concept the paper ``pid`` mentions (``MENTIONS`` in Cypher).

    Links have their own ``kgv:linkPaper`` / ``kgv:linkConcept`` (not the mentions'
    ``kgv:paper`` / ``kgv:concept``), so a concept's links are read without its mentions.
    ``kgv:firstMention`` is the paper's first mention of the concept in text order
    (the mention numbers of :func:`mention_triples`); ``kgv:evidence`` is its sentence.
    """
    v = _LINK
    p = _n(paper_iri(pid))
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
        s = _n(link_iri(pid, cid))
        yield ox.Triple(s, _A, v["ConceptLink"])
        yield ox.Triple(s, v["linkPaper"], p)
        yield ox.Triple(s, v["linkConcept"], _n(concept_iri(cid)))
        yield ox.Triple(s, v["mentionCount"], _int(total))
        yield ox.Triple(s, v["titleMentions"], _int(in_title))
        yield ox.Triple(s, v["firstMention"], _n(mention_iri(pid, n)))
        yield ox.Triple(s, v["evidence"], _lit(sentence))


_LINK = {name: _n(KGV + name) for name in (
    "ConceptLink", "linkPaper", "linkConcept", "mentionCount", "titleMentions",
    "firstMention", "evidence")}


_REL = {name: _n(KGV + name) for name in (
    "Relation", "RelationStatement", "relationType", "statementCount", "relationPaperCount",
    "relation", "statedIn", "statementField", "headStart", "headEnd", "headText", "tailStart",
    "tailEnd", "tailText", "statementSentence", "statementExtractor", "statementScore")}
_STATEMENT = _n(RDF + "Statement")
_SUBJECT, _PREDICATE, _OBJECT = (_n(RDF + x) for x in ("subject", "predicate", "object"))
_DERIVED_FROM = _n(PROV + "wasDerivedFrom")


def relation_triples(kg: KnowledgeGraph) -> Iterator[ox.Triple]:
    """One ``kgv:Relation`` per relation edge of the graph, and its direct triple.

    The node reifies the triple ``head kgv:usedFor tail`` (``rdf:subject``,
    ``rdf:predicate``, ``rdf:object``) and carries ``kgv:relationType`` (SciERC's name),
    ``kgv:statementCount``, ``kgv:relationPaperCount`` and ``prov:wasDerivedFrom`` each paper that
    states it; the sentences are on its ``kgv:RelationStatement`` nodes
    (:func:`statement_triples`), which point to it with ``kgv:relation``.
    """
    v = _REL
    for (rtype, head, tail), edge in kg.relation_edges.items():
        s = _n(relation_iri(rtype, head, tail))
        h, t, prop = _n(concept_iri(head)), _n(concept_iri(tail)), _n(RELATION_PROPERTIES[rtype])
        yield ox.Triple(h, prop, t)
        yield ox.Triple(s, _A, v["Relation"])
        yield ox.Triple(s, _A, _STATEMENT)
        yield ox.Triple(s, _SUBJECT, h)
        yield ox.Triple(s, _PREDICATE, prop)
        yield ox.Triple(s, _OBJECT, t)
        yield ox.Triple(s, v["relationType"], _lit(rtype))
        yield ox.Triple(s, v["statementCount"], _int(edge.count))
        yield ox.Triple(s, v["relationPaperCount"], _int(len(edge.evidence)))
        for pid in edge.evidence:
            yield ox.Triple(s, _DERIVED_FROM, _n(paper_iri(pid)))


def _covering_mention(kg: KnowledgeGraph, r: Relation, concept: str, start: int,
                      end: int) -> int | None:
    """The number of the paper's first mention of ``concept`` in ``r``'s field that
    overlaps ``start:end`` (the mention the argument was linked through)."""
    for n, m in enumerate(kg.mentions_by_paper.get(r.paper, ()), start=1):
        if m.concept == concept and m.field == r.field and m.start < end and start < m.end:
            return n
    return None


def statement_triples(kg: KnowledgeGraph, pid: str) -> Iterator[ox.Triple]:
    """One ``kgv:RelationStatement`` per sentence of the paper ``pid`` that states a relation
    edge, numbered in text order: its paper, relation, field, argument offsets and texts,
    sentence, extractor and score, ``prov:wasDerivedFrom`` the two mentions it links."""
    v = _REL
    p = _n(paper_iri(pid))
    for n, r in enumerate(kg.relations_by_paper.get(pid, ()), start=1):
        key = edge_key(r)
        assert key is not None  # relations_by_paper holds edges only
        s = _n(statement_iri(pid, n))
        yield ox.Triple(s, _A, v["RelationStatement"])
        yield ox.Triple(s, v["statedIn"], p)
        yield ox.Triple(s, v["relation"], _n(relation_iri(*key)))
        yield ox.Triple(s, _ATTRIBUTED_TO, _n(extractor_iri(r.extractor)))
        for concept, start, end in ((r.head_concept, r.head_start, r.head_end),
                                    (r.tail_concept, r.tail_start, r.tail_end)):
            found = _covering_mention(kg, r, str(concept), start, end)
            if found is not None:
                yield ox.Triple(s, _DERIVED_FROM, _n(mention_iri(pid, found)))
        yield ox.Triple(s, v["statementField"], _lit(r.field))
        yield ox.Triple(s, v["headStart"], _int(r.head_start))
        yield ox.Triple(s, v["headEnd"], _int(r.head_end))
        yield ox.Triple(s, v["headText"], _lit(r.head_text))
        yield ox.Triple(s, v["tailStart"], _int(r.tail_start))
        yield ox.Triple(s, v["tailEnd"], _int(r.tail_end))
        yield ox.Triple(s, v["tailText"], _lit(r.tail_text))
        yield ox.Triple(s, v["statementSentence"], _lit(r.sentence))
        yield ox.Triple(s, v["statementExtractor"], _lit(r.extractor))
        yield ox.Triple(s, v["statementScore"], _double(r.score))


#: the vocabularies the graph uses (``void:vocabulary`` of the dataset)
VOCABULARIES = (DCTERMS, KGV, OA, PROV, SCHEMA, SKOS)


def dataset_triples(kg: KnowledgeGraph) -> Iterator[ox.Triple]:
    """The ``kgv:Dataset`` node: how many papers, concepts, mentions, concepts per type.

    Written at build so ``stats`` reads them instead of counting every node. It is also
    a ``void:Dataset`` with one ``void:classPartition`` per class (``void:entities``) and
    its ``void:vocabulary``.
    """
    s = _n(DATASET)
    total = _n(KGV + "conceptTotal")
    yield ox.Triple(s, _A, _n(KGV + "Dataset"))
    yield ox.Triple(s, _A, _n(VOID + "Dataset"))
    n_links = sum(len(c) for c in kg.paper_concepts.values())
    for name, cls, n in (("paper", SCHEMA + "ScholarlyArticle", len(kg.papers)),
                         ("concept", SKOS + "Concept", len(kg.concepts)),
                         ("mention", KGV + "Mention", len(kg.mentions)),
                         ("link", KGV + "ConceptLink", n_links)):
        part = _n(f"{DATASET}/class/{name}")
        yield ox.Triple(s, _n(VOID + "classPartition"), part)
        yield ox.Triple(part, _n(VOID + "class"), _n(cls))
        yield ox.Triple(part, _n(VOID + "entities"), _int(n))
    for ns in VOCABULARIES:
        yield ox.Triple(s, _n(VOID + "vocabulary"), _n(ns))
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


def extractor_triples(kg: KnowledgeGraph) -> Iterator[ox.Triple]:
    """Each extractor that found a mention, as a ``prov:SoftwareAgent`` named by its label."""
    names = {m.extractor for m in kg.mentions}
    names.update(r.extractor for rs in kg.relations_by_paper.values() for r in rs)
    for name in sorted(names):
        s = _n(extractor_iri(name))
        yield ox.Triple(s, _A, _n(PROV + "SoftwareAgent"))
        yield ox.Triple(s, _n(RDFS + "label"), _lit(name))


def salience_triples(kg: KnowledgeGraph) -> Iterator[ox.Triple]:
    """Each link's ``kgv:salience``, and ``paper kgv:about concept`` for the *about* links.

    ``kgv:about`` is a subproperty of ``dcterms:subject``: the concepts a paper is about
    (its best concepts, :mod:`kg.core.salience`), a subset of those it mentions.
    """
    salience, about = _n(KGV + "salience"), _n(KGV + "about")
    for (pid, cid), s in sorted(kg.salience.items()):
        yield ox.Triple(_n(link_iri(pid, cid)), salience, _double(s.score))
        if s.about:
            yield ox.Triple(_n(paper_iri(pid)), about, _n(concept_iri(cid)))


def corpus_triples(kg: KnowledgeGraph) -> Iterator[ox.Triple]:
    """The triples that depend on the whole corpus: concepts (counts, idf), relations between
    them, totals, extractors, salience."""
    yield from concept_triples(kg)
    yield from relation_triples(kg)
    yield from dataset_triples(kg)
    yield from extractor_triples(kg)
    yield from salience_triples(kg)


def paper_block(kg: KnowledgeGraph, pid: str) -> Iterator[ox.Triple]:
    """The triples of one paper: the paper, its mentions, its concept links and its relation
    statements.

    They depend on the paper, its mentions and its relations only (see
    :func:`kg.stores.rdf_file.paper_key`).
    """
    yield from paper_triples(kg, pid)
    yield from mention_triples(kg, pid)
    yield from link_triples(kg, pid)
    yield from statement_triples(kg, pid)


def triples(kg: KnowledgeGraph) -> Iterator[ox.Triple]:
    """Every triple of the RDF form, in a deterministic order (``graph.ttl``'s order)."""
    yield from corpus_triples(kg)
    for pid in sorted(kg.papers):
        yield from paper_block(kg, pid)
