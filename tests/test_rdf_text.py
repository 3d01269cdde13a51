"""``graph.ttl`` is written as text (:mod:`kg.stores.rdf`, :func:`kg.stores.rdf_file.turtle`),
not through Oxigraph's serializer: the text must be the bytes Oxigraph writes for the same
triples, for any IRI and literal, and parse back to the same triples.

Example counts come from the hypothesis profile in :mod:`tests.guard`.
"""

from __future__ import annotations

from urllib.parse import quote

import pyoxigraph as ox
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tests.guard  # noqa: F401  (loads the hypothesis profile)
from kg.core.vocab import PREFIXES, XSD
from kg.stores import rdf
from kg.stores.rdf_file import header, parse_block, turtle

TEXT = st.characters(blacklist_categories=["Cs"])  # anything that can be UTF-8
#: Local parts of IRIs: what %-encoded ids give, and characters that need escaping or
#: cannot be in a prefixed name at all.
LOCAL_PIECE = st.one_of(st.text(st.sampled_from("aZ09-._~%/:#@!$&'()*+,;=?"), max_size=6),
                        st.text(TEXT, max_size=4).map(lambda t: quote(t, safe="")),
                        st.sampled_from(["\u00b7", "\u0301", "\u00e9", "\u203f", "\u2070",
                                         "\U0001F600", "\u3000", "\u00d7"]))
LOCAL = st.lists(LOCAL_PIECE, max_size=5).map("".join)
NAMESPACE = st.sampled_from([*PREFIXES.values(), "urn:x:", "http://example.org/"])


def _iri(ns: str, local: str) -> ox.NamedNode | None:
    try:
        return ox.NamedNode(ns + local)
    except ValueError:  # not an IRI: nothing to write
        return None


IRIS = st.builds(_iri, NAMESPACE, LOCAL).filter(lambda n: n is not None)
DOUBLES = st.floats(allow_nan=True, allow_infinity=True)


def _term(node: ox.NamedNode | ox.Literal) -> str:
    """The Turtle text :mod:`kg.stores.rdf` writes for ``node``."""
    if isinstance(node, ox.NamedNode):
        return rdf.iri(node.value)
    if node.language:
        return rdf.literal(node.value, node.language)
    if node.datatype.value == XSD + "double":
        return rdf.double(float(node.value))  # the writer's own formatting of a float
    if node.datatype.value == XSD + "integer":
        return rdf.integer(int(node.value))
    return rdf.literal(node.value)


OBJECTS = st.one_of(
    IRIS,
    st.text(TEXT, max_size=30).map(ox.Literal),
    st.text(TEXT, max_size=10).map(lambda t: ox.Literal(t, language="en")),
    st.integers(-10**12, 10**12).map(lambda n: ox.Literal(str(n), datatype=ox.NamedNode(
        XSD + "integer"))),
    DOUBLES.map(lambda x: ox.Literal(repr(x), datatype=ox.NamedNode(XSD + "double"))),
)
TRIPLES = st.lists(st.builds(ox.Triple, IRIS, IRIS, OBJECTS), max_size=12)


def _oxigraph(triples: list[ox.Triple]) -> bytes:
    text = ox.serialize(triples, None, ox.RdfFormat.TURTLE, prefixes=PREFIXES)
    return text[len(header()):] if text else b""


@given(TRIPLES, st.data())
def test_the_text_is_what_oxigraph_writes(triples, data):
    # runs of one subject and of one subject and predicate: ";" and "," in Turtle
    if triples and data.draw(st.booleans()):
        s, p = triples[0].subject, triples[0].predicate
        triples = [ox.Triple(s, p if data.draw(st.booleans()) else t.predicate, t.object)
                   for t in triples]
    text = [(_term(t.subject), "a" if t.predicate.value == rdf.RDF + "type"
             else _term(t.predicate), _term(t.object)) for t in triples]
    written = turtle(text)
    assert written == _oxigraph(triples)
    assert parse_block(written) == triples
    assert rdf.parse_triples(text) == triples


def test_the_header_is_what_oxigraph_writes():
    probe = ox.Triple(ox.NamedNode("urn:x"), ox.NamedNode("urn:y"), ox.NamedNode("urn:z"))
    text = ox.serialize([probe], None, ox.RdfFormat.TURTLE, prefixes=PREFIXES)
    assert text == header() + b"<urn:x> <urn:y> <urn:z> .\n"


def test_local_names_that_need_escapes_or_cannot_be_prefixed():
    concept = PREFIXES["kgc"]
    assert rdf.iri(concept + "a.b") == "kgc:a.b"
    assert rdf.iri(concept + "ab.") == "kgc:ab\\."
    assert rdf.iri(concept + ".ab") == "kgc:\\.ab"
    assert rdf.iri(concept + "-a") == "kgc:\\-a"
    assert rdf.iri(concept + "a%2Fb~c") == "kgc:a\\%2Fb\\~c"
    assert rdf.iri(concept) == "kgc:"
    assert rdf.iri(concept + "a{b") == f"<{concept}a{{b>"
    assert rdf.literal('a"b\\c\nd\x00\ufffe') == '"a\\"b\\\\c\\nd\\u0000\\uFFFE"'


def test_the_store_loads_while_the_turtle_is_written(tmp_path):
    from kg.core.model import KnowledgeGraph, Paper
    from kg.stores.out import write_rdf

    kg = KnowledgeGraph(papers={"p1": Paper("p1", "A title", "An abstract.")})
    n = write_rdf(kg, tmp_path)
    store = ox.Store.read_only(str(tmp_path / "store"))
    assert len(store) == n == len(parse_block((tmp_path / "graph.ttl").read_bytes()[
        len(header()):]))


def test_a_store_that_cannot_be_loaded_fails_the_write(tmp_path):
    from kg.core.model import KnowledgeGraph, Paper
    from kg.stores.out import write_rdf

    (tmp_path / "store").write_text("a file where the store goes")
    kg = KnowledgeGraph(papers={f"p{i}": Paper(f"p{i}", "A title", "An abstract. " * 200)
                                for i in range(200)})  # more than the pipe holds
    with pytest.raises(OSError, match="not a directory") as e:  # the loader's error
        write_rdf(kg, tmp_path)
    assert not isinstance(e.value, BrokenPipeError)


def test_a_store_loaded_while_written_in_pieces_has_every_triple(tmp_path, monkeypatch):
    from kg.core.model import KnowledgeGraph, Paper
    from kg.stores import out as out_module

    kg = KnowledgeGraph(papers={f"p{i}": Paper(f"p{i}", "A title", "An abstract. " * 20)
                                for i in range(50)})
    monkeypatch.setattr(out_module, "BULK_LOAD_BYTES", 2000)  # many pieces
    monkeypatch.setattr(out_module._StoreLoad.__init__, "__defaults__", (2000, 10**9))
    n = out_module.write_rdf(kg, tmp_path)
    store = ox.Store.read_only(str(tmp_path / "store"))
    expected = parse_block((tmp_path / "graph.ttl").read_bytes()[len(header()):])
    assert len(store) == n == len(expected) > 50
    assert {ox.Triple(q.subject, q.predicate, q.object) for q in store} == set(expected)


def test_a_store_loaded_while_written_is_cut_by_triples_too(tmp_path, monkeypatch):
    """Pieces are bounded in triples as well as bytes (the loader's memory is per triple)."""
    from kg.core.model import KnowledgeGraph, Paper
    from kg.stores import out as out_module

    kg = KnowledgeGraph(papers={f"p{i}": Paper(f"p{i}", "A title", "An abstract.")
                                for i in range(40)})
    opened = []
    real_open = out_module._StoreLoad._open

    def counting_open(self):
        opened.append(self._counted)
        real_open(self)

    monkeypatch.setattr(out_module._StoreLoad, "_open", counting_open)
    monkeypatch.setattr(out_module._StoreLoad.__init__, "__defaults__", (10**9, 30))
    n = out_module.write_rdf(kg, tmp_path)
    store = ox.Store.read_only(str(tmp_path / "store"))
    expected = parse_block((tmp_path / "graph.ttl").read_bytes()[len(header()):])
    assert len(store) == n == len(expected)
    assert {ox.Triple(q.subject, q.predicate, q.object) for q in store} == set(expected)
    assert len(opened) >= n // 30  # one bulk load per 30 triples or so
