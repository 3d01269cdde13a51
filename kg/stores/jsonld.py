"""JSON-LD in compact form, with the shipped ``@context`` (``kg/context.jsonld``).

Each node is one object: ``"@id": "kgp:…"``, ``"@type": "Paper"``, and short keys
(``title``, ``prefLabel``, ``start`` …) whose values are plain strings because the context
gives their datatype or language. A value that does not fit its key's definition (a
``schema:url`` that is not an IRI, say) is written under the prefixed name of its predicate
in expanded form, so expanding the document gives back exactly the graph's triples.

The compaction is done here rather than by a JSON-LD processor: the context is flat (terms
and prefixes only), so each triple maps to one key and one value, and nodes come out
sorted, so the same graph gives the same bytes. The tests check the result against PyLD
and rdflib.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

import pyoxigraph as ox

from kg.core.vocab import RDF

__all__ = ["CONTEXT_FILE", "compact_document", "context"]

CONTEXT_FILE = "context.jsonld"
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


@cache
def context() -> dict[str, Any]:
    """The shipped context: ``{"@context": {...}}``."""
    text = (resources.files("kg") / CONTEXT_FILE).read_text(encoding="utf-8")
    return json.loads(text)


@cache
def _tables() -> tuple[dict[str, str], dict[str, tuple[str, dict]], dict[str, str]]:
    """Prefixes (namespace -> prefix), terms by predicate IRI, class terms by IRI."""
    ctx = context()["@context"]
    prefixes = {v: k for k, v in ctx.items() if isinstance(v, str) and "://" in v}

    def expand(curie: str) -> str:
        prefix, _, rest = curie.partition(":")
        return ctx[prefix] + rest if prefix in ctx and isinstance(ctx[prefix], str) else curie

    terms: dict[str, tuple[str, dict]] = {}
    classes: dict[str, str] = {}
    for key, value in ctx.items():
        if isinstance(value, dict):
            definition = {k: expand(v) if k == "@type" and v.startswith(("xsd:",)) else v
                          for k, v in value.items()}
            terms[expand(value["@id"])] = (key, definition)
        elif "://" not in value:
            iri = expand(value)
            if key[0].isupper():
                classes[iri] = key
            else:
                terms[iri] = (key, {})
    return prefixes, terms, classes


def _curie(iri: str) -> str:
    prefixes = _tables()[0]
    for ns in sorted(prefixes, key=len, reverse=True):
        if iri.startswith(ns) and len(iri) > len(ns):
            return f"{prefixes[ns]}:{iri[len(ns):]}"
    return iri


def _value(term: dict, obj: ox.NamedNode | ox.BlankNode | ox.Literal) -> tuple[bool, Any]:
    """``(fits the term, JSON value)`` for one object."""
    if isinstance(obj, ox.NamedNode):
        if term.get("@type") == "@id":
            return True, _curie(obj.value)
        return False, {"@id": _curie(obj.value)}
    if isinstance(obj, ox.BlankNode):
        return term.get("@type") == "@id", f"_:{obj.value}" if term.get("@type") == "@id" \
            else {"@id": f"_:{obj.value}"}
    lang, datatype = obj.language, obj.datatype.value
    if lang:
        return term.get("@language") == lang, (obj.value if term.get("@language") == lang
                                               else {"@value": obj.value, "@language": lang})
    if "@type" in term:
        if term["@type"] == datatype:
            return True, obj.value
    elif "@language" not in term and datatype == _XSD_STRING:
        return True, obj.value
    if datatype == _XSD_STRING:
        return False, obj.value
    return False, {"@value": obj.value, "@type": _curie(datatype)}


def compact_document(triples: Iterable[ox.Triple]) -> dict[str, Any]:
    """The compact JSON-LD document of ``triples`` (``{"@context", "@graph"}``).

    Examples
    --------
    >>> t = ox.Triple(ox.NamedNode("https://w3id.org/kg-abstracts/concept/gnn"),
    ...               ox.NamedNode("http://www.w3.org/2004/02/skos/core#prefLabel"),
    ...               ox.Literal("graph neural network", language="en"))
    >>> compact_document([t])["@graph"]
    [{'@id': 'kgc:gnn', 'prefLabel': 'graph neural network'}]
    """
    _, terms, classes = _tables()
    nodes: dict[str, dict[str, Any]] = {}
    for t in triples:
        s = t.subject
        sid = _curie(s.value) if isinstance(s, ox.NamedNode) else f"_:{s.value}"
        node = nodes.setdefault(sid, {"@id": sid})
        p = t.predicate.value
        if p == RDF + "type" and isinstance(t.object, ox.NamedNode):
            node.setdefault("@type", []).append(classes.get(t.object.value)
                                                or _curie(t.object.value))
            continue
        name, term = terms.get(p, (None, {}))
        fits, value = _value(term, t.object)
        key = name if name and fits else _curie(p)
        node.setdefault(key, []).append(value)
    graph = []
    for sid in sorted(nodes):
        node = nodes[sid]
        out: dict[str, Any] = {}
        for key in sorted(node, key=lambda k: (k not in ("@id", "@type"), k)):
            v = node[key]
            if isinstance(v, list):
                v = sorted(v, key=lambda x: json.dumps(x, sort_keys=True, ensure_ascii=False))
                v = v[0] if len(v) == 1 else v
            out[key] = v
        graph.append(out)
    return {"@context": context()["@context"], "@graph": graph}
