"""IRIs of the project's RDF vocabulary and the well-known ones it reuses.

See ``docs/rdf-model.md`` for the model with an example.
"""

from __future__ import annotations

from urllib.parse import quote

from kg.core.model import RELATION_TYPES

__all__ = [
    "BASE", "CONCEPT_NS", "DATASET", "DCTERMS", "EXTRACTOR_NS", "KGV", "OA", "OWL", "PAPER_NS",
    "PREFIXES", "PROV", "RDF", "RDFS", "RELATION_NS", "RELATION_PROPERTIES", "SCHEMA", "SCHEME",
    "SKOS", "VOID", "XSD", "concept_iri", "extractor_iri", "link_iri", "mention_iri", "paper_iri",
    "relation_iri", "sparql_prefixes", "statement_iri",
]

BASE = "https://w3id.org/kg-abstracts/"
KGV = BASE + "vocab#"
CONCEPT_NS = BASE + "concept/"
PAPER_NS = BASE + "paper/"
SCHEME = BASE + "lexicon"
DATASET = BASE + "dataset"
#: the extractors, as PROV software agents (``kgx:lexicon`` …)
EXTRACTOR_NS = BASE + "extractor/"
#: the concept–concept relations, one node per type and concept pair (``kgr:used-for/a/b``)
RELATION_NS = BASE + "relation/"

SKOS = "http://www.w3.org/2004/02/skos/core#"
DCTERMS = "http://purl.org/dc/terms/"
SCHEMA = "https://schema.org/"
PROV = "http://www.w3.org/ns/prov#"
OA = "http://www.w3.org/ns/oa#"  # W3C Web Annotation
VOID = "http://rdfs.org/ns/void#"
OWL = "http://www.w3.org/2002/07/owl#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"

#: the property that links two concepts directly, per relation type (``kgv:usedFor`` …)
RELATION_PROPERTIES = {
    "used-for": KGV + "usedFor", "feature-of": KGV + "featureOf", "hyponym-of": KGV + "hyponymOf",
    "part-of": KGV + "partOf", "compare": KGV + "compare", "conjunction": KGV + "conjunction",
    "evaluate-for": KGV + "evaluateFor",
}
assert set(RELATION_PROPERTIES) == set(RELATION_TYPES)

PREFIXES = {
    "kgv": KGV, "kgc": CONCEPT_NS, "kgp": PAPER_NS, "kgx": EXTRACTOR_NS, "kgr": RELATION_NS,
    "skos": SKOS,
    "dcterms": DCTERMS, "schema": SCHEMA, "prov": PROV, "oa": OA, "void": VOID, "rdf": RDF,
    "rdfs": RDFS, "owl": OWL, "xsd": XSD,
}


def concept_iri(concept_id: str) -> str:
    """IRI of a concept id (ids are slugs, but quote anyway: ids may come from users)."""
    return CONCEPT_NS + quote(concept_id, safe="-._~")


def paper_iri(paper_id: str) -> str:
    """IRI of a paper id; any character outside the unreserved set is %-encoded."""
    return PAPER_NS + quote(paper_id, safe="-._~")


def mention_iri(paper_id: str, n: int) -> str:
    """IRI of the ``n``-th mention of a paper (stable for the same input)."""
    return f"{paper_iri(paper_id)}/mention/{n}"


def link_iri(paper_id: str, concept_id: str) -> str:
    """IRI of the link between a paper and a concept it mentions (a ``kgv:ConceptLink``)."""
    return f"{paper_iri(paper_id)}/concept/{quote(concept_id, safe='-._~')}"


def relation_iri(relation_type: str, head: str, tail: str) -> str:
    """IRI of the relation ``head relation_type tail`` between two concepts (a ``kgv:Relation``).

    Examples
    --------
    >>> relation_iri("used-for", "gnn", "node-classification")
    'https://w3id.org/kg-abstracts/relation/used-for/gnn/node-classification'
    """
    parts = (relation_type, head, tail)
    return RELATION_NS + "/".join(quote(x, safe="-._~") for x in parts)


def statement_iri(paper_id: str, n: int) -> str:
    """IRI of the ``n``-th relation statement of a paper (a ``kgv:RelationStatement``)."""
    return f"{paper_iri(paper_id)}/relation/{n}"


def extractor_iri(name: str) -> str:
    """IRI of the extractor ``name`` (a ``prov:SoftwareAgent``: ``lexicon``, ``model`` …)."""
    return EXTRACTOR_NS + quote(name, safe="-._~")


def sparql_prefixes() -> str:
    """PREFIX lines for every namespace above."""
    return "".join(f"PREFIX {k}: <{v}>\n" for k, v in PREFIXES.items())
